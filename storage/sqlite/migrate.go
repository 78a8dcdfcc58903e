package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// migrationFiles holds the schema migrations, named NNNN_what.sql with
// strictly increasing numbers from 1. Numbers may have gaps, since areas
// developed in parallel reserve theirs in advance; migration N brings the
// schema to version N, and the version is PRAGMA user_version. Never edit
// a released migration: add the next one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	out := make([]migration, 0, len(names))
	last := 0
	for _, name := range names { // fs.Glob sorts them
		base := path.Base(name)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || len(num) != 4 || v <= last {
			return nil, fmt.Errorf("migration %s: want a four-digit number above %04d", base, last)
		}
		last = v
		text, err := fs.ReadFile(migrationFiles, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(text)})
	}
	return out, nil
}

// migrate applies the migrations that the database at db lacks, each in its
// own transaction together with the new user_version.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if latest := ms[len(ms)-1].version; version > latest {
		return fmt.Errorf("schema version %d is newer than this program's %d", version, latest)
	}
	for _, m := range ms {
		if m.version <= version {
			continue
		}
		if err := apply(ctx, db, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil) // IMMEDIATE: no one else migrates meanwhile
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= m.version {
		return nil // another process applied it
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return err
	}
	return tx.Commit()
}
