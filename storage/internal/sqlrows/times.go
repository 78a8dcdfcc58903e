package sqlrows

import (
	"fmt"
	"time"
)

// Times are stored as Unix nanoseconds, 0 for the zero time.

// ToNanos returns the column value of a time; a time that nanoseconds
// since 1970 in an int64 cannot hold is an error.
func ToNanos(tm time.Time) (int64, error) {
	if tm.IsZero() {
		return 0, nil
	}
	n := tm.UnixNano()
	if !time.Unix(0, n).Equal(tm) {
		return 0, fmt.Errorf("time %v out of range", tm)
	}
	return n, nil
}

// FromNanos is the inverse of ToNanos, giving UTC times.
func FromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Nanos2 returns the column values of two times, for the rows that have
// two (a user's joining and last login, a presence's activity and
// connection).
func Nanos2(a, b time.Time) (int64, int64, error) {
	an, err := ToNanos(a)
	if err != nil {
		return 0, 0, err
	}
	bn, err := ToNanos(b)
	return an, bn, err
}

// OrEmpty returns s, or an empty slice for nil: array columns are NOT
// NULL, and records read back have empty lists rather than nil.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
