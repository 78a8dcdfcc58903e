package chat_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestConcurrentPollChecks: long-polls whose credential checks share read
// transactions (events_checks.go) each get their own answer: events for the
// active, the deactivation error for a deactivated user, the API key error
// for a bot whose key was regenerated after its request was admitted, and
// a queue error for a queue that is not the user's, events for users of
// another organization than the round's first, and the login error for a
// user that does not exist.
func TestConcurrentPollChecks(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		queues := messageQueues(t, f, f.admin, f.member, f.guest, f.visEveryone, f.bot, f.member2)
		otherActor := admitted(t, f, host2, f.member2)
		// The host names the organization by its host name alone.
		byPort := admitted(t, f, "LOCALHOST:8080", f.member)
		botActor := revokeAndDeactivate(t, f)

		type poll struct {
			name  string
			actor chat.Actor
			queue string
			want  error // nil: events
		}
		polls := []poll{
			{"admin", chat.AsUser(f.admin.ID), queues[f.admin.ID], nil},
			{"member", chat.AsUser(f.member.ID), queues[f.member.ID], nil},
			{"guest", chat.AsUser(f.guest.ID), queues[f.guest.ID], nil},
			{"deactivated", chat.AsUser(f.visEveryone.ID), queues[f.visEveryone.ID], chat.ErrAccountDeactivated},
			{"revoked key", botActor, queues[f.bot.ID], chat.ErrInvalidAPIKey},
			{"another's queue", chat.AsUser(f.member.ID), queues[f.admin.ID], nil},
			{"other organization", chat.AsUser(f.member2.ID), queues[f.member2.ID], nil},
			{"other organization, by key", otherActor, queues[f.member2.ID], nil},
			{"by another port", byPort, queues[f.member.ID], nil},
			{"nobody", chat.AsUser(1 << 40), queues[f.admin.ID], chat.ErrNotLoggedIn},
		}
		var wg sync.WaitGroup
		errs := make([]error, 20*len(polls))
		for i := range errs {
			p := polls[i%len(polls)]
			wg.Go(func() {
				_, errs[i] = f.svc.GetEvents(ctx, p.actor, p.queue, -1, true)
			})
		}
		wg.Wait()
		for i, err := range errs {
			p := polls[i%len(polls)]
			switch {
			case p.name == "another's queue":
				wantCodeMsg(t, p.name, err, chat.CodeBadEventQueueID, "Bad event queue ID: "+p.queue)
			case p.want == nil:
				wantNoErr(t, p.name, err)
			case !errors.Is(err, p.want):
				t.Errorf("%s: GetEvents error %v, want %v", p.name, err, p.want)
			}
		}
	})
}

// TestPatientPollChecks: long-polls that wait for their next event have
// their credentials checked in rounds that gather for a moment
// (events_checks.go), and a poll that answers at once starts its round
// without waiting for them. The refused polls get their errors while the
// others wait, and those get the message sent afterwards.
func TestPatientPollChecks(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		queues := messageQueues(t, f, f.admin, f.member, f.guest, f.visEveryone, f.bot)
		botActor := revokeAndDeactivate(t, f)

		type result struct {
			name   string
			events chat.QueuedEvents
			err    error
		}
		results := make(chan result)
		poll := func(name string, actor chat.Actor, queue string, dontBlock bool) {
			go func() {
				events, err := f.svc.GetEvents(ctx, actor, queue, -1, dontBlock)
				results <- result{name, events, err}
			}()
		}
		wantErr := map[string]error{"deactivated": chat.ErrAccountDeactivated, "revoked key": chat.ErrInvalidAPIKey,
			"nobody": chat.ErrNotLoggedIn, "guest, at once": nil}
		collect := func(n int) {
			t.Helper()
			for range n {
				r := <-results
				want, ok := wantErr[r.name]
				switch {
				case !ok:
					t.Fatalf("%s answered before any event: %v, %v", r.name, r.events, r.err)
				case want == nil && (r.err != nil || len(r.events) != 0):
					t.Errorf("%s: %v, %v; want no event", r.name, r.events, r.err)
				case want != nil && !errors.Is(r.err, want):
					t.Errorf("%s: error %v, want %v", r.name, r.err, want)
				}
			}
		}
		// Patient polls alone (the bot's queue is there and empty): their
		// round starts when they have gathered.
		for range 5 {
			poll("revoked key", botActor, queues[f.bot.ID], false)
		}
		collect(5)
		// Each queue holds one long-poll, so one each for the two who
		// wait, among polls that answer at once: with events or none, or
		// with an error (a deactivated user's queues are gone, and so is
		// a queue for nobody).
		poll("admin", chat.AsUser(f.admin.ID), queues[f.admin.ID], false)
		poll("member", chat.AsUser(f.member.ID), queues[f.member.ID], false)
		for range 5 {
			poll("guest, at once", chat.AsUser(f.guest.ID), queues[f.guest.ID], true)
			poll("deactivated", chat.AsUser(f.visEveryone.ID), queues[f.visEveryone.ID], false)
			poll("nobody", chat.AsUser(1<<40), queues[f.admin.ID], false)
		}
		collect(15)
		_, err := f.svc.SendMessage(ctx, chat.AsUser(f.owner.ID), chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.admin.ID, f.member.ID}}, Content: "hello"})
		wantNoErr(t, "SendMessage", err)
		for range 2 {
			r := <-results
			if r.err != nil || len(r.events) != 1 || r.events[0].Type != "message" {
				t.Errorf("%s: %v, %v; want the message", r.name, r.events, r.err)
			}
		}
	})
}

// messageQueues registers a queue for messages for each account, and
// returns their IDs by user ID.
func messageQueues(t *testing.T, f *fixture, accounts ...*account) map[int64]string {
	t.Helper()
	queues := map[int64]string{}
	for _, a := range accounts {
		st, err := f.svc.Register(t.Context(), chat.AsUser(a.ID), chat.RegisterRequest{EventTypes: []string{"message"}})
		wantNoErr(t, "Register", err)
		queues[a.ID] = st["queue_id"].(string)
	}
	return queues
}

// admitted is the Actor of a's credentials at host once they were
// accepted before: admitted unchecked, the check deferred.
func admitted(t *testing.T, f *fixture, host string, a *account) chat.Actor {
	t.Helper()
	_, err := f.svc.AuthenticateRequest(t.Context(), host, a.Email, a.APIKey)
	wantNoErr(t, "AuthenticateRequest", err)
	actor, err := f.svc.AuthenticateRequest(t.Context(), host, a.Email, a.APIKey)
	wantNoErr(t, "AuthenticateRequest again", err)
	return actor
}

// revokeAndDeactivate admits the bot's credentials, then regenerates its
// key and deactivates visEveryone, and returns the bot's admitted Actor.
func revokeAndDeactivate(t *testing.T, f *fixture) chat.Actor {
	t.Helper()
	botActor := admitted(t, f, host1, f.bot)
	_, err := f.svc.RegenerateBotAPIKey(t.Context(), chat.AsUser(f.member.ID), f.bot.ID)
	wantNoErr(t, "RegenerateBotAPIKey", err)
	wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(t.Context(), chat.AsUser(f.owner.ID), f.visEveryone.ID))
	return botActor
}
