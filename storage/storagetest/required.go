package storagetest

import (
	"context"

	"github.com/teamchat/chat/storage"
)

// RequiredOnly wraps st so that its transactions offer only the methods
// of storage.Tx, hiding the optional queries the backend implements: the
// code that uses the store then runs on their derivations. A backend's
// tests can pass it to Run, and a domain's tests can run on it.
func RequiredOnly(st storage.Store) storage.Store { return requiredOnly{st} }

type requiredOnly struct{ storage.Store }

// requiredTx has the method set of storage.Tx and no other.
type requiredTx struct{ storage.Tx }

func (s requiredOnly) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(requiredTx{tx}) })
}

func (s requiredOnly) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error { return fn(requiredTx{tx}) })
}
