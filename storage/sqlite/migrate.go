package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/teamchat/chat/storage/internal/sqlrows"
)

// migrationFiles holds the schema migrations, named NNNN_what.sql with
// strictly increasing numbers from 1. Numbers may have gaps, since areas
// developed in parallel reserve theirs in advance; migration N brings the
// schema to version N, and the version is PRAGMA user_version. Never edit
// a released migration: add the next one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the embedded migrations in order.
func migrations() ([]sqlrows.Migration, error) {
	return sqlrows.Migrations(migrationFiles, "migrations/*.sql")
}

// migrate applies the migrations that the database at db lacks, each in its
// own transaction together with the new user_version.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return sqlrows.Migrate(ctx, userVersion{db}, ms)
}

// userVersion records the schema version as PRAGMA user_version: the
// migrations up to it are applied.
type userVersion struct{ db *sql.DB }

func (s userVersion) Applied(ctx context.Context) (func(int) bool, int, error) {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, 0, fmt.Errorf("read schema version: %w", err)
	}
	return func(v int) bool { return v <= version }, version, nil
}

func (s userVersion) Apply(ctx context.Context, m sqlrows.Migration) error {
	tx, err := s.db.BeginTx(ctx, nil) // IMMEDIATE: no one else migrates meanwhile
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= m.Version {
		return nil // another process applied it
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
		return err
	}
	return tx.Commit()
}
