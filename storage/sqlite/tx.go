package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// tx is a storage.Tx over one database/sql transaction.
type tx struct {
	ctx     context.Context
	tx      *sql.Tx
	cache   *usersCache
	queries *atomic.Int64
	stmts   *stmts
	txStmts stmts // the statements of stmts bound to tx, made on first use
	// texts holds the pool's statements run by text; boundTexts those
	// bound to tx.
	texts      *textStmts
	boundTexts map[*sql.Stmt]*sql.Stmt
	readOnly   bool
	// rows is the writer's cache of the rows write transactions read
	// (rowcache.go), nil in a View.
	rows *rowCache
	// failed is the first storage failure, after which SQLite may have
	// rolled the transaction back on its own: Update must not commit.
	failed error
}

// stmt returns the prepared statement q bound to the transaction, and
// counts one query: every use of a statement goes through here.
func (t *tx) stmt(q query) *sql.Stmt {
	t.queries.Add(1)
	if st := t.txStmts[q]; st != nil {
		return st
	}
	st := t.tx.StmtContext(t.ctx, t.stmts[q])
	t.txStmts[q] = st
	return st
}

// check returns the error to give for err, the result of operation op:
// sql.ErrNoRows becomes storage.ErrNotFound and uniqueness violations
// storage.ErrExists. Constraint violations undo only their own statement;
// any other failure (I/O, interruption by the context, ...) may have rolled
// back the whole transaction, so it marks the transaction failed.
func (t *tx) check(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return storage.ErrNotFound
	case isUniqueViolation(err):
		return fmt.Errorf("sqlite: %s: %w: %w", op, storage.ErrExists, err)
	}
	err = fmt.Errorf("sqlite: %s: %w", op, err)
	if t.failed == nil && !isConstraintViolation(err) {
		t.failed = err
	}
	return err
}

// writable returns storage.ErrReadOnly in a View, and the earlier failure of a
// broken transaction.
func (t *tx) writable() error {
	if t.readOnly {
		return storage.ErrReadOnly
	}
	return t.failed
}

// Conversions.

type scanner = sqlcommon.Scanner

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Realms.

// Users.
