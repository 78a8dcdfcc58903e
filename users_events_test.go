package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// asJSON is v's wire form decoded into generic values.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A new account is announced to every active user with a realm_user add
// event; those who may not see its real address get the person without it,
// each group seeing exactly what GET /users/{id} shows them.
func TestUserAddedEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc, _ := newService(t, newStore, chat.Config{Events: rec})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		if err != nil {
			t.Fatal(err)
		}
		member, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "m@example.com", FullName: "Max Member"})
		if err != nil {
			t.Fatal(err)
		}
		gone, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "g@example.com", FullName: "Gone User"})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.DeactivateUser(ctx, chat.AsUser(org.UserID), gone.UserID); err != nil {
			t.Fatal(err)
		}
		rec.take()

		hidden, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "h@example.com", FullName: "Hidden Person",
			EmailVisibility: chat.EmailVisibleAdmins})
		if err != nil {
			t.Fatal(err)
		}
		q := chat.UserQuery{IncludeCustomProfileFields: true}
		seenBy := func(viewer int64) any {
			u, err := svc.User(ctx, chat.AsUser(viewer), hidden.UserID, q)
			if err != nil {
				t.Fatal(err)
			}
			return asJSON(t, u)
		}
		want := []any{
			map[string]any{"realm_id": float64(org.RealmID), "user_ids": []any{float64(org.UserID), float64(hidden.UserID)},
				"payload": map[string]any{"type": "realm_user", "op": "add", "person": seenBy(org.UserID)}},
			map[string]any{"realm_id": float64(org.RealmID), "user_ids": []any{float64(member.UserID)},
				"payload": map[string]any{"type": "realm_user", "op": "add", "person": seenBy(member.UserID)}},
		}
		if want[0].(map[string]any)["payload"].(map[string]any)["person"].(map[string]any)["delivery_email"] != "h@example.com" ||
			want[1].(map[string]any)["payload"].(map[string]any)["person"].(map[string]any)["delivery_email"] != nil {
			t.Fatalf("oracle views do not differ by visibility: %v", want)
		}
		if diff := cmp.Diff(want, eventsJSON(t, rec.take())); diff != "" {
			t.Errorf("provisioning events (-want +got):\n%s", diff)
		}

		// CreateUser announces the same way; a refused one announces nothing.
		if _, err := svc.CreateUser(ctx, chat.AsUser(member.UserID), "x@example.com", "password1", "X"); err == nil {
			t.Fatal("a member created a user")
		}
		if got := rec.take(); len(got) != 0 {
			t.Errorf("refused creation published %v", got)
		}
		id, err := svc.CreateUser(ctx, chat.AsUser(org.UserID), "new@example.com", "password1", "New Person")
		if err != nil {
			t.Fatal(err)
		}
		u, err := svc.User(ctx, chat.AsUser(member.UserID), id, q)
		if err != nil {
			t.Fatal(err)
		}
		want = []any{map[string]any{"realm_id": float64(org.RealmID),
			"user_ids": []any{float64(org.UserID), float64(member.UserID), float64(hidden.UserID), float64(id)},
			"payload":  map[string]any{"type": "realm_user", "op": "add", "person": asJSON(t, u)}}}
		if diff := cmp.Diff(want, eventsJSON(t, rec.take())); diff != "" {
			t.Errorf("creation events (-want +got):\n%s", diff)
		}
	})
}

// eventsJSON is the events' realm, recipients and payload as JSON values.
func eventsJSON(t *testing.T, events []chat.Event) []any {
	t.Helper()
	out := []any{}
	for _, e := range events {
		if e.AllUsers {
			t.Errorf("event to all users: %v", e.Payload)
		}
		out = append(out, asJSON(t, map[string]any{"realm_id": e.RealmID, "user_ids": e.UserIDs, "payload": e.Payload}))
	}
	return out
}
