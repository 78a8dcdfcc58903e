package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// migrationFiles holds the schema migrations, named NNNN_what.sql with
// increasing numbers; they follow the SQLite backend's for the same area.
// Each applied migration is a row of schema_migrations, so one added later
// with a lower number than the newest applied still runs. Never edit a
// released migration: add the next one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the key of the advisory lock that migrating processes
// hold, so that processes starting together apply each migration once.
const migrationLock = 0x63686174 // "chat"

// migrate applies the migrations that the database lacks, all in one
// transaction with the rows recording them.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := sqlcommon.Migrations(migrationFiles, "migrations/*.sql")
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
		return sqlcommon.Migrate(ctx, migrator{tx}, ms)
	})
}

// migrator records migrations in schema_migrations, inside the one
// transaction that holds the lock.
type migrator struct{ tx pgx.Tx }

func (m migrator) Applied(ctx context.Context) (map[int]bool, error) {
	rows, err := m.tx.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	have := map[int]bool{}
	for _, v := range applied {
		have[int(v)] = true
	}
	return have, nil
}

func (m migrator) Apply(ctx context.Context, mig sqlcommon.Migration) error {
	if _, err := m.tx.Exec(ctx, mig.SQL); err != nil {
		return err
	}
	_, err := m.tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, int64(mig.Version), mig.Name)
	return err
}
