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
		rec.take() // the accounts' realm_user add events
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
