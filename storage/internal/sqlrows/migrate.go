package sqlrows

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one schema migration: the file NNNN_what.sql.
type Migration struct {
	Version int    // NNNN
	Name    string // the file's name
	SQL     string // its text
}

// Migrations returns the migrations of files matching pattern, in order of
// their numbers. The numbers have four digits and increase; they may have
// gaps, since areas developed in parallel reserve theirs in advance.
func Migrations(files fs.FS, pattern string) ([]Migration, error) {
	names, err := fs.Glob(files, pattern)
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
		text, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(text)})
	}
	return out, nil
}

// Schema is how one database records its migrations: what differs between
// the backends' migrating. Any locking against processes migrating at the
// same time is the Schema's (or its caller's) business.
type Schema interface {
	// Applied returns which migrations the database has and the newest
	// version it has (0 for none).
	Applied(ctx context.Context) (has func(version int) bool, newest int, err error)
	// Apply runs m and records it as applied; it does nothing when another
	// process applied m meanwhile.
	Apply(ctx context.Context, m Migration) error
}

// Migrate applies to s the migrations of ms that it lacks, in order. A
// database with a version newer than the newest of ms is refused.
func Migrate(ctx context.Context, s Schema, ms []Migration) error {
	has, newest, err := s.Applied(ctx)
	if err != nil {
		return err
	}
	if latest := ms[len(ms)-1].Version; newest > latest {
		return fmt.Errorf("schema version %d is newer than this program's %d", newest, latest)
	}
	for _, m := range ms {
		if has(m.Version) {
			continue
		}
		if err := s.Apply(ctx, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}
