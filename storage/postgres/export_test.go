package postgres

import "context"

// OpenDeferred is Open with every new channel message's rows deferred
// (deferMin 1), settled by the settler only when autoSettle is set.
func OpenDeferred(ctx context.Context, dsn string, deferMin int, autoSettle bool) (*Store, error) {
	return openStore(ctx, dsn, deferMin, autoSettle)
}
