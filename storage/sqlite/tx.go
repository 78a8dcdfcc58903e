package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// tx is a storage.Tx over one database/sql transaction.
type tx struct {
	ctx   context.Context
	tx    *sql.Tx
	cache *realmCache[storage.UserRecord]
	// channelCache keeps the realms' channel lists (cache.go).
	channelCache *realmCache[storage.Channel]
	queries      *atomic.Int64
	stmts        *stmts
	txStmts      stmts // the statements of stmts bound to tx, made on first use
	// texts holds the pool's statements run by text; boundTexts those
	// bound to tx.
	texts      *textStmts
	boundTexts map[*sql.Stmt]*sql.Stmt
	// rows is the writer's cache of the rows write transactions read
	// (rowcache.go), nil in a View.
	rows *rowCache
	// userWrites are the users this write transaction wrote, for the
	// user-list cache once it commits (usersWrite); nil when none.
	userWrites *usersWrite
	// fresh are the messages this transaction created and wrote no
	// user's row for yet, true for those to a channel, whose rows may be
	// deferred; deferMin is the store's (fanout.go).
	fresh    map[int64]bool
	deferMin int
	// settled says no row is pending in a write transaction; deferred
	// that this one deferred rows. A read transaction keeps the pending
	// rows of its snapshot once read (pendingRead).
	settled, deferred bool
	pending           pendingRows
	pendingRead       bool
	// TxState's Failed is the first storage failure, after which SQLite
	// may have rolled the transaction back on its own.
	sqlcommon.TxState
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

// driverErrors are SQLite's: constraint violations undo only their own
// statement; any other failure (I/O, interruption by the context, ...) may
// have rolled back the whole transaction.
var driverErrors = sqlcommon.Errors{
	Prefix: "sqlite",
	NoRows: sql.ErrNoRows,
	Unique: isUniqueViolation,
	Aborts: func(err error) bool { return !isConstraintViolation(err) },
}

// check returns the error to give for err, the result of operation op
// (sqlcommon.TxState.Check).
func (t *tx) check(op string, err error) error { return t.Check(&driverErrors, op, err) }

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
