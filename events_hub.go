package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"time"
)

// HubOptions holds the settings of a Hub. Every zero field has the default
// given with it.
type HubOptions struct {
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
	// IdleTimeout is how long a queue lives with no client connected;
	// registrations may ask for longer, up to MaxIdleTimeout. Zero means
	// 10 minutes, the reference server's default.
	IdleTimeout time.Duration
	// MaxIdleTimeout caps what a registration may ask for. Zero means 7
	// days.
	MaxIdleTimeout time.Duration
	// Heartbeat is the shortest wait of a long-poll before it is answered
	// with a heartbeat event; HeartbeatJitter is added at random. Zero
	// means 45 s and 10 s, as the reference server.
	Heartbeat, HeartbeatJitter time.Duration
	// MaxQueuedEvents bounds the events a queue holds for a client that
	// does not collect them. A queue that would exceed it is dropped: its
	// client gets BAD_EVENT_QUEUE_ID and registers again, which costs less
	// than the memory of a client that went away. Zero means 10 000.
	MaxQueuedEvents int
	// GCInterval is how often expired queues are removed. Zero means one
	// minute.
	GCInterval time.Duration
}

// Hub is the built-in EventSink: it fans the published events out to the
// event queues of the clients that registered for them, and answers their
// long-polls. It is safe for concurrent use. A Service creates one when its
// Config has none.
type Hub struct {
	opts HubOptions

	mu      sync.Mutex
	queues  map[string]*queue
	byUser  map[int64]map[*queue]struct{}
	byRealm map[int64]map[*queue]struct{}
	closed  bool
	stop    chan struct{}
	done    chan struct{}
}

// queue is one client's event queue.
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

	pending []QueuedEvent
	nextID  int64
	// newestPruned is the newest event ID the client acknowledged.
	newestPruned int64
	lastActive   time.Time
	connected    int
	// wake is closed when events arrive; a new channel replaces it.
	wake chan struct{}
	// held is closed to answer the long-poll in progress when another
	// request for the queue arrives.
	held chan struct{}
}

// QueuedEvent is one event as a queue delivers it.
type QueuedEvent struct {
	ID   int64
	Type string
	// Data is the event's JSON object without its "id".
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

// NewHub returns a Hub and starts its collection of expired queues; Close
// stops it.
func NewHub(opts HubOptions) *Hub {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.MaxIdleTimeout == 0 {
		opts.MaxIdleTimeout = 7 * 24 * time.Hour
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 45 * time.Second
	}
	if opts.HeartbeatJitter == 0 {
		opts.HeartbeatJitter = 10 * time.Second
	}
	if opts.MaxQueuedEvents == 0 {
		opts.MaxQueuedEvents = 10000
	}
	if opts.GCInterval == 0 {
		opts.GCInterval = time.Minute
	}
	h := &Hub{
		opts:    opts,
		queues:  map[string]*queue{},
		byUser:  map[int64]map[*queue]struct{}{},
		byRealm: map[int64]map[*queue]struct{}{},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go h.collect()
	return h
}

// Close stops the hub: long-polls in progress return, and later calls find
// no queues.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for _, q := range h.queues {
		h.dropLocked(q)
	}
	h.mu.Unlock()
	close(h.stop)
	<-h.done
}

func (h *Hub) collect() {
	defer close(h.done)
	t := time.NewTicker(h.opts.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			h.mu.Lock()
			now := h.opts.Now()
			for _, q := range h.queues {
				if h.expired(q, now) {
					h.dropLocked(q)
				}
			}
			h.mu.Unlock()
		}
	}
}

// expired reports whether q has had no client for longer than its
// lifespan.
func (h *Hub) expired(q *queue, now time.Time) bool {
	return q.connected == 0 && now.Sub(q.lastActive) >= q.lifespan
}

// dropLocked removes q and answers its long-poll, if any.
func (h *Hub) dropLocked(q *queue) {
	delete(h.queues, q.id)
	removeFromIndex(h.byUser, q.userID, q)
	removeFromIndex(h.byRealm, q.realmID, q)
	close(q.wake)
	q.wake = make(chan struct{})
}

func addToIndex(index map[int64]map[*queue]struct{}, key int64, q *queue) {
	if index[key] == nil {
		index[key] = map[*queue]struct{}{}
	}
	index[key][q] = struct{}{}
}

func removeFromIndex(index map[int64]map[*queue]struct{}, key int64, q *queue) {
	if qs := index[key]; qs != nil {
		delete(qs, q)
		if len(qs) == 0 {
			delete(index, key)
		}
	}
}

