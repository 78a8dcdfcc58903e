package httpserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// TestAcceptedCredentialsChangedElsewhere changes a member's credentials
// straight in the store, as another process or a tool sharing the
// database would, after the server accepted them. The server's check of
// credentials it accepted before is deferred into the request's
// operation, so the next request must still fail with the error a fresh
// check gives, whatever the route, and change nothing; an error of the
// request's own (bad parameters, an unknown queue) must not hide it.
func TestAcceptedCredentialsChangedElsewhere(t *testing.T) {
	changes := []struct {
		name   string
		change func(tx storage.Tx, u *storage.UserRecord, r *chat.Realm) error
		code   chat.Code
		msg    string
	}{
		{"key replaced", func(tx storage.Tx, u *storage.UserRecord, _ *chat.Realm) error {
			u.APIKey = "ReplacedKeyReplacedKeyReplaced00"
			return tx.UpdateUser(*u)
		}, chat.CodeUnauthorized, "Invalid API key"},
		{"email changed", func(tx storage.Tx, u *storage.UserRecord, _ *chat.Realm) error {
			u.Email = "renamed@example.com"
			return tx.UpdateUser(*u)
		}, chat.CodeUnauthorized, "Invalid API key"},
		{"account deactivated", func(tx storage.Tx, u *storage.UserRecord, _ *chat.Realm) error {
			u.IsActive = false
			return tx.UpdateUser(*u)
		}, chat.CodeUnauthorized, "Account is deactivated"},
		{"organization deactivated", func(tx storage.Tx, _ *storage.UserRecord, r *chat.Realm) error {
			r.Deactivated = true
			return tx.UpdateRealm(*r)
		}, chat.CodeUnauthorized, "This organization has been deactivated"},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			store := memory.New()
			e := newEnvWithStore(t, store)
			// Accepted once, then served with the check deferred.
			if res := e.call(http.MethodGet, "/users/me", &e.member, nil); res.status != http.StatusOK || res.body["user_id"] != float64(e.member.id) {
				t.Fatalf("GET /users/me: %s", res.raw)
			}
			e.expect(e.call(http.MethodPost, "/users/me/status", &e.member, form("status_text", "before")), http.StatusOK, success())

			err := store.Update(context.Background(), func(tx storage.Tx) error {
				u, err := tx.User(e.member.id)
				if err != nil {
					return err
				}
				r, err := tx.Realm(u.RealmID)
				if err != nil {
					return err
				}
				return c.change(tx, &u, &r)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range []struct {
				name, method, path string
				form               []string
			}{
				{"write", http.MethodPost, "/users/me/status", []string{"status_text", "after"}},
				{"read", http.MethodGet, "/users/me", nil},
				{"bad parameters", http.MethodPost, "/users/me/status", nil},
				{"unknown queue", http.MethodGet, "/events", []string{"queue_id", "no-such-queue"}},
				{"missing parameter", http.MethodPost, "/messages", []string{"type", "channel"}},
			} {
				res := e.call(req.method, req.path, &e.member, form(req.form...))
				if res.status != http.StatusUnauthorized || res.body["code"] != string(c.code) || res.body["msg"] != c.msg {
					t.Errorf("%s (%s %s): %d %s, want 401 %s %q", req.name, req.method, req.path, res.status, res.raw, c.code, c.msg)
				}
			}
			err = store.View(context.Background(), func(tx storage.Tx) error {
				u, err := tx.User(e.member.id)
				if err == nil && u.Status.Text != "before" {
					t.Errorf("status text %q after refused requests, want %q", u.Status.Text, "before")
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			// Others are served as before, unless the organization is gone.
			if c.name == "organization deactivated" {
				return
			}
			e.expect(e.call(http.MethodPost, "/users/me/status", &e.admin, form("status_text", "here")), http.StatusOK, success())
		})
	}
}

// TestAcceptedCredentialsReplacedKeyWorks checks that the key that replaced
// an accepted one works at once, and the old one never again.
func TestAcceptedCredentialsReplacedKeyWorks(t *testing.T) {
	store := memory.New()
	e := newEnvWithStore(t, store)
	old := e.member
	for range 2 {
		e.expect(e.call(http.MethodPost, "/users/me/status", &old, form("status_text", "one")), http.StatusOK, success())
	}
	fresh := old
	fresh.key = "FreshKeyFreshKeyFreshKeyFresh000"
	err := store.Update(context.Background(), func(tx storage.Tx) error {
		u, err := tx.User(old.id)
		if err != nil {
			return err
		}
		u.APIKey = fresh.key
		return tx.UpdateUser(u)
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e.expect(e.call(http.MethodPost, "/users/me/status", &fresh, form("status_text", "two")), http.StatusOK, success())
		e.expectError(e.call(http.MethodPost, "/users/me/status", &old, form("status_text", "three")),
			http.StatusUnauthorized, chat.CodeUnauthorized, "Invalid API key")
	}
}
