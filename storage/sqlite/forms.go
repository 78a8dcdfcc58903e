package sqlite

import (
	"encoding/json"
	"fmt"

	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// forms reads SQLite's forms of the columns that PostgreSQL stores
// otherwise: booleans are the integers 0 and 1, arrays are JSON text. The
// destinations implement sql.Scanner, which database/sql calls without
// reflection.
var forms sqlcommon.Forms = sqliteForms{}

type sqliteForms struct{}

func (sqliteForms) Bool(p *bool) any          { return (*intBool)(p) }
func (sqliteForms) NullBool(p **bool) any     { return nullIntBool{p} }
func (sqliteForms) NullString(p **string) any { return nullText{p} }
func (sqliteForms) IDs(p *[]int64) any        { return (*jsonList[int64])(p) }
func (sqliteForms) Strings(p *[]string) any   { return (*jsonList[string])(p) }

// intBool scans an integer column into a bool: not 0 is true.
type intBool bool

func (b *intBool) Scan(src any) error {
	n, ok := src.(int64)
	if !ok {
		return fmt.Errorf("sqlite: boolean column holds %T, not an integer", src)
	}
	*b = n != 0
	return nil
}

// nullIntBool scans an integer column or NULL into *p, nil for NULL. As a
// struct of one pointer it goes into an interface without an allocation.
type nullIntBool struct{ p **bool }

func (d nullIntBool) Scan(src any) error {
	if src == nil {
		*d.p = nil
		return nil
	}
	var b bool
	if err := (*intBool)(&b).Scan(src); err != nil {
		return err
	}
	*d.p = &b
	return nil
}

// nullText scans a text column or NULL into *p, nil for NULL.
type nullText struct{ p **string }

func (d nullText) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*d.p = nil
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("sqlite: text column holds %T", src)
	}
	*d.p = &s
	return nil
}

// jsonList scans a JSON array in a text column into a slice.
type jsonList[T any] []T

func (l *jsonList[T]) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return json.Unmarshal([]byte(v), (*[]T)(l))
	case []byte:
		return json.Unmarshal(v, (*[]T)(l))
	}
	return fmt.Errorf("sqlite: JSON column holds %T", src)
}

// into returns a row callback for query and queryQ that appends to out
// what scan, bound to SQLite's forms, makes of each row.
func into[T any](out *[]T, scan func(sqlcommon.Forms, sqlcommon.Scanner) (T, error)) func(scanner) error {
	return sqlcommon.Into(out, func(sc sqlcommon.Scanner) (T, error) { return scan(forms, sc) })
}
