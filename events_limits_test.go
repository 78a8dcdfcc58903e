package chat_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

func newMemoryStore(*testing.T) storage.Store { return memory.New() }

// TestQueuesPerUserEvictLeastRecentlySeen checks the cap on a user's
// queues: a new queue past it evicts the queue whose client was seen least
// recently, and other users keep theirs.
func TestQueuesPerUserEvictLeastRecentlySeen(t *testing.T) {
	clk := newClock()
	h := chat.NewHub(chat.HubOptions{Now: clk.Now, MaxQueuesPerUser: 3})
	defer h.Close()
	ctx := t.Context()
	newQueue := func(user int64) string {
		id, err := h.NewQueue(chat.QueueOptions{UserID: user, RealmID: 1})
		wantNoErr(t, "NewQueue", err)
		clk.Advance(time.Second)
		return id
	}
	a, b, c := newQueue(1), newQueue(1), newQueue(1)
	other := newQueue(2)
	// a is polled, so b is now the one seen least recently.
	_, err := h.Events(ctx, 1, a, -1, true)
	wantNoErr(t, "Events(a)", err)
	clk.Advance(time.Second)
	d := newQueue(1)
	for _, q := range []string{a, c, d} {
		_, err := h.Events(ctx, 1, q, -1, true)
		wantNoErr(t, "Events of a kept queue", err)
	}
	_, err = h.Events(ctx, 1, b, -1, true)
	wantCodeMsg(t, "Events of the evicted queue", err, chat.CodeBadEventQueueID, "Bad event queue ID: "+b)
	_, err = h.Events(ctx, 2, other, -1, true)
	wantNoErr(t, "another user's queue", err)
	if got := h.QueueCount(); got != 4 {
		t.Errorf("QueueCount = %d, want 4", got)
	}
}

// TestQueueLifespanCappedByService checks that a registration asking for
// more than seven days gets seven days, whatever hub the service has.
func TestQueueLifespanCappedByService(t *testing.T) {
	f := newFixture(t, newMemoryStore)
	ctx := t.Context()
	st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{
		EventTypes: []string{"message"}, QueueLifespan: 30 * 24 * time.Hour})
	wantNoErr(t, "Register", err)
	id := st["queue_id"].(string)
	f.clock.Advance(chat.MaxQueueLifespan - time.Second)
	_, err = f.svc.GetEvents(ctx, chat.AsUser(f.member.ID), id, -1, true)
	wantNoErr(t, "GetEvents before seven days", err)
	f.clock.Advance(chat.MaxQueueLifespan)
	_, err = f.svc.GetEvents(ctx, chat.AsUser(f.member.ID), id, -1, true)
	wantCodeMsg(t, "GetEvents after seven days", err, chat.CodeBadEventQueueID, "Bad event queue ID: "+id)

	for _, c := range []struct {
		secs int64
		want time.Duration
	}{{-5, 0}, {0, 0}, {60, time.Minute}, {1 << 62, chat.MaxQueueLifespan}, {604800, chat.MaxQueueLifespan}} {
		if got := chat.QueueLifespanSeconds(c.secs); got != c.want {
			t.Errorf("QueueLifespanSeconds(%d) = %v, want %v", c.secs, got, c.want)
		}
	}
}

// heapGrowth registers queues queues for one user, sends messages long
// direct messages to that user, and returns how much the live heap grew.
func heapGrowth(t *testing.T, queues, messages int) uint64 {
	f := newFixture(t, newMemoryStore)
	ctx := t.Context()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range queues {
		_, err := f.svc.Register(ctx, chat.AsUser(f.guest.ID), chat.RegisterRequest{
			EventTypes: []string{"message"}, FetchEventTypes: []string{"none"}})
		wantNoErr(t, "Register", err)
	}
	content := strings.Repeat("long words ", chat.MaxMessageLength/11)
	for i := range messages {
		_, err := f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.guest.ID}}, Content: content + string(rune('a'+i%26))})
		wantNoErr(t, "SendMessage", err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(f.svc)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestEventMemoryBounded checks that many queues of one user receiving
// long direct messages cost about what one queue does: queues past the
// per-user cap are evicted, and the queues left share one encoding of
// each event.
func TestEventMemoryBounded(t *testing.T) {
	const messages = 10
	alone := heapGrowth(t, 1, messages)
	loaded := heapGrowth(t, 1000, messages)
	// Without the cap and the shared encoding, 1 000 queues hold 1 000
	// copies of each 10 000-byte message: about 100 MiB against well
	// under 1 MiB.
	if limit := 4*alone + 1<<20; loaded > limit {
		t.Errorf("heap grew %d bytes with 1000 queues, %d with one: more than %d", loaded, alone, limit)
	}
	t.Logf("heap growth: one queue %d bytes, 1000 queues %d bytes (%.2fx)", alone, loaded, float64(loaded)/float64(max(alone, 1)))
}

// TestEventEncodingShared checks that queues of the same form share one
// encoding of a message event.
func TestEventEncodingShared(t *testing.T) {
	f := newFixture(t, newMemoryStore)
	ctx := t.Context()
	var ids []string
	for range 2 {
		st, err := f.svc.Register(ctx, chat.AsUser(f.guest.ID), chat.RegisterRequest{EventTypes: []string{"message"}})
		wantNoErr(t, "Register", err)
		ids = append(ids, st["queue_id"].(string))
	}
	_, err := f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "direct",
		To: &chat.MessageTo{IDs: []int64{f.guest.ID}}, Content: "hello"})
	wantNoErr(t, "SendMessage", err)
	var data [][]byte
	for _, id := range ids {
		es, err := f.svc.GetEvents(ctx, chat.AsUser(f.guest.ID), id, -1, true)
		wantNoErr(t, "GetEvents", err)
		if len(es) != 1 {
			t.Fatalf("queue %s has %d events, want 1", id, len(es))
		}
		data = append(data, es[0].Data)
	}
	if &data[0][0] != &data[1][0] {
		t.Error("two queues of the same form hold separate encodings of one event")
	}
	if string(data[0]) != string(data[1]) {
		t.Error("shared encodings differ")
	}
}

