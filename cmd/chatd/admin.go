package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/postgres"
)

// createOrg implements `chatd create-org`.
func createOrg(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chatd create-org", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	name := fs.String("name", "", "organization name (required)")
	host := fs.String("host", "localhost:9991", "host name (and port) through which clients reach the organization")
	orgURL := fs.String("url", "", "canonical URL of the organization (default http://HOST)")
	ownerEmail := fs.String("owner-email", "", "owner's email address (required)")
	ownerName := fs.String("owner-name", "", "owner's full name (required)")
	ownerPassword := fs.String("owner-password", "", "owner's password (optional; without one the owner logs in with the API key)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := required(fs, "name", "owner-email", "owner-name"); err != nil {
		return err
	}
	return withService(sf, func(svc *chat.Service) error {
		res, err := svc.CreateOrg(ctx, chat.NewOrg{
			Name: *name, Host: *host, URL: *orgURL,
			OwnerEmail: *ownerEmail, OwnerName: *ownerName, OwnerPassword: *ownerPassword,
		})
		if err != nil {
			return err
		}
		return printJSON(stdout, res)
	})
}

// createUser implements `chatd create-user`.
func createUser(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chatd create-user", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	realmID := fs.Int64("realm-id", 1, "ID of the organization")
	email := fs.String("email", "", "email address (required)")
	name := fs.String("name", "", "full name (required)")
	password := fs.String("password", "", "password (optional)")
	role := fs.String("role", "member", "role: owner, admin, moderator, member, guest, or the number")
	botType := fs.Int("bot-type", 0, "bot type: 0 human, 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded")
	botOwner := fs.Int64("bot-owner-id", 0, "user ID of the bot's owner")
	canChangeEmails := fs.Bool("can-change-user-emails", false, "grant the special permission to change other users' email addresses (owners)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := required(fs, "email", "name"); err != nil {
		return err
	}
	r, err := parseRole(*role)
	if err != nil {
		return err
	}
	return withService(sf, func(svc *chat.Service) error {
		res, err := svc.ProvisionUser(ctx, *realmID, chat.NewUser{
			Email: *email, FullName: *name, Password: *password, Role: r,
			BotType: chat.BotType(*botType), BotOwnerID: *botOwner, CanChangeUserEmails: *canChangeEmails,
		})
		if err != nil {
			return err
		}
		return printJSON(stdout, res)
	})
}

var roleNames = map[string]chat.Role{
	"owner": chat.RoleOwner, "admin": chat.RoleAdmin, "moderator": chat.RoleModerator,
	"member": chat.RoleMember, "guest": chat.RoleGuest,
}

func parseRole(s string) (chat.Role, error) {
	if r, ok := roleNames[s]; ok {
		return r, nil
	}
	if n, err := strconv.Atoi(s); err == nil && chat.Role(n).Valid() {
		return chat.Role(n), nil
	}
	return 0, fmt.Errorf("invalid role %q", s)
}

// required checks that the named flags have non-empty values.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return fmt.Errorf("--%s is required", n)
		}
	}
	return nil
}

// withService opens the store, runs fn with a service over it and closes it.
func withService(sf storeFlags, fn func(*chat.Service) error) error {
	ctx := context.Background()
	secret, err := sf.secret()
	if err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	cfg := chat.Config{APIKeySecret: secret}
	if pg, ok := store.(*postgres.Store); ok {
		// Servers on the same database tell their clients about the
		// changes, as for changes made through them.
		hub := chat.NewHub(chat.HubOptions{})
		defer hub.Close()
		events, err := postgres.NewEvents(ctx, pg, hub, postgres.EventsOptions{})
		if err != nil {
			store.Close()
			return err
		}
		defer events.Close()
		cfg.Hub, cfg.Events = hub, events
	}
	svc := chat.New(store, cfg)
	if _, err := svc.SealAPIKeys(ctx); err != nil {
		return errors.Join(fmt.Errorf("sealing the API keys: %w", err), svc.Close())
	}
	return errors.Join(fn(svc), svc.Close())
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
