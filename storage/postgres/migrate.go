package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationFiles holds the schema migrations, named NNNN_what.sql with
// increasing numbers. Numbers may have gaps, since areas developed in
// parallel reserve theirs in advance, and they follow the SQLite backend's
// for the same area. Each applied migration is a row of schema_migrations,
// so one added later with a lower number than the newest applied still
// runs. Never edit a released migration: add the next one.
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

// migrationLock is the key of the advisory lock that migrating processes
// hold, so that processes starting together apply each migration once.
const migrationLock = 0x63686174 // "chat"

// migrate applies the migrations that the database lacks, all in one
// transaction with the rows recording them.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The lock is per database: schemas beside this one wait too, which
		// costs a moment at startup only.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return fmt.Errorf("lock for migrations: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		have := map[int64]bool{}
		for _, v := range applied {
			have[v] = true
		}
		latest := int64(ms[len(ms)-1].version)
		for _, v := range applied {
			if v > latest {
				return fmt.Errorf("schema version %d is newer than this program's %d", v, latest)
			}
		}
		for _, m := range ms {
			if have[int64(m.version)] {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`,
				int64(m.version), m.name); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}