// DropUserQueues removes every queue of the user, as when the account is
// deactivated: its long-polls return and its client must register again.
func (h *Hub) DropUserQueues(userID int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for q := range h.byUser[userID] {
		h.dropLocked(q)
	}
}

// Publish delivers each event to the queues of its recipients that accept
// it. An event whose payload cannot be encoded is a programming error: it
// is skipped.
func (h *Hub) Publish(_ context.Context, events []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range events {
		// A shared payload is encoded on the first queue that takes it:
		// most events of a bulk operation go to users without a queue, and
		// some payloads are large.
		var data json.RawMessage
		typ, _ := e.Payload["type"].(string)
		failed := false
		deliver := func(q *queue) {
			if failed || q.realmID != e.RealmID || !q.accepts(typ, e.Payload) {
				return
			}
			if e.PerQueue != nil {
				for _, d := range e.PerQueue.ForQueue(q.info) {
					h.pushLocked(q, typ, d)
				}
				return
			}
			if data == nil {
				var err error
				if data, _, err = encodePayload(e.Payload); err != nil {
					failed = true // an unencodable event is dropped
					return
				}
			}
			h.pushLocked(q, typ, data)
		}
		if e.AllUsers {
			for q := range h.byRealm[e.RealmID] {
				deliver(q)
			}
			continue
		}
		for _, userID := range e.UserIDs {
			for q := range h.byUser[userID] {
				deliver(q)
			}
		}
	}
}

func encodePayload(p map[string]any) (json.RawMessage, string, error) {
	typ, _ := p["type"].(string)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, "", err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})), typ, nil
}

// accepts reports whether the queue's client asked for the event.
func (q *queue) accepts(typ string, payload map[string]any) bool {
	if q.types != nil && !q.types[typ] {
		return false
	}
	// The legacy muted_topics event is for clients that do not know
	// user_topic.
	if typ == "muted_topics" && q.types["user_topic"] {
		return false
	}
	if typ == "typing" && payload["message_type"] == "stream" && !q.streamTyping {
		return false
	}
	return true
}

// pushLocked appends an event to q, dropping q when it overflows.
func (h *Hub) pushLocked(q *queue, typ string, data json.RawMessage) {
	if len(q.pending) >= h.opts.MaxQueuedEvents {
		h.dropLocked(q)
		return
	}
	q.pending = append(q.pending, QueuedEvent{ID: q.nextID, Type: typ, Data: data})
	q.nextID++
	close(q.wake)
	q.wake = make(chan struct{})
}

// QueueOptions describe a new queue.
type QueueOptions struct {
	UserID  int64
	RealmID int64
	// EventTypes are the event types to deliver; nil means all of them.
	EventTypes []string
	// StreamTypingNotifications delivers typing events of channels.
	StreamTypingNotifications bool
	// Lifespan is how long the queue lives without a client; zero means
	// HubOptions.IdleTimeout. It is capped at HubOptions.MaxIdleTimeout.
	Lifespan time.Duration
	// MessageFormat is how message events give message objects.
	MessageFormat MessageFormat
	// EmptyTopicName keeps empty topics "" in events; otherwise they are
	// shown as "general chat".
	EmptyTopicName bool
	// BulkMessageDeletion delivers one delete_message event per deletion
	// rather than one per message.
	BulkMessageDeletion bool
	// Narrow restricts the message events; the caller
	// has validated it.
	Narrow []NarrowTerm
}

