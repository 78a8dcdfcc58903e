package sqlcommon

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one schema migration: a file NNNN_what.sql.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations reads the migrations of fsys matching pattern, in order.
// Their numbers are four digits and increase; they may have gaps, since
// areas developed in parallel reserve theirs in advance.
func Migrations(fsys fs.FS, pattern string) ([]Migration, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	out := make([]Migration, 0, len(names))
	last := 0
	for _, name := range names { // fs.Glob sorts them
		base := path.Base(name)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || len(num) != 4 || v <= last {
			return nil, fmt.Errorf("migration %s: want a four-digit number above %04d", base, last)
		}
		last = v
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(text)})
	}
	return out, nil
}

// Dialect is how one database records and applies migrations.
type Dialect interface {
	// Applied returns the versions the database has.
	Applied(ctx context.Context) (map[int]bool, error)
	// Apply runs m and records it, unless another process did meanwhile.
	Apply(ctx context.Context, m Migration) error
}

// Migrate applies the migrations of ms that the database of d lacks, in
// order. It refuses a database with a version newer than the newest of
// ms: an older program must not write a newer schema.
func Migrate(ctx context.Context, d Dialect, ms []Migration) error {
	have, err := d.Applied(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := ms[len(ms)-1].Version
	for v := range have {
		if v > latest {
			return fmt.Errorf("schema version %d is newer than this program's %d", v, latest)
		}
	}
	for _, m := range ms {
		if have[m.Version] {
			continue
		}
		if err := d.Apply(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}
