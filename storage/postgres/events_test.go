package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// recorder is a sink that records the batches it receives.
type recorder struct {
	mu      sync.Mutex
	batches [][]chat.Event
	got     chan struct{}
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 100)} }

func (r *recorder) Publish(_ context.Context, events []chat.Event) {
	r.mu.Lock()
	r.batches = append(r.batches, events)
	r.mu.Unlock()
	r.got <- struct{}{}
}

// wait waits for n batches in all and returns them.
func (r *recorder) wait(t *testing.T, n int) [][]chat.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		if len(r.batches) >= n {
			out := append([][]chat.Event(nil), r.batches...)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("got %d event batches, want %d", len(r.batches), n)
		}
	}
}

// quiet checks that no more than n batches arrive in a short while.
func (r *recorder) quiet(t *testing.T, n int) {
	t.Helper()
	time.Sleep(200 * time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.batches) != n {
		t.Errorf("got %d event batches, want exactly %d", len(r.batches), n)
	}
}

func newEvents(t *testing.T, st *postgres.Store, sink chat.EventSink, opts postgres.EventsOptions) *postgres.Events {
	t.Helper()
	ev, err := postgres.NewEvents(context.Background(), st, sink, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	return ev
}

// twoProcesses opens two stores on one new schema, each with its Events
// delivering to a recorder, as two processes sharing a database.
func twoProcesses(t *testing.T) (stA, stB *postgres.Store, evA, evB *postgres.Events, recA, recB *recorder) {
	t.Helper()
	dsn := pgtest.Schema(t)
	stA, stB = open(t, dsn), open(t, dsn)
	t.Cleanup(func() { stA.Close(); stB.Close() })
	recA, recB = newRecorder(), newRecorder()
	evA = newEvents(t, stA, recA, postgres.EventsOptions{})
	evB = newEvents(t, stB, recB, postgres.EventsOptions{})
	return stA, stB, evA, evB, recA, recB
}

// Two processes, each with its own store and Events on one schema: a batch
// published by either reaches both, once, in publication order, whether
// it travels inline or through the outbox.
func TestEventsAcrossProcesses(t *testing.T) {
	_, _, evA, evB, recA, recB := twoProcesses(t)

	small := []chat.Event{{RealmID: 1, UserIDs: []int64{7, 8}, Payload: map[string]any{"type": "typing", "op": "start"}}}
	big := []chat.Event{
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{"type": "x", "text": strings.Repeat("é<>&", 3000)}},
		{RealmID: 2, UserIDs: []int64{9}, Payload: map[string]any{"type": "y", "n": int64(1) << 60}},
		{RealmID: 2, AllUsers: true, Payload: map[string]any{"type": "realm"}},
	}
	evA.Publish(context.Background(), small)
	evB.Publish(context.Background(), big)
	evA.Publish(context.Background(), small)

	want := []string{batchJSON(t, small), batchJSON(t, big), batchJSON(t, small)}
	for name, rec := range map[string]*recorder{"A": recA, "B": recB} {
		got := rec.wait(t, 3)
		for i := range want {
			if g := batchJSON(t, got[i]); g != want[i] {
				t.Errorf("process %s, batch %d:\n got %.200s\nwant %.200s", name, i, g, want[i])
			}
		}
		rec.quiet(t, 3)
	}
}