// NewQueue creates a queue and returns its ID: a random UUID, as the
// reference server's.
func (h *Hub) NewQueue(o QueueOptions) (string, error) {
	id, err := newUUID()
	if err != nil {
		return "", err
	}
	q := &queue{
		id: id, userID: o.UserID, realmID: o.RealmID,
		streamTyping: o.StreamTypingNotifications,
		lifespan:     o.Lifespan,
		info: QueueInfo{ID: id, UserID: o.UserID, Format: o.MessageFormat, EmptyTopicName: o.EmptyTopicName,
			BulkMessageDeletion: o.BulkMessageDeletion, Narrow: o.Narrow},
		newestPruned: -1,
		lastActive:   h.opts.Now(),
		wake:         make(chan struct{}),
	}
	if q.lifespan <= 0 {
		q.lifespan = h.opts.IdleTimeout
	}
	q.lifespan = min(q.lifespan, h.opts.MaxIdleTimeout)
	if o.EventTypes != nil {
		q.types = make(map[string]bool, len(o.EventTypes))
		for _, t := range o.EventTypes {
			q.types[t] = true
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "", fmt.Errorf("chat: event hub is closed")
	}
	h.queues[id] = q
	addToIndex(h.byUser, o.UserID, q)
	addToIndex(h.byRealm, o.RealmID, q)
	return id, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// badQueue is the error for an unknown, expired or foreign queue.
func badQueue(id string) *Error {
	return &Error{Code: CodeBadEventQueueID, Msg: "Bad event queue ID: " + id, Data: map[string]any{"queue_id": id}}
}

// lookupLocked finds the user's queue, dropping it when it has expired.
func (h *Hub) lookupLocked(userID int64, id string) (*queue, error) {
	q, ok := h.queues[id]
	if !ok || q.userID != userID {
		return nil, badQueue(id)
	}
	if h.expired(q, h.opts.Now()) {
		h.dropLocked(q)
		return nil, badQueue(id)
	}
	return q, nil
}

// Events acknowledges the events of the user's queue up to lastEventID
// and returns the ones after it. When there are none and dontBlock is
// false, it waits until an event arrives, a heartbeat is due, another
// request for the queue arrives, or ctx ends. lastEventID -1 acknowledges
// nothing.
//
// Errors: BAD_EVENT_QUEUE_ID for an unknown, expired or foreign queue;
// BAD_REQUEST "An event newer than {id} has already been pruned!" and
// "Event {id} was not in this queue" for an acknowledgement the queue
// cannot match.
func (h *Hub) Events(ctx context.Context, userID int64, queueID string, lastEventID int64, dontBlock bool) (QueuedEvents, error) {
	h.mu.Lock()
	q, err := h.lookupLocked(userID, queueID)
	if err != nil {
		h.mu.Unlock()
		return nil, err
	}
	if lastEventID < q.newestPruned {
		h.mu.Unlock()
		return nil, errorf("An event newer than %d has already been pruned!", lastEventID)
	}
	n := 0
	for n < len(q.pending) && q.pending[n].ID <= lastEventID {
		q.newestPruned = q.pending[n].ID
		n++
	}
	q.pending = q.pending[n:]
	if q.newestPruned != lastEventID && lastEventID >= q.nextID {
		h.mu.Unlock()
		return nil, errorf("Event %d was not in this queue", lastEventID)
	}
	// Answer the long-poll that this request replaces.
	if q.held != nil {
		close(q.held)
		q.held = nil
	}
	if len(q.pending) > 0 || dontBlock {
		out := q.takeLocked(h.opts.Now())
		h.mu.Unlock()
		return out, nil
	}
	held := make(chan struct{})
	q.held = held
	q.connected++
	wake := q.wake
	h.mu.Unlock()

	timer := time.NewTimer(h.heartbeatDelay())
	defer timer.Stop()
	heartbeat := false
	select {
	case <-wake:
	case <-held:
	case <-ctx.Done():
	case <-timer.C:
		heartbeat = true
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	q.connected--
	if q.held == held {
		q.held = nil
	}
	if _, alive := h.queues[q.id]; !alive {
		return nil, badQueue(queueID)
	}
	if heartbeat && len(q.pending) == 0 {
		// Heartbeats bypass the event-type filter.
		q.pending = append(q.pending, QueuedEvent{ID: q.nextID, Type: "heartbeat", Data: json.RawMessage(`{"type":"heartbeat"}`)})
		q.nextID++
	}
	return q.takeLocked(h.opts.Now()), nil
}

// takeLocked returns a copy of the pending events; they stay queued until
// the client acknowledges them.
func (q *queue) takeLocked(now time.Time) QueuedEvents {
	q.lastActive = now
	out := make(QueuedEvents, len(q.pending))
	copy(out, q.pending)
	return out
}

func (h *Hub) heartbeatDelay() time.Duration {
	d := h.opts.Heartbeat
	if j := int64(h.opts.HeartbeatJitter); j > 0 {
		n, err := rand.Int(rand.Reader, big.NewInt(j))
		if err == nil {
			d += time.Duration(n.Int64())
		}
	}
	return d
}

// DeleteQueue removes the user's queue. Errors: BAD_EVENT_QUEUE_ID.
func (h *Hub) DeleteQueue(userID int64, queueID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	q, err := h.lookupLocked(userID, queueID)
	if err != nil {
		return err
	}
	h.dropLocked(q)
	return nil
}

// QueueCount returns the number of live queues.
func (h *Hub) QueueCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.queues)
}

// DropQueues removes every queue and answers their long-polls, as if they
// had expired: their clients get BAD_EVENT_QUEUE_ID and register again,
// reloading the state. A server whose event feed was interrupted calls it,
// since its queues may have missed events.
func (h *Hub) DropQueues() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range h.queues {
		h.dropLocked(q)
	}
}
