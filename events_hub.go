package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Event queue limits (README, limits table).
const (
	// MaxQueueLifespan caps the lifespan a registration may ask for:
	// seven days, as the reference server.
	MaxQueueLifespan = 7 * 24 * time.Hour
	// DefaultQueueLifespan is the lifespan of a queue whose registration
	// asks for none: ten minutes, as the reference server.
	DefaultQueueLifespan = 10 * time.Minute
	// DefaultMaxQueuesPerUser is how many event queues a user keeps by
	// default. The reference server has no such limit; one browser tab or
	// device holds one queue, so a hundred is far above honest use, and
	// the queue evicted is the one whose client was seen least recently.
	DefaultMaxQueuesPerUser = 100
	// DefaultMaxQueuedBytes is how many bytes of events a queue holds by
	// default before it is dropped: 32 MiB, some 30 000 ordinary message
	// events or 300 of the longest messages rendered with a link on every
	// word, beside the 10 000 events of MaxQueuedEvents' default.
	DefaultMaxQueuedBytes = 32 << 20
)

// QueueLifespanSeconds turns a registration's queue_lifespan_secs into
// the lifespan Register takes: zero or negative means the default, and
// more than MaxQueueLifespan is capped.
func QueueLifespanSeconds(secs int64) time.Duration {
	if secs <= 0 {
		return 0
	}
	return time.Duration(min(secs, int64(MaxQueueLifespan/time.Second))) * time.Second
}

// HubOptions holds the settings of a Hub. Every zero field has the default
// given with it.
type HubOptions struct {
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
	// IdleTimeout is how long a queue lives with no client connected;
	// registrations may ask for longer, up to MaxIdleTimeout. Zero means
	// DefaultQueueLifespan.
	IdleTimeout time.Duration
	// MaxIdleTimeout caps what a registration may ask for. Zero means
	// MaxQueueLifespan.
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
	// MaxQueuedBytes bounds the bytes of the events a queue holds (their
	// encodings, which the queues that receive an event in the same form
	// share): ten thousand long messages, rendered, would hold a gigabyte.
	// A queue that would exceed it is dropped as for MaxQueuedEvents.
	// Zero means DefaultMaxQueuedBytes.
	MaxQueuedBytes int
	// MaxQueuesPerUser bounds the queues of one user: a new queue beyond
	// it evicts the user's queue whose client was seen least recently
	// (one with a long-poll waiting only when all have one). Zero means
	// DefaultMaxQueuesPerUser.
	MaxQueuesPerUser int
	// GCInterval is how often expired queues are removed. Zero means one
	// minute.
	GCInterval time.Duration
}

// Hub is the built-in EventSink: it fans the published events out to the
// event queues of the clients that registered for them, and answers their
// long-polls. It is safe for concurrent use. A Service creates one when its
// Config has none.
//
// The hub's lock guards only its indexes of queues; each queue has a lock
// of its own, so that delivering to one queue, or a long-poll on it,
// waits for no other.
type Hub struct {
	opts HubOptions

	mu      sync.RWMutex
	queues  map[string]*queue
	byUser  map[int64]map[*queue]struct{}
	byRealm map[int64]map[*queue]struct{}
	closed  bool
	// draining makes every long-poll answer at once (Drain).
	draining atomic.Bool
	stop     chan struct{}
	done     chan struct{}
}

// NewHub returns a Hub and starts its collection of expired queues; Close
// stops it.
func NewHub(opts HubOptions) *Hub {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultQueueLifespan
	}
	if opts.MaxIdleTimeout == 0 {
		opts.MaxIdleTimeout = MaxQueueLifespan
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
	if opts.MaxQueuedBytes == 0 {
		opts.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	if opts.MaxQueuesPerUser == 0 {
		opts.MaxQueuesPerUser = DefaultMaxQueuesPerUser
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

// Drain answers every long-poll in progress at once, with the events it
// has (often none), and makes later ones answer without waiting; the
// queues stay. A server that is shutting down calls it, so that its
// clients poll again (and register again with the next server) rather
// than wait for a heartbeat.
func (h *Hub) Drain() {
	h.draining.Store(true)
	for _, q := range h.snapshot(func(*queue) bool { return true }) {
		q.mu.Lock()
		if q.held != nil {
			close(q.held)
			q.held = nil
		}
		q.mu.Unlock()
	}
}

// snapshot returns the queues that keep says to, read under the hub's
// read lock.
func (h *Hub) snapshot(keep func(*queue) bool) []*queue {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*queue, 0, len(h.queues))
	for _, q := range h.queues {
		if keep(q) {
			out = append(out, q)
		}
	}
	return out
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
			now := h.opts.Now()
			for _, q := range h.snapshot(func(*queue) bool { return true }) {
				q.mu.Lock()
				expired := q.expiredLocked(now)
				q.mu.Unlock()
				if expired {
					h.drop(q)
				}
			}
		}
	}
}

