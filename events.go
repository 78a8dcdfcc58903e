package chat

import (
	"context"
	"encoding/json"

	"github.com/teamchat/chat/storage"
)

// Event is one real-time event for a set of users, such as a subscription
// property change or a typing notification. Payload is the event's JSON
// object as clients receive it, without the "id" that each event queue
// assigns (for example {"type": "typing", "op": "start", ...}).
type Event struct {
	RealmID int64
	// UserIDs are the users who receive the event.
	UserIDs []int64
	// AllUsers sends the event to every user of the realm instead of
	// UserIDs; with it, an organization-wide change costs one event per
	// client connected, not a list of every user.
	AllUsers bool
	// ExceptUserIDs, with AllUsers, are users who do not receive the
	// event, in increasing order: those an organization-wide event must
	// skip (the guests who do not see a public channel).
	ExceptUserIDs []int64
	Payload       map[string]any
	// PerQueue, when set, makes the event's form for each event queue,
	// whose options (apply_markdown, bulk_message_deletion, ...) and
	// narrow decide it. Payload then holds what the hub's filters read:
	// the type, and for typing events the message_type. Message events
	// and others whose form differs by client have one.
	PerQueue QueueFormatter
}

// QueueFormatter makes an event's form for each event queue. Only this
// package implements it, for message, update_message, delete_message and
// channel typing events: each holds the data its forms are computed from,
// which Event's MarshalJSON writes and UnmarshalJSON reads back, so that
// a process delivers an event caused in another exactly as that one would.
type QueueFormatter interface {
	// ForQueue returns the event's JSON objects for the queue, without
	// "id": none (its narrow excludes the event), one, or several. They
	// may be shared with other queues and must not be modified. It is safe
	// for concurrent use.
	ForQueue(q QueueInfo) []json.RawMessage
	// kind names the formatter in the JSON of events.
	kind() string
	// payload returns the Payload of the formatter's event.
	payload() map[string]any
}

// formattedEvent makes the event whose form f computes per queue.
func formattedEvent(realmID int64, to []int64, f QueueFormatter) Event {
	return Event{RealmID: realmID, UserIDs: to, Payload: f.payload(), PerQueue: f}
}

// QueueInfo is what the form of an event may depend on: the queue and the
// options its client registered with.
type QueueInfo struct {
	ID     string
	UserID int64
	// Format is how the client wants message objects.
	Format MessageFormat
	// EmptyTopicName keeps empty topics ""; otherwise they are shown as
	// "general chat".
	EmptyTopicName bool
	// BulkMessageDeletion takes one delete_message event for several
	// messages.
	BulkMessageDeletion bool
	// Narrow restricts the message events.
	Narrow []NarrowTerm
}

// EventSink receives the events of committed operations, in commit order.
// Publish must not block for long: it runs on the path of the request that
// caused the events.
type EventSink interface {
	Publish(ctx context.Context, events []Event)
}

// TxEventSink is an EventSink that can publish a write transaction's
// events as part of that transaction, so that they go out if and only if
// it commits, in the order of the commits, and a process that stops
// between its commit and its publishing loses none (postgres.Events).
type TxEventSink interface {
	EventSink
	// PublishInTx publishes events as part of tx, the write transaction
	// that caused them. It returns ok false, publishing nothing, when it
	// cannot use tx; the caller then publishes them after the commit. An
	// error fails the transaction. ended must be called once tx has ended,
	// with whether it committed.
	PublishInTx(ctx context.Context, tx storage.Tx, events []Event) (ended func(committed bool), ok bool, err error)
}

// updateWithEvents runs fn in a read-write transaction, like update, and
// publishes the events fn emitted: in the transaction when the sink is a
// TxEventSink, else once the transaction has committed. A failed
// transaction publishes nothing.
func (s *Service) updateWithEvents(ctx context.Context, actor Actor, fn func(tx storage.Tx, emit func(Event)) error) error {
	var (
		events    []Event
		published bool
		ended     []func(committed bool) // one per attempt that published
	)
	txSink, _ := s.cfg.Events.(TxEventSink)
	err := s.update(ctx, actor, func(tx storage.Tx) error {
		// A new slice for every attempt: a sink may keep the last one's.
		events, published = nil, false
		if err := fn(tx, func(e Event) { events = append(events, e) }); err != nil {
			return err
		}
		if txSink == nil || len(events) == 0 {
			return nil
		}
		end, ok, err := txSink.PublishInTx(ctx, tx, events)
		if ok {
			published = true
			ended = append(ended, end)
		}
		return err
	})
	// Only the last attempt can have committed: the store retries an
	// attempt only after it failed.
	for i, end := range ended {
		end(err == nil && i == len(ended)-1 && published)
	}
	if err == nil && !published && len(events) > 0 {
		s.cfg.Events.Publish(ctx, events)
	}
	return err
}
