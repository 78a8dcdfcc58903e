package chat

import (
	"context"
	"errors"
	"sync"

	"github.com/teamchat/chat/storage"
)

// Every long-poll is a new request whose credentials are checked in a read
// transaction, and a message to a channel of hundreds answers hundreds of
// polls, whose clients all poll again at once, while the other deliveries
// of that message are still being written. On PostgreSQL each check was a
// transaction of its own on the database server, in the way of those
// deliveries: BenchmarkDeliveryLatency/postgres/queues=200, p50 29 ms with
// the checks against 22 ms in a build without them. The checks that wait
// together are therefore made in one read transaction: each still reads its
// user and organization in a transaction that began after its request came,
// and each gets its own answer.

// actorChecks queues the checks of checkActor while a round runs.
type actorChecks struct {
	mu      sync.Mutex
	queued  []*actorCheck
	running bool
}

// actorCheck is one queued check and, once done is closed, its result.
type actorCheck struct {
	actor Actor
	err   error
	done  chan struct{}
}

// checkActor checks that the actor is an active user of an active realm
// (and the actor's deferred credentials, if any), in a read transaction
// that may check other actors too.
func (s *Service) checkActor(ctx context.Context, actor Actor) error {
	c := &actorCheck{actor: actor, done: make(chan struct{})}
	b := &s.checks
	b.mu.Lock()
	b.queued = append(b.queued, c)
	lead := !b.running
	b.running = true
	b.mu.Unlock()
	if lead {
		s.checkRound()
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return internal(ctx.Err())
	}
}

// checkRound checks every queued actor in one read transaction, then
// leaves the checks queued meanwhile to a round of their own, in another
// goroutine, so that the caller's answer waits for its own round only.
func (s *Service) checkRound() {
	b := &s.checks
	b.mu.Lock()
	batch := b.queued
	b.queued = nil
	b.mu.Unlock()
	// Not a request's context: the round answers other requests too.
	err := s.view(context.Background(), noActor, func(tx storage.Tx) error {
		for _, c := range batch {
			_, _, c.err = s.actor(tx, c.actor)
			var domainErr *Error
			if c.err != nil && !errors.As(c.err, &domainErr) {
				return c.err // the transaction failed
			}
		}
		return nil
	})
	for _, c := range batch {
		if err != nil {
			c.err = err
		}
		close(c.done)
	}
	b.mu.Lock()
	if len(b.queued) == 0 {
		b.running = false
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go s.checkRound()
}
