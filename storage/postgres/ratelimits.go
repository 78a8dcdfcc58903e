package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// RateBudgets are request budgets that every process of one database
// shares, so that N processes allow the budget once, not N times. Each key
// is a generic cell rate algorithm (GCRA) cell: its theoretical arrival
// time, one row, moved by one statement per request.
type RateBudgets struct {
	s *Store
}

// RateBudgets returns the store's shared request budgets.
func (s *Store) RateBudgets() *RateBudgets { return &RateBudgets{s: s} }

// Take charges one request to key at now, for a budget of burst requests
// refilled one per interval. It reports whether the request is allowed and
// the key's theoretical arrival time after it (before it, when refused),
// from which the caller derives what is left and when to retry.
func (b *RateBudgets) Take(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (bool, time.Time, error) {
	n := now.UnixNano()
	step := int64(interval)
	limit := step * int64(burst)
	var tat int64
	err := b.s.pool.QueryRow(ctx, `INSERT INTO rate_limits (key, tat) VALUES ($1, $2::bigint + $3::bigint)
		ON CONFLICT (key) DO UPDATE SET tat = GREATEST(rate_limits.tat, $2::bigint) + $3::bigint
		WHERE GREATEST(rate_limits.tat, $2::bigint) + $3::bigint - $2::bigint <= $4::bigint
		RETURNING tat`, key, n, step, limit).Scan(&tat)
	if errors.Is(err, pgx.ErrNoRows) {
		// Refused: read where the budget stands.
		if err := b.s.pool.QueryRow(ctx, `SELECT tat FROM rate_limits WHERE key = $1`, key).Scan(&tat); err != nil {
			return false, time.Time{}, err
		}
		return false, time.Unix(0, tat), nil
	}
	if err != nil {
		return false, time.Time{}, err
	}
	return true, time.Unix(0, tat), nil
}

// Clear forgets key, as after a successful login.
func (b *RateBudgets) Clear(ctx context.Context, key string) error {
	_, err := b.s.pool.Exec(ctx, `DELETE FROM rate_limits WHERE key = $1`, key)
	return err
}

// Sweep removes the budgets that are full again before now, so that the
// table follows the recent clients; servers call it now and then.
func (b *RateBudgets) Sweep(ctx context.Context, now time.Time) error {
	_, err := b.s.pool.Exec(ctx, `DELETE FROM rate_limits WHERE tat < $1`, now.UnixNano())
	return err
}
