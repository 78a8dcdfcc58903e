package sqlite

import (
	"database/sql"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The dialect's destinations, as database/sql hands them the driver's
// values.
func TestDialectDestinations(t *testing.T) {
	var b bool
	for _, c := range []struct {
		src  any
		want bool
	}{{int64(1), true}, {int64(0), false}, {int64(2), true}} {
		if err := forms.Bool(&b).(sql.Scanner).Scan(c.src); err != nil || b != c.want {
			t.Errorf("Bool from %v = %v, %v; want %v", c.src, b, err, c.want)
		}
	}
	if err := forms.Bool(&b).(sql.Scanner).Scan(nil); err == nil {
		t.Error("Bool accepted NULL")
	}

	nb := new(bool)
	if err := forms.NullBool(&nb).(sql.Scanner).Scan(nil); err != nil || nb != nil {
		t.Errorf("NullBool from NULL = %v, %v", nb, err)
	}
	if err := forms.NullBool(&nb).(sql.Scanner).Scan(int64(1)); err != nil || nb == nil || !*nb {
		t.Errorf("NullBool from 1 = %v, %v", nb, err)
	}

	var s *string
	if err := forms.NullString(&s).(sql.Scanner).Scan("x"); err != nil || s == nil || *s != "x" {
		t.Errorf("NullString from x = %v, %v", s, err)
	}
	if err := forms.NullString(&s).(sql.Scanner).Scan(nil); err != nil || s != nil {
		t.Errorf("NullString from NULL = %v, %v", s, err)
	}

	var ids []int64
	if err := forms.IDs(&ids).(sql.Scanner).Scan("[3,1]"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{3, 1}, ids); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
	var strs []string
	if err := forms.Strings(&strs).(sql.Scanner).Scan([]byte(`["a"]`)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, strs); diff != "" {
		t.Errorf("Strings (-want +got):\n%s", diff)
	}
	if err := forms.IDs(&ids).(sql.Scanner).Scan(int64(1)); err == nil {
		t.Error("IDs accepted an integer")
	}
}
