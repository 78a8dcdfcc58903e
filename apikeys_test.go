package chat_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestAPIKeysSealed checks that the store holds no API key readable when
// a secret is set, while every answer that shows a key shows the real one
// and the key authenticates.
func TestAPIKeysSealed(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx := context.Background()
		st := newStore(t)
		svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost, APIKeySecret: []byte("secret A"),
			OutgoingWebhookClient: http.DefaultClient})
		t.Cleanup(func() { svc.Close() })
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "o@example.com",
			OwnerName: "Owner", OwnerPassword: "owner-password"})
		if err != nil {
			t.Fatal(err)
		}
		owner := chat.AsUser(org.UserID)
		hook, err := svc.CreateBot(ctx, owner, chat.NewBot{ShortName: "hook", FullName: "Hook", BotType: chat.BotOutgoingWebhook,
			PayloadURL: "https://bots.example.com/hook"})
		if err != nil {
			t.Fatal(err)
		}
		err = st.View(ctx, func(tx storage.Tx) error {
			services, err := tx.RealmBotServices(org.RealmID)
			if len(services) != 1 || len(services[0].Token) <= 32 || services[0].BotID != hook.UserID {
				t.Errorf("outgoing-webhook services %+v, want the token sealed", services)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		bot, err := svc.CreateBot(ctx, owner, chat.NewBot{ShortName: "helper", FullName: "Helper", BotType: chat.BotGeneric})
		if err != nil {
			t.Fatal(err)
		}
		stored := storedKeys(t, st, org.UserID, bot.UserID)
		for i, key := range []string{org.APIKey, bot.APIKey} {
			if len(key) != 32 || strings.Contains(stored[i], key) {
				t.Errorf("key %q stored as %q", key, stored[i])
			}
		}
		if id, err := svc.Authenticate(ctx, "chat.example.com", "o@example.com", org.APIKey); err != nil || id != org.UserID {
			t.Errorf("Authenticate(owner) = %d, %v", id, err)
		}
		if id, err := svc.Authenticate(ctx, "chat.example.com", "helper-bot@chat.example.com", bot.APIKey); err != nil || id != bot.UserID {
			t.Errorf("Authenticate(bot) = %d, %v", id, err)
		}
		if _, err := svc.Authenticate(ctx, "chat.example.com", "o@example.com", bot.APIKey); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("another user's key: %v, want ErrInvalidAPIKey", err)
		}
		res, err := svc.FetchAPIKey(ctx, "chat.example.com", "o@example.com", "owner-password")
		if err != nil || res.APIKey != org.APIKey {
			t.Errorf("FetchAPIKey = %q, %v; want the key of CreateOrg, %q", res.APIKey, err, org.APIKey)
		}
		bots, err := svc.Bots(ctx, owner)
		if err != nil || len(bots) != 2 || bots[1].APIKey != bot.APIKey {
			t.Errorf("Bots = %+v, %v; want the key %q", bots, err, bot.APIKey)
		}
		fresh, err := svc.RegenerateBotAPIKey(ctx, owner, bot.UserID)
		if err != nil {
			t.Fatal(err)
		}
		if s := storedKeys(t, st, bot.UserID)[0]; strings.Contains(s, fresh) {
			t.Errorf("regenerated key %q stored as %q", fresh, s)
		}
		if _, err := svc.Authenticate(ctx, "chat.example.com", "helper-bot@chat.example.com", bot.APIKey); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("the replaced key: %v, want ErrInvalidAPIKey", err)
		}
		if _, err := svc.Authenticate(ctx, "chat.example.com", "helper-bot@chat.example.com", fresh); err != nil {
			t.Errorf("the regenerated key: %v", err)
		}
	})
}

