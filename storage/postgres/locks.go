package postgres

import (
	"context"
	"fmt"
)

// Locks are named locks that every process of one database shares:
// PostgreSQL advisory locks, each held on a connection of its own for as
// long as the lock is held. The resumable uploads of processes sharing
// their files take them, so that two processes never write one upload at
// once.
type Locks struct {
	s *Store
}

// Locks returns the store's shared named locks.
func (s *Store) Locks() *Locks { return &Locks{s: s} }

// Lock waits for the lock named key, or for ctx to end, and returns the
// function that releases it.
func (l *Locks) Lock(ctx context.Context, key string) (func(), error) {
	conn, err := l.s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: lock %s: %w", key, err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, "chat:"+key); err != nil {
		conn.Release()
		return nil, fmt.Errorf("postgres: lock %s: %w", key, err)
	}
	return func() {
		// A connection whose unlock fails is closed, which releases the
		// lock with its session.
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, "chat:"+key); err != nil {
			conn.Conn().Close(context.Background())
		}
		conn.Release()
	}, nil
}
