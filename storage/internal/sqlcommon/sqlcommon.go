// Package sqlcommon holds what the SQL backends (storage/sqlite and
// storage/postgres) share: the column lists their statements read, the
// conversions of values both store alike, the row scanners, a
// transaction's failure state (TxState), and the migration runner. Where
// the dialects store a column differently (booleans as integers and arrays
// as JSON text in SQLite), a scanner takes its destination from the
// backend's Forms; what else differs (placeholders, locking, statements)
// stays in each backend.
package sqlcommon

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/teamchat/chat/storage"
)

// Scanner reads one row: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows are
// Scanners.
type Scanner interface {
	Scan(dest ...any) error
}

// Rows is a result being read: *sql.Rows and pgx.Rows are Rows.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// EachRow calls scan for each row of rows, stopping at the first error.
// The caller closes rows.
func EachRow(rows Rows, scan func(Scanner) error) error {
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Times are stored as Unix nanoseconds, 0 for the zero time.

// ToNanos returns the column value of a time.
func ToNanos(tm time.Time) (int64, error) {
	if tm.IsZero() {
		return 0, nil
	}
	n := tm.UnixNano()
	if !time.Unix(0, n).Equal(tm) {
		return 0, fmt.Errorf("storage: time %v out of range", tm)
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

// GroupSettingText is the column value of a group setting: its JSON form.
func GroupSettingText(v storage.GroupSetting) string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// UserGroupSettingsText is the stored JSON of a group's settings.
func UserGroupSettingsText(s storage.UserGroupSettings) string {
	b, _ := json.Marshal(s)
	return string(b)
}