// drop removes q from the hub and answers its long-poll, if any.
func (h *Hub) drop(q *queue) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(q)
}

// dropLocked is drop with the hub's lock held.
func (h *Hub) dropLocked(q *queue) {
	if h.queues[q.id] == q {
		delete(h.queues, q.id)
	}
	removeFromIndex(h.byUser, q.userID, q)
	removeFromIndex(h.byRealm, q.realmID, q)
	q.mu.Lock()
	q.dropLocked()
	q.mu.Unlock()
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
// is skipped. Each form of an event is encoded once and shared by the
// queues that get it; the hub's lock is held only to list the queues.
func (h *Hub) Publish(_ context.Context, events []Event) {
	var overflowed []*queue
	for _, e := range events {
		typ, _ := e.Payload["type"].(string)
		// A shared payload is encoded on the first queue that takes it:
		// most events of a bulk operation go to users without a queue, and
		// some payloads are large.
		var shared []json.RawMessage
		for _, q := range h.recipients(e) {
			if q.realmID != e.RealmID || !q.accepts(typ, e.Payload) {
				continue
			}
			var forms []json.RawMessage
			if e.PerQueue != nil {
				forms = e.PerQueue.ForQueue(q.info)
			} else {
				if shared == nil {
					data, _, err := encodePayload(e.Payload)
					if err != nil {
						break // an unencodable event is dropped
					}
					shared = []json.RawMessage{data}
				}
				forms = shared
			}
			if len(forms) > 0 && !q.push(typ, forms, h.opts.MaxQueuedEvents, h.opts.MaxQueuedBytes) {
				overflowed = append(overflowed, q)
			}
		}
	}
	for _, q := range overflowed {
		h.drop(q)
	}
}

// recipients lists the queues an event may go to.
func (h *Hub) recipients(e Event) []*queue {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []*queue
	if e.AllUsers {
		out = make([]*queue, 0, len(h.byRealm[e.RealmID]))
		for q := range h.byRealm[e.RealmID] {
			if _, except := slices.BinarySearch(e.ExceptUserIDs, q.userID); !except {
				out = append(out, q)
			}
		}
		return out
	}
	for _, userID := range e.UserIDs {
		for q := range h.byUser[userID] {
			out = append(out, q)
		}
	}
	return out
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
	// Narrow restricts the message events to those the narrow matches; the caller
	// has validated it.
	Narrow []NarrowTerm
}

// NewQueue creates a queue and returns its ID: a random UUID, as the
// reference server's. A user who already has HubOptions.MaxQueuesPerUser
// queues loses the one whose client was seen least recently.
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
	for len(h.byUser[o.UserID]) >= h.opts.MaxQueuesPerUser {
		h.dropLocked(h.evicteeLocked(o.UserID))
	}
	h.queues[id] = q
	addToIndex(h.byUser, o.UserID, q)
	addToIndex(h.byRealm, o.RealmID, q)
	return id, nil
}

