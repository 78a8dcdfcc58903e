// Package postgres is a storage backend for package chat on PostgreSQL,
// through github.com/jackc/pgx/v5, for deployments that run several chatd
// processes on one database.
//
// Store.Update runs SERIALIZABLE transactions, so that the check-then-write
// rules of the domain hold across processes as they do in one; a
// transaction that PostgreSQL aborts as a serialization failure or a
// deadlock is rolled back and fn runs again, a bounded number of times.
// Store.View runs READ ONLY REPEATABLE READ transactions: one snapshot,
// never blocked by writers. The schema is created and upgraded by the SQL
// migrations embedded in the package, tracked in the schema_migrations
// table. Everything lives in the connection's current schema (the
// search_path), so several deployments, or tests, can share a database.
//
// A Store keeps the active subscribers of the channels it read, each list
// by a version that triggers replace whenever the list changes, whoever
// changes it (subscribers.go), and in the same way the organizations' user
// groups, linkifiers, alert words and mutes (realmlists.go).
//
// Events publishes the events of committed operations to every process
// through LISTEN/NOTIFY (see NewEvents).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// maxAttempts bounds how often Update runs fn for one call when PostgreSQL
// keeps aborting it as a serialization failure.
const maxAttempts = 30

// The backend implements the storage SPI and answers every optional query
// itself.
var (
	_ storage.Store = (*Store)(nil)
	_ sqlcommon.Tx  = (*tx)(nil)
)

// Store is a storage.Store on a PostgreSQL database. It is safe for concurrent
// use, also by several processes on the same database. Open it with Open;
// the zero value is not usable.
type Store struct {
	pool  *pgxpool.Pool
	lists subscriberLists
	// realmLists are the organizations' lists (realmlists.go).
	realmLists realmLists
}

// Open connects to the database named by dsn (a URL such as
// postgres://user:password@host:5432/db?sslmode=disable, or key=value
// pairs; pool_max_conns and the other pgxpool settings may be added) and
// brings its schema up to date. Open fails when the database cannot be
// reached, when its schema is newer than this package knows, or when a
// migration fails.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Pool returns the store's connection pool, for NewEvents.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

var (
	viewOptions   = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	updateOptions = pgx.TxOptions{IsoLevel: pgx.Serializable}
)

// View runs fn in a read-only transaction that sees one snapshot: every
// read of fn sees the database as it was at its first read, and every
// write returns storage.ErrReadOnly. View returns fn's error, or an error
// without running fn when ctx is done or the store is closed.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pgTx, err := s.begin(ctx, viewOptions)
	if err != nil {
		return err
	}
	defer pgTx.Rollback(context.WithoutCancel(ctx))
	return fn(&tx{ctx: ctx, tx: pgTx, TxState: sqlcommon.TxState{ReadOnly: true}, lists: &s.lists, realmLists: &s.realmLists})
}

// Update runs fn in a SERIALIZABLE transaction. It commits when fn returns
// nil and rolls back when fn returns an error, which Update returns, or
// panics, which Update lets through. When PostgreSQL aborts the
// transaction as a serialization failure or deadlock (SQLSTATE 40001,
// 40P01), at any statement or at commit, Update rolls back and runs fn
// again, up to a bound, so fn must be safe to run more than once: only its
// last run counts. Update returns an error without running fn when ctx is
// done or the store is closed, and an error when a storage failure inside
// fn (other than ErrNotFound and ErrExists) broke the transaction even if
// fn went on and returned nil; nothing is committed then.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.updateOnce(ctx, fn)
		if err == nil || !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return err
		}
		// Back off for a random time that grows with the attempts, so that
		// transactions that keep colliding spread out.
		backoff := time.Duration(rand.Int64N(int64(min(attempt*attempt, 100)) * int64(time.Millisecond)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
	}
}

func (s *Store) updateOnce(ctx context.Context, fn func(storage.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pgTx, err := s.begin(ctx, updateOptions)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done { // fn panicked
			pgTx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	t := &tx{ctx: ctx, tx: pgTx, lists: &s.lists, realmLists: &s.realmLists}
	err = fn(t)
	done = true
	if t.Failed != nil && retryable(t.Failed) {
		// Whatever fn made of it, its reads were not serialisable.
		pgTx.Rollback(context.WithoutCancel(ctx))
		return t.Failed
	}
	if err != nil {
		pgTx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if t.Failed != nil {
		pgTx.Rollback(context.WithoutCancel(ctx))
		return fmt.Errorf("postgres: not committing after an earlier failure: %w", t.Failed)
	}
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

func (s *Store) begin(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	pgTx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("postgres: begin transaction: %w", err)
	}
	return pgTx, nil
}

// Close closes the connection pool, waiting for the connections in use to
// be released. Transactions started afterwards fail. Close may be called
// more than once.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// SQLSTATE codes the package acts on.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// sqlState returns the SQLSTATE of a PostgreSQL error, or "".
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// retryable reports whether err aborted a transaction that may succeed
// when run again.
func retryable(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected:
		return true
	}
	return false
}
