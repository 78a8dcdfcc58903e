package sqlcommon

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestMigrations(t *testing.T) {
	ms, err := Migrations(fstest.MapFS{
		"m/0003_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/notes.txt":  {Data: []byte("not a migration")},
	}, "m/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0] != (Migration{1, "0001_a.sql", "A"}) || ms[1] != (Migration{3, "0003_b.sql", "B"}) {
		t.Errorf("Migrations = %v", ms)
	}
	for _, bad := range []string{"m/1_short.sql", "m/000x_letters.sql", "m/0001_again.sql"} {
		fsys := fstest.MapFS{"m/0001_a.sql": {Data: []byte("A")}, bad: {Data: []byte("X")}}
		if _, err := Migrations(fsys, "m/*.sql"); err == nil || !strings.Contains(err.Error(), "want a four-digit number") {
			t.Errorf("Migrations with %s: %v", bad, err)
		}
	}
}

// fakeDialect records what Migrate applies.
type fakeDialect struct {
	have    map[int]bool
	applied []string
}

func (d *fakeDialect) Applied(context.Context) (map[int]bool, error) { return d.have, nil }
func (d *fakeDialect) Apply(_ context.Context, m Migration) error {
	d.applied = append(d.applied, m.Name)
	return nil
}

func TestMigrate(t *testing.T) {
	ms := []Migration{{1, "0001_a.sql", "A"}, {2, "0002_b.sql", "B"}, {5, "0005_c.sql", "C"}}
	d := &fakeDialect{have: map[int]bool{2: true}}
	if err := Migrate(context.Background(), d, ms); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.applied, " "); got != "0001_a.sql 0005_c.sql" {
		t.Errorf("applied %s, want the two missing ones in order", got)
	}
	d = &fakeDialect{have: map[int]bool{6: true}}
	if err := Migrate(context.Background(), d, ms); err == nil || !strings.Contains(err.Error(), "newer than this program's 5") {
		t.Errorf("Migrate on a newer schema: %v", err)
	}
	if len(d.applied) != 0 {
		t.Errorf("a newer schema got %v", d.applied)
	}
}

func TestNanos(t *testing.T) {
	if n, err := ToNanos(time.Time{}); n != 0 || err != nil || !FromNanos(0).IsZero() {
		t.Errorf("the zero time is stored as 0: %d, %v", n, err)
	}
	tm := time.Date(2025, 3, 30, 14, 34, 56, 789123456, time.FixedZone("CEST", 2*3600))
	n, err := ToNanos(tm)
	if err != nil || !FromNanos(n).Equal(tm) || FromNanos(n).Location() != time.UTC {
		t.Errorf("round trip of %v: %v, %v", tm, FromNanos(n), err)
	}
	if _, err := ToNanos(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("a time past 2262 is stored")
	}
}
