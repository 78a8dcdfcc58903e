package chat

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// queue is one client's event queue. Its identity and options never
// change; mu guards the rest, so that delivery to one queue waits for no
// other queue.
type queue struct {
	id      string
	userID  int64
	realmID int64
	// types lists the event types the client asked for; nil means all.
	types map[string]bool
	// streamTyping says the client handles typing events of channels.
	streamTyping bool
	lifespan     time.Duration
	// info is what the form of per-queue events depends on.
	info QueueInfo

	mu sync.Mutex
	// dropped says the queue is gone: expired, deleted, overflowed or
	// evicted. Its client gets BAD_EVENT_QUEUE_ID.
	dropped bool
	pending []QueuedEvent
	// bytes is the length of the pending events' data.
	bytes  int
	nextID int64
	// newestPruned is the newest event ID the client acknowledged.
	newestPruned int64
	lastActive   time.Time
	connected    int
	// wake is closed when events arrive; a new channel replaces it.
	wake chan struct{}
	// held is closed to answer the long-poll in progress when another
	// request for the queue arrives, or when the hub drains.
	held chan struct{}
}

// QueuedEvent is one event as a queue delivers it.
type QueuedEvent struct {
	ID   int64
	Type string
	// Data is the event's JSON object without its "id". Queues that get
	// the same form of an event share it.
	Data json.RawMessage
}

// MarshalJSON writes the event's object with its "id" first.
func (e QueuedEvent) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(nil), nil
}

// AppendJSON appends the event's object with its "id" first.
func (e QueuedEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, e.ID, 10)
	if len(e.Data) > 2 {
		b = append(b, ',')
		b = append(b, e.Data[1:]...)
		return b
	}
	return append(b, '}')
}

// QueuedEvents is a list of events; its AppendJSON writes a JSON array.
type QueuedEvents []QueuedEvent

// SizeHint returns at least the length of the events' JSON array, so that
// an answer's buffer is allocated once, not grown through its doublings
// (a long-poll's answer is one of these).
func (es QueuedEvents) SizeHint() int {
	n := 2
	for _, e := range es {
		n += len(e.Data) + len(`,{"id":-9223372036854775808,`)
	}
	return n
}

// AppendJSON appends the JSON array of the events.
func (es QueuedEvents) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.AppendJSON(b)
	}
	return append(b, ']')
}

// accepts reports whether the queue's client asked for the event.
func (q *queue) accepts(typ string, payload map[string]any) bool {
	if q.types != nil && !q.types[typ] {
		return false
	}
	// The legacy muted_topics event is for clients that do not know
	// user_topic, which replaces it.
	if typ == "muted_topics" && q.types["user_topic"] {
		return false
	}
	if typ == "typing" && payload["message_type"] == "stream" && !q.streamTyping {
		return false
	}
	return true
}

// push appends the forms of one event to q. It reports false when q
// would hold more than maxEvents events or maxBytes bytes of them: q is
// then marked dropped, and the caller removes it from the hub.
func (q *queue) push(typ string, forms []json.RawMessage, maxEvents, maxBytes int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dropped {
		return true
	}
	added := 0
	for _, d := range forms {
		added += len(d)
	}
	if len(q.pending)+len(forms) > maxEvents || q.bytes+added > maxBytes {
		q.dropLocked()
		return false
	}
	for _, d := range forms {
		q.pending = append(q.pending, QueuedEvent{ID: q.nextID, Type: typ, Data: d})
		q.nextID++
	}
	q.bytes += added
	q.wakeLocked()
	return true
}

// wakeLocked answers the long-poll waiting on q, if any.
func (q *queue) wakeLocked() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// dropLocked marks q gone, frees its events and answers its long-poll.
func (q *queue) dropLocked() {
	q.dropped = true
	q.pending, q.bytes = nil, 0
	q.wakeLocked()
}

// expiredLocked reports whether q has had no client for longer than its
// lifespan.
func (q *queue) expiredLocked(now time.Time) bool {
	return q.connected == 0 && now.Sub(q.lastActive) >= q.lifespan
}

// takeLocked returns a copy of the pending events; they stay queued until
// the client acknowledges them.
func (q *queue) takeLocked(now time.Time) QueuedEvents {
	q.lastActive = now
	out := make(QueuedEvents, len(q.pending))
	copy(out, q.pending)
	return out
}

// ackLocked drops the events up to lastEventID, which the client has
// seen. Errors: BAD_REQUEST for an acknowledgement the queue cannot match.
func (q *queue) ackLocked(lastEventID int64) error {
	if lastEventID < q.newestPruned {
		return errorf("An event newer than %d has already been pruned!", lastEventID)
	}
	n := 0
	for n < len(q.pending) && q.pending[n].ID <= lastEventID {
		q.newestPruned = q.pending[n].ID
		q.bytes -= len(q.pending[n].Data)
		n++
	}
	// Copy the rest so that the acknowledged events' backing array, and
	// the encodings it holds, can be collected.
	if n > 0 {
		q.pending = append([]QueuedEvent(nil), q.pending[n:]...)
	}
	if q.newestPruned != lastEventID && lastEventID >= q.nextID {
		return errorf("Event %d was not in this queue", lastEventID)
	}
	return nil
}
