package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// textStmts prepares the statements that the area files run by their SQL
// text (t.exec, t.query) once per pool instead of once per call: parsing
// and planning a statement cost SQLite more than running a single-row
// write. A text seen inside a transaction cannot be prepared on the pool
// there (the writer's only connection is the transaction's), so it runs
// unprepared that time and is prepared before the pool's next
// transaction begins. The texts are constants or combinations of constant
// parts (values always go in as arguments), so the set is bounded.
type textStmts struct {
	mu      sync.RWMutex
	stmts   map[string]*sql.Stmt
	pending map[string]bool
	closed  bool
}

// lookup returns the prepared statement of text, or nil after noting text
// for prepare.
func (c *textStmts) lookup(text string) *sql.Stmt {
	c.mu.RLock()
	st := c.stmts[text]
	known := st != nil || c.pending[text]
	c.mu.RUnlock()
	if !known {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = map[string]bool{}
		}
		c.pending[text] = true
		c.mu.Unlock()
	}
	return st
}

// prepare prepares the noted texts on db, outside any transaction. A text
// that fails to prepare is dropped: running it unprepared reports its
// error where it is used. The mutex is never held while waiting for a
// connection: the writer pool has one, and the transaction holding it may
// be looking up a text at that moment.
func (c *textStmts) prepare(ctx context.Context, db *sql.DB) {
	c.mu.Lock()
	if len(c.pending) == 0 || c.closed {
		c.mu.Unlock()
		return
	}
	texts := make([]string, 0, len(c.pending))
	for text := range c.pending {
		texts = append(texts, text)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, text := range texts {
		st, err := db.PrepareContext(ctx, text)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if c.closed || c.stmts[text] != nil {
			c.mu.Unlock()
			st.Close()
			continue
		}
		if c.stmts == nil {
			c.stmts = map[string]*sql.Stmt{}
		}
		c.stmts[text] = st
		c.mu.Unlock()
	}
}

// close closes the prepared statements; lookups afterwards find none.
func (c *textStmts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts, c.pending = nil, nil
	return errors.Join(errs...)
}

// textStmt returns the statement of text bound to the transaction, or nil
// when it is not prepared yet.
func (t *tx) textStmt(text string) *sql.Stmt {
	st := t.texts.lookup(text)
	if st == nil {
		return nil
	}
	if bound := t.boundTexts[st]; bound != nil {
		return bound
	}
	if t.boundTexts == nil {
		t.boundTexts = map[*sql.Stmt]*sql.Stmt{}
	}
	bound := t.tx.StmtContext(t.ctx, st)
	t.boundTexts[st] = bound
	return bound
}

// execText runs a statement given by its text.
func (t *tx) execText(text string, args ...any) (sql.Result, error) {
	if st := t.textStmt(text); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.tx.ExecContext(t.ctx, text, args...)
}

// queryText runs a query given by its text.
func (t *tx) queryText(text string, args ...any) (*sql.Rows, error) {
	if st := t.textStmt(text); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.tx.QueryContext(t.ctx, text, args...)
}

// queryRowText runs a single-row query given by its text.
func (t *tx) queryRowText(text string, args ...any) *sql.Row {
	if st := t.textStmt(text); st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.tx.QueryRowContext(t.ctx, text, args...)
}
