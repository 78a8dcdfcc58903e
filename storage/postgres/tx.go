package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// tx is a storage.Tx over one PostgreSQL transaction. Statements run by text:
// pgx prepares each distinct text once per connection and reuses it.
//
// PostgreSQL aborts the whole transaction at the first failing statement,
// while the SPI lets the domain go on after ErrExists. So inserts that may
// collide use ON CONFLICT DO NOTHING and report ErrExists when no row was
// written, and the few updates that may break a uniqueness rule run inside
// a savepoint (guarded), which undoes only that statement.
type tx struct {
	ctx context.Context
	tx  pgx.Tx
	// TxState's Failed is the first storage failure, after which
	// PostgreSQL has aborted the transaction.
	sqlcommon.TxState
	// fresh holds the messages this transaction created that have no
	// recipient rows yet (CreateUserMessages).
	fresh map[int64]bool
	// lists are the store's channels' subscribers (subscribers.go).
	lists *subscriberLists
	// realmLists are the store's organizations' lists (realmlists.go);
	// realmVersions the versions of them this transaction read, by
	// organization, and userRealms the organizations of the users it read
	// with theirs; wrote is set by its first write.
	realmLists    *realmLists
	realmVersions map[int64]int64
	userRealms    map[int64]int64
	wrote         bool
}

// driverErrors are pgx's. Any failure but ErrNoRows has aborted the
// transaction, so it is recorded (guarded undoes that).
var driverErrors = sqlcommon.Errors{
	Prefix: "postgres",
	NoRows: pgx.ErrNoRows,
	Unique: func(err error) bool { return sqlState(err) == codeUniqueViolation },
	Aborts: func(error) bool { return true },
}

// check returns the error to give for err, the result of operation op
// (sqlcommon.TxState.Check).
func (t *tx) check(op string, err error) error { return t.Check(&driverErrors, op, err) }

// exec runs a write statement.
func (t *tx) exec(op, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.Writable(); err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := t.tx.Exec(t.ctx, sql, args...)
	return tag, t.check(op, err)
}

// execOne runs a write statement that must change a row: none changed is
// storage.ErrNotFound.
func (t *tx) execOne(op, sql string, args ...any) error {
	tag, err := t.exec(op, sql, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// insertID runs an INSERT ... ON CONFLICT DO NOTHING RETURNING id and
// returns the new ID; no row means a uniqueness rule stopped it, which is
// storage.ErrExists.
func (t *tx) insertID(op, sql string, args ...any) (int64, error) {
	if err := t.Writable(); err != nil {
		return 0, err
	}
	var id int64
	err := t.tx.QueryRow(t.ctx, sql, args...).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("postgres: %s: %w", op, storage.ErrExists)
	}
	return id, t.check(op, err)
}

// guarded runs fn, which makes writes, inside a savepoint: when fn fails,
// its writes are undone and the transaction goes on as before, so that a
// unique violation can be reported as ErrExists. Savepoints cost a
// subtransaction each, so only writes that may break a rule the domain
// reacts to are guarded.
func (t *tx) guarded(op string, fn func() error) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if _, err := t.tx.Exec(t.ctx, `SAVEPOINT guard`); err != nil {
		return t.check(op, err)
	}
	err := fn()
	switch {
	case err == nil, t.Failed == nil:
		// Success, or a failure before any statement failed.
		if _, rerr := t.tx.Exec(t.ctx, `RELEASE SAVEPOINT guard`); rerr != nil {
			return t.check(op, rerr)
		}
		return err
	case retryable(t.Failed):
		return err // the transaction is doomed anyway
	}
	t.Failed = nil
	if _, rerr := t.tx.Exec(t.ctx, `ROLLBACK TO SAVEPOINT guard; RELEASE SAVEPOINT guard`); rerr != nil {
		return t.check(op, rerr)
	}
	return err
}

// query runs a read statement and calls scan for each row.
func (t *tx) query(op, sql string, scan func(sqlcommon.Scanner) error, args ...any) error {
	t.statement(sql)
	rows, err := t.tx.Query(t.ctx, sql, args...)
	if err != nil {
		return t.check(op, err)
	}
	defer rows.Close()
	return t.check(op, sqlcommon.EachRow(rows, scan))
}

// list runs a read statement and returns the rows that scan makes of it,
// never nil.
func list[T any](t *tx, op, sql string, scan func(sqlcommon.Scanner) (T, error), args ...any) ([]T, error) {
	out := []T{}
	err := t.query(op, sql, func(rows sqlcommon.Scanner) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// one runs a read statement for one row: none is storage.ErrNotFound.
func one[T any](t *tx, op, sql string, scan func(sqlcommon.Scanner) (T, error), args ...any) (T, error) {
	t.statement(sql)
	v, err := scan(t.tx.QueryRow(t.ctx, sql, args...))
	return v, t.check(op, err)
}
