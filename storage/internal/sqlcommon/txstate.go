package sqlcommon

import (
	"errors"
	"fmt"

	"github.com/teamchat/chat/storage"
)

// TxState is what a transaction of either backend remembers between its
// statements.
type TxState struct {
	ReadOnly bool // a View
	// Failed is the first storage failure that may have rolled the
	// transaction back: Update must not commit after it.
	Failed error
}

// Writable returns storage.ErrReadOnly in a View, and the earlier failure
// of a broken transaction.
func (s *TxState) Writable() error {
	if s.ReadOnly {
		return storage.ErrReadOnly
	}
	return s.Failed
}

// Errors tells one driver's errors apart.
type Errors struct {
	Prefix string           // of the error texts: the backend's name
	NoRows error            // what a query for one row returns when none matched
	Unique func(error) bool // reports a uniqueness violation
	// Aborts reports whether a failure may have rolled back the whole
	// transaction, rather than only its statement.
	Aborts func(error) bool
}

// Check returns the error to give for err, the result of operation op: the
// driver's NoRows becomes storage.ErrNotFound and a uniqueness violation
// wraps storage.ErrExists. A failure that aborts the transaction is
// recorded in s.Failed unless an earlier one is.
func (s *TxState) Check(e *Errors, op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, e.NoRows):
		return storage.ErrNotFound
	}
	if e.Unique(err) {
		err = fmt.Errorf("%s: %s: %w: %w", e.Prefix, op, storage.ErrExists, err)
	} else {
		err = fmt.Errorf("%s: %s: %w", e.Prefix, op, err)
	}
	if s.Failed == nil && e.Aborts(err) {
		s.Failed = err
	}
	return err
}