// TestQueueOverflowDropped checks the bounds on what a queue holds for a
// client that does not collect its events: past MaxQueuedEvents events or
// MaxQueuedBytes bytes it is dropped (its client gets BAD_EVENT_QUEUE_ID),
// acknowledged events no longer count, and other queues stay.
func TestQueueOverflowDropped(t *testing.T) {
	ctx := t.Context()
	event := func(user int64) []chat.Event {
		return []chat.Event{{RealmID: 1, UserIDs: []int64{user},
			Payload: map[string]any{"type": "custom", "text": strings.Repeat("x", 1000)}}}
	}
	probe := chat.NewHub(chat.HubOptions{})
	defer probe.Close()
	id, err := probe.NewQueue(chat.QueueOptions{UserID: 1, RealmID: 1})
	wantNoErr(t, "NewQueue", err)
	probe.Publish(ctx, event(1))
	es, err := probe.Events(ctx, 1, id, -1, true)
	wantNoErr(t, "Events", err)
	size := len(es[0].Data)

	for _, tc := range []struct {
		name string
		opts chat.HubOptions
	}{
		{"events", chat.HubOptions{MaxQueuedEvents: 2}},
		{"bytes", chat.HubOptions{MaxQueuedBytes: 2*size + size/2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := chat.NewHub(tc.opts)
			defer h.Close()
			q, err := h.NewQueue(chat.QueueOptions{UserID: 1, RealmID: 1})
			wantNoErr(t, "NewQueue", err)
			other, err := h.NewQueue(chat.QueueOptions{UserID: 2, RealmID: 1})
			wantNoErr(t, "NewQueue", err)
			h.Publish(ctx, event(1))
			h.Publish(ctx, event(1))
			es, err := h.Events(ctx, 1, q, -1, true)
			wantNoErr(t, "Events at the bound", err)
			if len(es) != 2 {
				t.Fatalf("%d events at the bound, want 2", len(es))
			}
			// Acknowledged, they make room for two more.
			_, err = h.Events(ctx, 1, q, es[1].ID, true)
			wantNoErr(t, "Events acknowledging both", err)
			h.Publish(ctx, event(1))
			h.Publish(ctx, event(1))
			_, err = h.Events(ctx, 1, q, es[1].ID, true)
			wantNoErr(t, "Events at the bound again", err)
			h.Publish(ctx, event(1))
			_, err = h.Events(ctx, 1, q, es[1].ID, true)
			wantCodeMsg(t, "Events past the bound", err, chat.CodeBadEventQueueID, "Bad event queue ID: "+q)
			_, err = h.Events(ctx, 2, other, -1, true)
			wantNoErr(t, "another user's queue", err)
		})
	}
}

// TestQueuedEventsSizeHint: the hint covers the array it sizes, so that
// the answer's buffer is never grown.
func TestQueuedEventsSizeHint(t *testing.T) {
	for _, es := range []chat.QueuedEvents{
		nil,
		{{ID: 0, Data: json.RawMessage(`{}`)}},
		{{ID: -9223372036854775808, Data: json.RawMessage(`{}`)}, {ID: 9223372036854775807, Data: json.RawMessage(`{"type":"heartbeat"}`)}},
		{{ID: 12, Data: json.RawMessage(`{"type":"message","message":{"id":3,"content":"hello"},"flags":[]}`)}, {ID: 13, Data: json.RawMessage(`{"type":"presence"}`)}},
	} {
		if got, hint := len(es.AppendJSON(nil)), es.SizeHint(); hint < got {
			t.Errorf("%d events: hint %d, array %d bytes", len(es), hint, got)
		}
	}
}
