package chat_test

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestAuthenticateRequestDefers checks the Go side of deferred credential
// checks: credentials accepted once are checked by the next request's
// first transaction or by VerifyRequest, a change made behind the
// service's back is seen there, and so is a change of the organizations
// for credentials that reached theirs through a host fallback.
func TestAuthenticateRequestDefers(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx := context.Background()
		st := newStore(t)
		svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
		t.Cleanup(func() { svc.Close() })
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "o@example.com", OwnerName: "Owner"})
		if err != nil {
			t.Fatal(err)
		}
		replaceKey := func(key string) {
			t.Helper()
			err := st.Update(ctx, func(tx storage.Tx) error {
				u, err := tx.User(org.UserID)
				if err != nil {
					return err
				}
				u.APIKey = key
				return tx.UpdateUser(u)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		authenticate := func(host, key string) (chat.Actor, error) {
			t.Helper()
			actor, err := svc.AuthenticateRequest(ctx, host, " "+org.Email+" ", key)
			if err == nil && actor.UserID() != org.UserID {
				t.Fatalf("AuthenticateRequest = user %d, want %d", actor.UserID(), org.UserID)
			}
			return actor, err
		}
		status := func(actor chat.Actor) error {
			text := "here"
			return svc.UpdateStatus(ctx, actor, chat.StatusUpdate{StatusText: &text})
		}

		// Exact host: the second request is deferred.
		if _, err := authenticate("Chat.Example.com", org.APIKey); err != nil {
			t.Fatal(err)
		}
		deferred, err := authenticate("Chat.Example.com", org.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := authenticate("Chat.Example.com", org.APIKey)
		replaceKey("ReplacedKeyReplacedKeyReplaced00")
		if err := svc.VerifyRequest(ctx, deferred); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("VerifyRequest after the key changed = %v, want ErrInvalidAPIKey", err)
		}
		if err := status(other); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("UpdateStatus after the key changed = %v, want ErrInvalidAPIKey", err)
		}
		if _, err := authenticate("Chat.Example.com", org.APIKey); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("AuthenticateRequest with the replaced key = %v, want ErrInvalidAPIKey", err)
		}
		// A request whose check passed goes on without another one.
		replaceKey(org.APIKey)
		authenticate("chat.example.com", org.APIKey)
		ok, _ := authenticate("chat.example.com", org.APIKey)
		if err := status(ok); err != nil {
			t.Fatalf("UpdateStatus with the accepted key: %v", err)
		}
		if err := svc.VerifyRequest(ctx, ok); err != nil {
			t.Errorf("VerifyRequest after the operation checked the key: %v", err)
		}

		// A host that only the single-organization fallback resolves is
		// deferred too, and resolved again by the check: a changed key is
		// seen there, and so is a second organization, after which the
		// host names none.
		for range 2 {
			if _, err := authenticate("127.0.0.1:9991", org.APIKey); err != nil {
				t.Fatal(err)
			}
		}
		byAddress, _ := authenticate("127.0.0.1:9991", org.APIKey)
		if err := status(byAddress); err != nil {
			t.Fatalf("UpdateStatus through the fallback: %v", err)
		}
		byAddress, _ = authenticate("127.0.0.1:9991", org.APIKey)
		replaceKey("ReplacedKeyReplacedKeyReplaced01")
		if err := svc.VerifyRequest(ctx, byAddress); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("VerifyRequest through the fallback after the key changed = %v, want ErrInvalidAPIKey", err)
		}
		if _, err := authenticate("127.0.0.1:9991", org.APIKey); !errors.Is(err, chat.ErrInvalidAPIKey) {
			t.Errorf("AuthenticateRequest through the fallback after the key changed = %v, want ErrInvalidAPIKey", err)
		}
		replaceKey(org.APIKey)
		authenticate("127.0.0.1:9991", org.APIKey)
		byAddress, _ = authenticate("127.0.0.1:9991", org.APIKey)
		if _, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Other", Host: "other.example.com", OwnerEmail: "p@example.com", OwnerName: "Other Owner"}); err != nil {
			t.Fatal(err)
		}
		_, want := svc.Authenticate(ctx, "127.0.0.1:9991", org.Email, org.APIKey)
		if !errors.Is(want, chat.ErrWrongSubdomain) {
			t.Fatalf("Authenticate through no organization = %v, want ErrWrongSubdomain", want)
		}
		if err := status(byAddress); !errors.Is(err, chat.ErrWrongSubdomain) {
			t.Errorf("UpdateStatus through a fallback gone = %v, want ErrWrongSubdomain", err)
		}
	})
}
