package chat

import (
	"context"
	"iter"
)

// GetEvents acknowledges the events of the actor's queue up to lastEventID
// and returns the ones after it, waiting (long-polling) for one unless
// dontBlock is set; see Hub.Events. The actor must be active.
//
// Errors: those of Hub.Events and of Users.
func (s *Service) GetEvents(ctx context.Context, actor Actor, queueID string, lastEventID int64, dontBlock bool) (QueuedEvents, error) {
	patient := !dontBlock && s.hub.wouldWait(actor.UserID(), queueID, lastEventID)
	if err := s.checkActor(ctx, actor, patient); err != nil {
		return nil, err
	}
	return s.hub.Events(ctx, actor.UserID(), queueID, lastEventID, dontBlock)
}

// DeleteQueue removes the actor's event queue. Errors: BAD_EVENT_QUEUE_ID,
// and those of Users.
func (s *Service) DeleteQueue(ctx context.Context, actor Actor, queueID string) error {
	if err := s.checkActor(ctx, actor, false); err != nil {
		return err
	}
	return s.hub.DeleteQueue(actor.UserID(), queueID)
}

// Listen registers an event queue for the actor and yields its events as
// they arrive, acknowledging each batch, until ctx ends or the queue is
// lost (the error is then yielded once). It is the Go form of the
// register-then-long-poll loop of HTTP clients; heartbeats are yielded too.
//
// Errors: those of Register and GetEvents.
func (s *Service) Listen(ctx context.Context, actor Actor, req RegisterRequest) (RegisterState, iter.Seq2[QueuedEvent, error], error) {
	state, err := s.Register(ctx, actor, req)
	if err != nil {
		return nil, nil, err
	}
	queueID := state["queue_id"].(string)
	seq := func(yield func(QueuedEvent, error) bool) {
		defer s.hub.DeleteQueue(actor.UserID(), queueID)
		last := int64(-1)
		for ctx.Err() == nil {
			events, err := s.GetEvents(ctx, actor, queueID, last, false)
			if err != nil {
				if ctx.Err() == nil {
					yield(QueuedEvent{}, err)
				}
				return
			}
			for _, e := range events {
				last = e.ID
				if !yield(e, nil) {
					return
				}
			}
		}
	}
	return state, seq, nil
}