// evicteeLocked picks the user's queue to give way to a new one: the one
// seen least recently, preferring those without a long-poll waiting.
func (h *Hub) evicteeLocked(userID int64) *queue {
	var best *queue
	var bestConnected bool
	var bestSeen time.Time
	for q := range h.byUser[userID] {
		q.mu.Lock()
		connected, seen := q.connected > 0, q.lastActive
		q.mu.Unlock()
		if best == nil || (bestConnected && !connected) ||
			(connected == bestConnected && seen.Before(bestSeen)) {
			best, bestConnected, bestSeen = q, connected, seen
		}
	}
	return best
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

// lookup finds the user's queue and returns it locked, dropping it when it
// has expired.
func (h *Hub) lookup(userID int64, id string) (*queue, error) {
	h.mu.RLock()
	q, ok := h.queues[id]
	h.mu.RUnlock()
	if !ok || q.userID != userID {
		return nil, badQueue(id)
	}
	q.mu.Lock()
	if q.dropped {
		q.mu.Unlock()
		return nil, badQueue(id)
	}
	if q.expiredLocked(h.opts.Now()) {
		q.mu.Unlock()
		h.drop(q)
		return nil, badQueue(id)
	}
	return q, nil
}

// wouldWait reports whether Events for the user's queue, with lastEventID
// and dontBlock false, would wait for an event as things stand: it has no
// event after lastEventID, and is found. Only a hint: things may change
// before Events runs.
func (h *Hub) wouldWait(userID int64, queueID string, lastEventID int64) bool {
	h.mu.RLock()
	q, ok := h.queues[queueID]
	h.mu.RUnlock()
	if !ok || q.userID != userID || h.draining.Load() {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.dropped && (len(q.pending) == 0 || q.pending[len(q.pending)-1].ID <= lastEventID)
}

// Events acknowledges the events of the user's queue up to lastEventID
// and returns the ones after it. When there are none and dontBlock is
// false, it waits until an event arrives, a heartbeat is due, another
// request for the queue arrives, the hub drains, or ctx ends. lastEventID
// -1 acknowledges nothing.
//
// Errors: BAD_EVENT_QUEUE_ID for an unknown, expired or foreign queue;
// BAD_REQUEST "An event newer than {id} has already been pruned!" and
// "Event {id} was not in this queue" for an acknowledgement the queue
// cannot match.
func (h *Hub) Events(ctx context.Context, userID int64, queueID string, lastEventID int64, dontBlock bool) (QueuedEvents, error) {
	q, err := h.lookup(userID, queueID)
	if err != nil {
		return nil, err
	}
	if err := q.ackLocked(lastEventID); err != nil {
		q.mu.Unlock()
		return nil, err
	}
	// Answer the long-poll that this request replaces.
	if q.held != nil {
		close(q.held)
		q.held = nil
	}
	// Drain is checked under the queue's lock, after which Drain closes
	// any held channel: no long-poll starts waiting once it has begun.
	if len(q.pending) > 0 || dontBlock || h.draining.Load() {
		out := q.takeLocked(h.opts.Now())
		q.mu.Unlock()
		return out, nil
	}
	held := make(chan struct{})
	q.held = held
	q.connected++
	wake := q.wake
	q.mu.Unlock()

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

	q.mu.Lock()
	defer q.mu.Unlock()
	q.connected--
	if q.held == held {
		q.held = nil
	}
	if q.dropped {
		return nil, badQueue(queueID)
	}
	if heartbeat && len(q.pending) == 0 {
		// Heartbeats bypass the event-type filter.
		beat := json.RawMessage(`{"type":"heartbeat"}`)
		q.pending = append(q.pending, QueuedEvent{ID: q.nextID, Type: "heartbeat", Data: beat})
		q.bytes += len(beat)
		q.nextID++
	}
	return q.takeLocked(h.opts.Now()), nil
}

func (h *Hub) heartbeatDelay() time.Duration {
	d := h.opts.Heartbeat
	if j := int64(h.opts.HeartbeatJitter); j > 0 {
		// A spread, not a secret: the cheap generator, as every
		// long-poll draws one.
		d += time.Duration(mrand.Int64N(j))
	}
	return d
}

// DeleteQueue removes the user's queue. Errors: BAD_EVENT_QUEUE_ID.
func (h *Hub) DeleteQueue(userID int64, queueID string) error {
	q, err := h.lookup(userID, queueID)
	if err != nil {
		return err
	}
	q.mu.Unlock()
	h.drop(q)
	return nil
}

// QueueCount returns the number of live queues.
func (h *Hub) QueueCount() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
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