// TestSealAPIKeys checks the upgrade of a store whose keys were kept
// readable: the keys work before and after SealAPIKeys, which seals each
// once, and a process with another secret is refused rather than left to
// fail every login.
func TestSealAPIKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx := context.Background()
		st := newStore(t)
		plain := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
		org, err := plain.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "o@example.com",
			OwnerName: "Owner", OwnerPassword: "owner-password"})
		if err != nil {
			t.Fatal(err)
		}
		member, err := plain.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "m@example.com", FullName: "Member"})
		if err != nil {
			t.Fatal(err)
		}
		if got := storedKeys(t, st, org.UserID)[0]; got != org.APIKey {
			t.Fatalf("without a secret the key is stored as %q, want it readable, %q", got, org.APIKey)
		}
		if n, err := plain.SealAPIKeys(ctx); n != 0 || err != nil {
			t.Errorf("SealAPIKeys without a secret = %d, %v; want 0, nil", n, err)
		}

		svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost, APIKeySecret: []byte("secret A")})
		t.Cleanup(func() { svc.Close() })
		checkKeys := func(when string) {
			t.Helper()
			for _, c := range []struct {
				email, key string
				id         int64
			}{{"o@example.com", org.APIKey, org.UserID}, {"m@example.com", member.APIKey, member.UserID}} {
				if id, err := svc.Authenticate(ctx, "chat.example.com", c.email, c.key); err != nil || id != c.id {
					t.Errorf("%s: Authenticate(%s) = %d, %v", when, c.email, id, err)
				}
			}
			if res, err := svc.FetchAPIKey(ctx, "chat.example.com", "o@example.com", "owner-password"); err != nil || res.APIKey != org.APIKey {
				t.Errorf("%s: FetchAPIKey = %q, %v; want %q", when, res.APIKey, err, org.APIKey)
			}
		}
		checkKeys("stored readable, with a secret")
		if n, err := svc.SealAPIKeys(ctx); n != 2 || err != nil {
			t.Fatalf("SealAPIKeys = %d, %v; want 2, nil", n, err)
		}
		for i, s := range storedKeys(t, st, org.UserID, member.UserID) {
			if key := []string{org.APIKey, member.APIKey}[i]; strings.Contains(s, key) {
				t.Errorf("after SealAPIKeys, key %q stored as %q", key, s)
			}
		}
		checkKeys("sealed")
		if n, err := svc.SealAPIKeys(ctx); n != 0 || err != nil {
			t.Errorf("SealAPIKeys again = %d, %v; want 0, nil", n, err)
		}

		// Services close their store; the last one closes it for all.
		other := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost, APIKeySecret: []byte("secret B")})
		if _, err := other.SealAPIKeys(ctx); !errors.Is(err, chat.ErrAPIKeySecretMismatch) {
			t.Errorf("SealAPIKeys under another secret: %v, want ErrAPIKeySecretMismatch", err)
		}
		if _, err := other.Authenticate(ctx, "chat.example.com", "o@example.com", org.APIKey); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("Authenticate under another secret: %v, want ErrInvalidAPIKey", err)
		}
		var e *chat.Error
		_, err = other.FetchAPIKey(ctx, "chat.example.com", "o@example.com", "owner-password")
		if !errors.As(err, &e) || e.Code != chat.CodeInternalServerError || strings.Contains(e.Msg, "secret") {
			t.Errorf("FetchAPIKey under another secret: %v, want the bare internal error", err)
		}
		checkKeys("after the other process")
	})
}

// storedKeys reads the users' API keys as the store holds them.
func storedKeys(t *testing.T, st storage.Store, ids ...int64) []string {
	t.Helper()
	var out []string
	err := st.View(context.Background(), func(tx storage.Tx) error {
		for _, id := range ids {
			u, err := tx.User(id)
			if err != nil {
				return err
			}
			out = append(out, u.APIKey)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeferredCheckOfSealedKey: a request whose credentials were accepted
// before is checked against the sealed key stored now (its sealed form
// kept from the first check), so a key regenerated meanwhile fails the
// request and the new one passes.
func TestDeferredCheckOfSealedKey(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx := context.Background()
		svc := chat.New(newStore(t), chat.Config{PasswordCost: bcrypt.MinCost, APIKeySecret: []byte("secret A")})
		t.Cleanup(func() { svc.Close() })
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "o@example.com", OwnerName: "Owner"})
		if err != nil {
			t.Fatal(err)
		}
		owner := chat.AsUser(org.UserID)
		bot, err := svc.CreateBot(ctx, owner, chat.NewBot{ShortName: "helper", FullName: "Helper", BotType: chat.BotGeneric})
		if err != nil {
			t.Fatal(err)
		}
		const email = "helper-bot@chat.example.com"
		status := func(key string) error {
			actor, err := svc.AuthenticateRequest(ctx, "chat.example.com", email, key)
			if err != nil {
				return err
			}
			_, err = svc.Users(ctx, actor, chat.UserQuery{})
			return err
		}
		for i := range 2 { // the second is deferred
			wantNoErr(t, fmt.Sprintf("request %d with the key", i+1), status(bot.APIKey))
		}
		deferred, err := svc.AuthenticateRequest(ctx, "chat.example.com", email, bot.APIKey)
		wantNoErr(t, "AuthenticateRequest", err)
		fresh, err := svc.RegenerateBotAPIKey(ctx, owner, bot.UserID)
		wantNoErr(t, "RegenerateBotAPIKey", err)
		wantErr(t, "the deferred check of the old key", svc.VerifyRequest(ctx, deferred), chat.ErrInvalidAPIKey)
		wantErr(t, "a request with the old key", status(bot.APIKey), chat.ErrInvalidAPIKey)
		for i := range 2 {
			wantNoErr(t, fmt.Sprintf("request %d with the new key", i+1), status(fresh))
		}
	})
}
