package chat_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// recorder is an EventSink that keeps what it is given.
type recorder struct {
	mu     sync.Mutex
	events []chat.Event
}

func (r *recorder) Publish(_ context.Context, events []chat.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, events...)
}

func (r *recorder) take() []chat.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func TestDeactivationEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc, _ := newService(t, newStore, chat.Config{Events: rec})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{org.UserID}
		for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
			res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: email, FullName: "Some One"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.UserID)
		}
		rec.take() // the realm_user add events of the new accounts
		if err := svc.DeactivateUser(ctx, chat.AsUser(org.UserID), ids[3]); err != nil {
			t.Fatal(err)
		}
		want := []chat.Event{{RealmID: org.RealmID, AllUsers: true, Payload: map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": ids[3], "is_active": false},
		}}}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("deactivation events (-want +got):\n%s", diff)
		}

		// A failed operation publishes nothing.
		if err := svc.DeactivateUser(ctx, chat.AsUser(org.UserID), ids[3]); err == nil {
			t.Fatal("deactivating twice succeeded")
		}
		if got := rec.take(); len(got) != 0 {
			t.Errorf("failed deactivation published %v", got)
		}

		if err := svc.ReactivateUser(ctx, chat.AsUser(org.UserID), ids[3]); err != nil {
			t.Fatal(err)
		}
		want[0].Payload["person"] = map[string]any{"user_id": ids[3], "is_active": true}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("reactivation events (-want +got):\n%s", diff)
		}
	})
}

func TestNoEventSinkIsFine(t *testing.T) {
	svc := chat.New(memory.New(), chat.Config{})
	ctx := context.Background()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "a@example.com", FullName: "Some One"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.DeactivateUser(ctx, chat.AsUser(org.UserID), res.UserID); err != nil {
		t.Fatal(err)
	}
}

// TestUserAddedEvents checks the realm_user add events of a new account,
// on every backend: every active user gets the person, with its real
// address only where its email visibility shows it to them.
func TestUserAddedEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc, _ := newService(t, newStore, chat.Config{Events: rec})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		wantNoErr(t, "CreateOrg", err)
		_, err = svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "m@example.com", FullName: "Max Member"})
		wantNoErr(t, "ProvisionUser", err)
		rec.take()
		id, err := svc.CreateUser(ctx, chat.AsUser(org.UserID), "hidden@example.com", "a-long-password", "Hidden One")
		wantNoErr(t, "CreateUser", err)
		events := rec.take()
		if len(events) != 1 {
			t.Fatalf("%d events, want 1 (everyone sees the address by default): %v", len(events), events)
		}
		person, ok := events[0].Payload["person"].(chat.User)
		if events[0].Payload["type"] != "realm_user" || events[0].Payload["op"] != "add" || !ok || person.UserID != id {
			t.Fatalf("event %v", events[0])
		}
		// Everyone sees the address: one event for the whole organization.
		if !events[0].AllUsers || events[0].UserIDs != nil || person.DeliveryEmail == nil {
			t.Errorf("event to %v (all users %v), delivery_email %v: want every user and the address",
				events[0].UserIDs, events[0].AllUsers, person.DeliveryEmail)
		}

		_, err = svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "admins-only@example.com", FullName: "Ada Admins",
			EmailVisibility: chat.EmailVisibleAdmins})
		wantNoErr(t, "ProvisionUser(admins only)", err)
		events = rec.take()
		if len(events) != 2 {
			t.Fatalf("%d events, want 2: %v", len(events), events)
		}
		seen := map[bool][]int64{}
		for _, e := range events {
			p := e.Payload["person"].(chat.User)
			seen[p.DeliveryEmail != nil] = append(seen[p.DeliveryEmail != nil], e.UserIDs...)
		}
		if len(seen[true]) != 2 || seen[true][0] != org.UserID || len(seen[false]) != 2 {
			t.Errorf("who sees the address: %v", seen)
		}
	})
}
