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
	Payload  map[string]any
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

// updateWithEvents runs fn in a read-write transaction, like update, and
// publishes the events fn emitted once the transaction has committed; a
// failed transaction publishes nothing.
func (s *Service) updateWithEvents(ctx context.Context, actor Actor, fn func(tx storage.Tx, emit func(Event)) error) error {
	var events []Event
	err := s.update(ctx, actor, func(tx storage.Tx) error {
		events = events[:0]
		return fn(tx, func(e Event) { events = append(events, e) })
	})
	if err == nil && len(events) > 0 {
		s.cfg.Events.Publish(ctx, events)
	}
	return err
}
