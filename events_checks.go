package chat

import (
	"context"
	"errors"
	"sync"
	"time"

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
//
// A poll that will wait for its next event anyway (its queue has none)
// is patient: its check waits up to checkGather for others to join its
// round. The polls that a message answers come back over a few
// milliseconds, amid the other deliveries of that message; checked as they
// came, in rounds of two or three (8 143 rounds for 20 400 checks), the
// checks were the largest part of the server's CPU time per poll, and
// BenchmarkDeliveryLatency/sqlite/queues=200 had a p99 of 48–49 ms against
// 39–41 ms in a build that checked nothing; gathered, 1 488 rounds and a
// p99 of 39–42 ms (BENCHMARKS.md). A check that must answer at once
// (events are waiting, or another operation) starts its round without
// waiting, and takes the patient ones with it.

// checkGather is how long a patient check waits for others to join its
// round.
const checkGather = 2 * time.Millisecond

// actorChecks queues the checks of checkActor while a round runs, or while
// patient checks gather for one.
type actorChecks struct {
	mu      sync.Mutex
	queued  []*actorCheck
	running bool        // a round is running, and will start the next
	urgent  bool        // a queued check is not patient
	gather  *time.Timer // set while patient checks gather and none runs
}

// actorCheck is one queued check and, once done is closed, its result.
type actorCheck struct {
	actor Actor
	err   error
	done  chan struct{}
}

// checkActor checks that the actor is an active user of an active realm
// (and the actor's deferred credentials, if any), in a read transaction
// that may check other actors too. A patient check may wait up to
// checkGather for others.
func (s *Service) checkActor(ctx context.Context, actor Actor, patient bool) error {
	c := &actorCheck{actor: actor, done: make(chan struct{})}
	b := &s.checks
	b.mu.Lock()
	b.queued = append(b.queued, c)
	b.urgent = b.urgent || !patient
	lead := false
	switch {
	case b.running:
	case b.urgent:
		lead, b.running = true, true
		if b.gather != nil {
			b.gather.Stop()
			b.gather = nil
		}
	case b.gather == nil:
		b.gather = time.AfterFunc(checkGather, s.gatheredRound)
	}
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

// gatheredRound starts the round that patient checks gathered for, unless
// a check that could not wait started it already.
func (s *Service) gatheredRound() {
	b := &s.checks
	b.mu.Lock()
	if b.running || b.gather == nil {
		b.mu.Unlock()
		return
	}
	b.gather, b.running = nil, true
	b.mu.Unlock()
	s.checkRound()
}

// checkRound checks every queued actor in one read transaction, then
// leaves the checks queued meanwhile to a round of their own: at once, in
// another goroutine, when one of them cannot wait, else after they have
// gathered for checkGather. The caller's answer waits for its own round
// only.
func (s *Service) checkRound() {
	b := &s.checks
	b.mu.Lock()
	batch := b.queued
	b.queued, b.urgent = nil, false
	b.mu.Unlock()
	// Not a request's context: the round answers other requests too.
	err := s.view(context.Background(), noActor, func(tx storage.Tx) error {
		known, err := readActors(tx, batch)
		if err != nil {
			return err
		}
		for _, c := range batch {
			_, _, c.err = s.actorFrom(tx, c.actor, known)
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
	if len(b.queued) == 0 || !b.urgent {
		// Patient checks that came meanwhile gather for a round of
		// their own, as the first ones did: otherwise the polls that a
		// message answers, coming back over milliseconds, were checked
		// in rounds of a few each, each round reading the organization
		// and beginning a transaction.
		b.running = false
		if len(b.queued) > 0 && b.gather == nil {
			b.gather = time.AfterFunc(checkGather, s.gatheredRound)
		}
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go s.checkRound()
}

// actorRecords are records read once for the checks of a round: users
// with their realms, by user ID, and the organizations that hosts resolve
// to (hostNames).
type actorRecords struct {
	users map[int64]userAndRealm
	hosts map[string]int64
}

type userAndRealm struct {
	user  storage.UserRecord
	realm *Realm // one for the round: a Realm is large, and a round checks hundreds
}

// read returns the user with the ID and their realm, from k when it has
// them, else read in tx. k may be nil.
func (k *actorRecords) read(tx storage.Tx, userID int64) (storage.UserRecord, Realm, error) {
	if k != nil {
		if ur, ok := k.users[userID]; ok {
			return ur.user, *ur.realm, nil
		}
	}
	return storage.UserAndRealm(tx, userID)
}

// readActors reads the users that a round checks, with their realms, in
// two reads: the first with its realm, then the others of that realm at
// once (the polls that a message answers are of one organization, and
// each read of a user and their realm was a tenth of the CPU time of
// BenchmarkDeliveryLatency). Users of another realm, and users not found,
// are left for their checks to read.
func readActors(tx storage.Tx, batch []*actorCheck) (*actorRecords, error) {
	ids := make([]int64, 0, len(batch))
	for _, c := range batch {
		if id := c.actor.checkedID(); id != 0 {
			ids = append(ids, id)
		}
	}
	known := &actorRecords{}
	if len(ids) < 2 {
		return known, nil
	}
	u, r, err := storage.UserAndRealm(tx, ids[0])
	if errors.Is(err, storage.ErrNotFound) {
		return known, nil
	}
	if err != nil {
		return nil, err
	}
	users, err := tx.Users(r.ID, ids[1:])
	if err != nil {
		return nil, err
	}
	known.users = make(map[int64]userAndRealm, len(users)+1)
	known.users[u.ID] = userAndRealm{u, &r}
	for _, u := range users {
		known.users[u.ID] = userAndRealm{u, &r}
	}
	return known, nil
}
