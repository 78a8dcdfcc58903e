package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// migrationFiles holds the schema migrations, named NNNN_what.sql with
// strictly increasing numbers from 1; migration N brings the schema to
// version N, and the version is PRAGMA user_version. Never edit a
// released migration: add the next one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies the migrations that the database at db lacks, each in its
// own transaction together with the new user_version.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := sqlcommon.Migrations(migrationFiles, "migrations/*.sql")
	if err != nil {
		return err
	}
	return sqlcommon.Migrate(ctx, migrator{db, ms}, ms)
}

// migrator keeps the schema version in PRAGMA user_version.
type migrator struct {
	db *sql.DB
	ms []sqlcommon.Migration
}

// Applied gives every migration up to user_version.
func (m migrator) Applied(ctx context.Context) (map[int]bool, error) {
	var version int
	if err := m.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, err
	}
	have := map[int]bool{}
	if version > 0 {
		have[version] = true
	}
	for _, mig := range m.ms {
		if mig.Version <= version {
			have[mig.Version] = true
		}
	}
	return have, nil
}

func (m migrator) Apply(ctx context.Context, mig sqlcommon.Migration) error {
	tx, err := m.db.BeginTx(ctx, nil) // IMMEDIATE: no one else migrates meanwhile
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version >= mig.Version {
		return nil // another process applied it
	}
	if _, err := tx.ExecContext(ctx, mig.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", mig.Version)); err != nil {
		return err
	}
	return tx.Commit()
}
