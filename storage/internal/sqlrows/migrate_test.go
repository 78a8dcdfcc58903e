package sqlrows

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestMigrations(t *testing.T) {
	files := fstest.MapFS{
		"m/0001_init.sql":  {Data: []byte("one")},
		"m/0003_later.sql": {Data: []byte("three")}, // a gap is allowed
		"m/README":         {Data: []byte("not a migration")},
	}
	ms, err := Migrations(files, "m/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := []Migration{{1, "0001_init.sql", "one"}, {3, "0003_later.sql", "three"}}
	if diff := cmp.Diff(want, ms); diff != "" {
		t.Errorf("Migrations (-want +got):\n%s", diff)
	}
	for name, bad := range map[string]string{
		"three digits": "m/001_x.sql",
		"no number":    "m/init.sql",
		"repeated":     "m/0003_again.sql",
	} {
		files := fstest.MapFS{"m/0003_a.sql": {}, bad: {}}
		if _, err := Migrations(files, "m/*.sql"); err == nil {
			t.Errorf("%s: Migrations accepted %s", name, bad)
		}
	}
}

// fakeSchema records what Migrate asks of it.
type fakeSchema struct {
	have    map[int]bool
	applied []int
	fail    int // the version whose Apply fails
}

func (s *fakeSchema) Applied(context.Context) (func(int) bool, int, error) {
	newest := 0
	for v := range s.have {
		newest = max(newest, v)
	}
	return func(v int) bool { return s.have[v] }, newest, nil
}

func (s *fakeSchema) Apply(_ context.Context, m Migration) error {
	if m.Version == s.fail {
		return errors.New("boom")
	}
	s.applied = append(s.applied, m.Version)
	return nil
}

func TestMigrate(t *testing.T) {
	ms := []Migration{{Version: 1, Name: "0001_a.sql"}, {Version: 2, Name: "0002_b.sql"}, {Version: 5, Name: "0005_c.sql"}}
	s := &fakeSchema{have: map[int]bool{2: true}}
	if err := Migrate(context.Background(), s, ms); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 5}, s.applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}

	newer := &fakeSchema{have: map[int]bool{6: true}}
	err := Migrate(context.Background(), newer, ms)
	if err == nil || err.Error() != "schema version 6 is newer than this program's 5" || newer.applied != nil {
		t.Errorf("newer database: err %v, applied %v", err, newer.applied)
	}

	failing := &fakeSchema{have: map[int]bool{}, fail: 2}
	err = Migrate(context.Background(), failing, ms)
	if err == nil || err.Error() != "migration 0002_b.sql: boom" {
		t.Errorf("failing migration: err %v", err)
	}
	if diff := cmp.Diff([]int{1}, failing.applied); diff != "" {
		t.Errorf("applied before the failure (-want +got):\n%s", diff)
	}
}