// Batches published in a transaction (chat.TxEventSink) go out when it
// commits, in commit order, and never when it rolls back: a batch sent
// first by a transaction that commits later is heard later, by the
// publishing process too.
func TestEventsInTransaction(t *testing.T) {
	stA, stB, evA, evB, recA, recB := twoProcesses(t)
	ctx := context.Background()
	batch := func(name string, size int) []chat.Event {
		return []chat.Event{{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{"type": name, "text": strings.Repeat("x", size)}}}
	}
	// publish runs a transaction on st that publishes events with ev,
	// waits for release (if any), and then fails or commits.
	publish := func(st *postgres.Store, ev *postgres.Events, events []chat.Event, sent, release chan struct{}, fail bool) {
		var ended func(bool)
		err := st.Update(ctx, func(tx storage.Tx) error {
			end, ok, err := ev.PublishInTx(ctx, tx, events)
			if err != nil || !ok {
				return fmt.Errorf("PublishInTx: ok %v, %v", ok, err)
			}
			ended = end
			if sent != nil {
				close(sent)
				<-release
			}
			if fail {
				return errors.New("rolled back")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Errorf("Update: %v", err)
		}
		ended(err == nil)
	}

	rolledBack, first, second, outboxed := batch("rolled-back", 10), batch("first", 10), batch("second", 10), batch("outboxed", 9000)
	publish(stA, evA, rolledBack, nil, nil, true)
	// B sends "second" in a transaction that stays open while A's
	// transaction with "first" commits.
	sent, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		publish(stB, evB, second, sent, release, false)
	}()
	<-sent
	publish(stA, evA, first, nil, nil, false)
	recA.wait(t, 1)
	close(release)
	<-done
	publish(stB, evB, outboxed, nil, nil, false)

	want := [][]chat.Event{first, second, outboxed}
	for name, rec := range map[string]*recorder{"A": recA, "B": recB} {
		got := rec.wait(t, len(want))
		for i := range want {
			if g := batchJSON(t, got[i]); g != batchJSON(t, want[i]) {
				t.Errorf("process %s, batch %d: got %q, want %q", name, i, got[i][0].Payload["type"], want[i][0].Payload["type"])
			}
		}
		rec.quiet(t, len(want))
	}
}

// batchJSON writes the events as the hub reads them: their recipients
// and payloads.
func batchJSON(t *testing.T, events []chat.Event) string {
	t.Helper()
	type plain struct {
		RealmID  int64
		UserIDs  []int64
		AllUsers bool
		Payload  map[string]any
	}
	out := make([]plain, len(events))
	for i, ev := range events {
		if ev.PerQueue != nil {
			t.Fatalf("batchJSON of an event computed per queue: %v", ev)
		}
		out[i] = plain{ev.RealmID, ev.UserIDs, ev.AllUsers, ev.Payload}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tee publishes to each of its sinks in turn.
type tee []chat.EventSink

func (t tee) Publish(ctx context.Context, events []chat.Event) {
	for _, s := range t {
		s.Publish(ctx, events)
	}
}

// discard is a sink that drops everything.
type discard struct{}

func (discard) Publish(context.Context, []chat.Event) {}

// A hub fed through PostgreSQL by another process gives clients the same
// bytes as the hub of the process that caused the events, whatever the
// payloads hold, for events computed per queue too (messages, edits,
// deletions and channel typing), and whatever options the queues have.
// queuePair is one queue made alike on two hubs.
type queuePair struct {
	user          int64
	local, remote string
}

// queuesOnBoth makes queues alike on both hubs, of each user, in every
// form a queue can ask for.
func queuesOnBoth(t *testing.T, local, remote *chat.Hub, realmID int64, users ...int64) []queuePair {
	t.Helper()
	var queues []queuePair
	for _, user := range users {
		for variant := range 16 {
			o := chat.QueueOptions{UserID: user, RealmID: realmID, StreamTypingNotifications: true,
				MessageFormat:  chat.MessageFormat{ApplyMarkdown: variant&1 != 0, ClientGravatar: variant&2 != 0},
				EmptyTopicName: variant&4 != 0, BulkMessageDeletion: variant&8 != 0}
			if variant == 5 {
				o.Narrow = []chat.NarrowTerm{{Operator: "is", Operand: "dm"}}
			}
			p := queuePair{user: user}
			var err error
			if p.local, err = local.NewQueue(o); err != nil {
				t.Fatal(err)
			}
			if p.remote, err = remote.NewQueue(o); err != nil {
				t.Fatal(err)
			}
			queues = append(queues, p)
		}
	}
	return queues
}

func TestEventsSameBytesAsLocal(t *testing.T) {
	dsn := pgtest.Schema(t)
	stA, stB := open(t, dsn), open(t, dsn)
	defer stA.Close()
	defer stB.Close()
	// B serves the requests and gives its events to local directly, as a
	// single process would, and to PostgreSQL; A hears them there and
	// delivers them to remote.
	local := chat.NewHub(chat.HubOptions{})
	defer local.Close()
	remote := chat.NewHub(chat.HubOptions{})
	defer remote.Close()
	newEvents(t, stA, remote, postgres.EventsOptions{})
	evB := newEvents(t, stB, discard{}, postgres.EventsOptions{})
	svc := chat.New(stB, chat.Config{Hub: local, Events: tee{local, evB}, PasswordCost: bcrypt.MinCost})
	defer svc.Close()
	ctx := t.Context()

	// The accounts are made before the queues exist, by a service whose
	// events (realm_user add) reach neither hub.
	setup := chat.New(stB, chat.Config{PasswordCost: bcrypt.MinCost})
	org, err := setup.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := setup.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "hal@example.com", FullName: "Hal Hidden",
		EmailVisibility: storage.EmailVisibleNobody})
	if err != nil {
		t.Fatal(err)
	}
	owner, hal := org.UserID, res.UserID

	queues := queuesOnBoth(t, local, remote, org.RealmID, owner, hal)

	if _, err := svc.Subscribe(ctx, chat.AsUser(owner), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "crossing"}},
		Principals: &chat.Principals{IDs: []int64{owner, hal}}}); err != nil {
		t.Fatal(err)
	}
	subs, err := svc.Subscriptions(ctx, chat.AsUser(owner), false)
	if err != nil {
		t.Fatal(err)
	}
	channel, empty, big := subs[0].StreamID, "", strings.Repeat("<é&> ", 2000)
	first, err := svc.SendMessage(ctx, chat.AsUser(owner), chat.SendMessageRequest{Type: "channel", To: &chat.MessageTo{IDs: []int64{channel}},
		Topic: &empty, Content: "**Hi** @**Hal Hidden** <&>", Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	// This one travels through the outbox.
	if _, err := svc.SendMessage(ctx, chat.AsUser(hal), chat.SendMessageRequest{Type: "channel", To: &chat.MessageTo{IDs: []int64{channel}},
		Topic: &empty, Content: big, Client: "test"}); err != nil {
		t.Fatal(err)
	}
	dm, err := svc.SendMessage(ctx, chat.AsUser(hal), chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: []int64{owner}},
		Content: "just _us_", Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	edited := "edited **now**"
	if err := svc.EditMessage(ctx, chat.AsUser(owner), first, &edited); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetTyping(ctx, chat.AsUser(hal), chat.TypingRequest{Type: "channel", Op: "start", StreamID: &channel, Topic: &empty}); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteMessage(ctx, chat.AsUser(hal), dm); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteTopic(ctx, chat.AsUser(owner), channel, empty); err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	for _, q := range queues {
		want, err := local.Events(ctx, q.user, q.local, -1, true)
		if err != nil {
			t.Fatal(err)
		}
		// The remote queue gets its events in one or more wakes.
		var got chat.QueuedEvents
		for len(got) < len(want) {
			waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			more, err := remote.Events(waitCtx, q.user, q.remote, int64(len(got))-1, false)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if len(more) == 0 || more[0].Type == "heartbeat" {
				t.Fatalf("queue of user %d: %d events through PostgreSQL, want %d", q.user, len(got), len(want))
			}
			got = append(got, more...)
		}
		if g, w := string(got.AppendJSON(nil)), string(want.AppendJSON(nil)); g != w {
			t.Errorf("events through PostgreSQL:\n got %.3000s\nwant %.3000s", g, w)
		}
		for _, e := range want {
			seen[e.Type] = true
		}
	}
	for _, typ := range []string{"message", "update_message", "delete_message", "typing", "subscription"} {
		if !seen[typ] {
			t.Errorf("no %s event was compared", typ)
		}
	}
	var outbox int
	if err := stB.Pool().QueryRow(ctx, `SELECT count(*) FROM event_outbox`).Scan(&outbox); err != nil {
		t.Fatal(err)
	}
	if outbox == 0 {
		t.Error("no batch went through the outbox")
	}
}

// When the listening connection is lost, Events listens again and reports
// the loss; batches published afterwards arrive.
func TestEventsReconnect(t *testing.T) {
	dsn := pgtest.Schema(t)
	st := open(t, dsn)
	defer st.Close()
	rec := newRecorder()
	lost := make(chan struct{}, 1)
	ev := newEvents(t, st, rec, postgres.EventsOptions{
		Lost:           func() { lost <- struct{}{} },
		ReconnectDelay: 100 * time.Millisecond,
	})
	var schema string
	if err := st.Pool().QueryRow(context.Background(), `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	var killed int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid))
		FROM pg_stat_activity WHERE query = $1`, fmt.Sprintf(`LISTEN "chat_events.%s"`, schema)).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening connections, want 1", killed)
	}
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("Lost was not called after the connection was terminated")
	}
	ev.Publish(context.Background(), []chat.Event{{RealmID: 1, UserIDs: []int64{1}, Payload: map[string]any{"type": "x"}}})
	rec.wait(t, 1)
	rec.quiet(t, 1)
}
