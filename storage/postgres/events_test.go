package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/pgtest"
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

// Two processes, each with its own store and Events on one schema: a batch
// published by either reaches both, once, in publication order, whether
// it travels inline or through the outbox.
func TestEventsAcrossProcesses(t *testing.T) {
	dsn := pgtest.Schema(t)
	stA, stB := open(t, dsn), open(t, dsn)
	defer stA.Close()
	defer stB.Close()
	recA, recB := newRecorder(), newRecorder()
	evA := newEvents(t, stA, recA, postgres.EventsOptions{})
	evB := newEvents(t, stB, recB, postgres.EventsOptions{})

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

// batchJSON writes what travels of the events; PerQueue, a function,
// cannot be written.
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
		out[i] = plain{ev.RealmID, ev.UserIDs, ev.AllUsers, ev.Payload}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Events computed per queue reach the publishing process as published, in
// order with the others, and stay there: their form is Go code.
func TestEventsPerQueueStayLocal(t *testing.T) {
	dsn := pgtest.Schema(t)
	stA, stB := open(t, dsn), open(t, dsn)
	defer stA.Close()
	defer stB.Close()
	recA, recB := newRecorder(), newRecorder()
	evA := newEvents(t, stA, recA, postgres.EventsOptions{})
	newEvents(t, stB, recB, postgres.EventsOptions{})

	perQueue := func(q chat.QueueInfo) []json.RawMessage {
		return []json.RawMessage{json.RawMessage(`{"type":"message","queue":"` + q.ID + `"}`)}
	}
	plain := chat.Event{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{"type": "typing", "op": "stop"}}
	evA.Publish(context.Background(), []chat.Event{plain,
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{"type": "message"}, PerQueue: perQueue}})
	evA.Publish(context.Background(), []chat.Event{
		{RealmID: 1, UserIDs: []int64{8}, Payload: map[string]any{"type": "message"}, PerQueue: perQueue}})
	evA.Publish(context.Background(), []chat.Event{plain})

	gotA := recA.wait(t, 3)
	recA.quiet(t, 3)
	if len(gotA[0]) != 2 || len(gotA[1]) != 1 || len(gotA[2]) != 1 {
		t.Fatalf("process A got batches of %d, %d, %d events, want 2, 1, 1", len(gotA[0]), len(gotA[1]), len(gotA[2]))
	}
	for _, ev := range []chat.Event{gotA[0][1], gotA[1][0]} {
		if ev.PerQueue == nil {
			t.Fatalf("process A got %v without its PerQueue", ev)
		}
		if got := string(ev.PerQueue(chat.QueueInfo{ID: "q1"})[0]); got != `{"type":"message","queue":"q1"}` {
			t.Errorf("PerQueue on A = %s", got)
		}
	}
	if g, w := batchJSON(t, gotA[2]), batchJSON(t, []chat.Event{plain}); g != w {
		t.Errorf("process A, last batch:\n got %s\nwant %s", g, w)
	}
	// B gets the plain events only, still in order.
	gotB := recB.wait(t, 2)
	recB.quiet(t, 2)
	for i, batch := range gotB {
		if g, w := batchJSON(t, batch), batchJSON(t, []chat.Event{plain}); g != w {
			t.Errorf("process B, batch %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// A hub fed through PostgreSQL gives clients the same bytes as a hub fed
// directly, whatever the payload holds.
func TestEventsSameBytesAsLocal(t *testing.T) {
	st := open(t, pgtest.Schema(t))
	defer st.Close()
	direct := chat.NewHub(chat.HubOptions{})
	defer direct.Close()
	remote := chat.NewHub(chat.HubOptions{})
	defer remote.Close()
	ev := newEvents(t, st, remote, postgres.EventsOptions{})

	type sub struct {
		Zeta  int      `json:"zeta"`
		Alpha string   `json:"alpha"`
		List  []string `json:"list"`
	}
	events := []chat.Event{
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{
			"type": "subscription", "op": "add", "subscriptions": []sub{{3, "<b>&", []string{"x"}}},
			"flag": true, "none": nil, "n": 12345678901234, "f": 1.5, "s": "ü\u2028",
		}},
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{
			"type": "typing", "op": "start", "message_type": "stream", "stream_id": 4,
		}},
	}
	var queues [2]string
	for i, h := range []*chat.Hub{direct, remote} {
		id, err := h.NewQueue(chat.QueueOptions{UserID: 7, RealmID: 1, StreamTypingNotifications: true})
		if err != nil {
			t.Fatal(err)
		}
		queues[i] = id
	}
	direct.Publish(context.Background(), events)
	ev.Publish(context.Background(), events)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want, err := direct.Events(ctx, 7, queues[0], -1, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Events(ctx, 7, queues[1], -1, false)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := string(got.AppendJSON(nil)), string(want.AppendJSON(nil)); g != w {
		t.Errorf("events through PostgreSQL:\n got %s\nwant %s", g, w)
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
