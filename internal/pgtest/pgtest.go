// Package pgtest gives tests a PostgreSQL schema of their own, in the
// database named by the CHAT_TEST_POSTGRES_DSN environment variable
// (scripts/with-postgres.sh starts a throwaway server and sets it).
//
// Without the variable, tests that need PostgreSQL skip, except in CI
// (CI=true), where its absence fails them: a CI run must never pass by
// skipping the PostgreSQL suite.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN is the environment variable that names the test database.
const EnvDSN = "CHAT_TEST_POSTGRES_DSN"

// Available reports whether the test database is configured.
func Available() bool { return os.Getenv(EnvDSN) != "" }

// InCI reports whether the tests run in CI, where the PostgreSQL tests
// must run.
func InCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// Required fails the test in CI and skips it elsewhere when the test
// database is not configured, and returns its DSN otherwise.
func Required(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn != "" {
		return dsn
	}
	if InCI() {
		t.Fatalf("%s is not set: CI must run the PostgreSQL tests (run them under scripts/with-postgres.sh)", EnvDSN)
	}
	t.Skipf("%s is not set: skipping the PostgreSQL tests (run `scripts/with-postgres.sh go test ./...` to include them)", EnvDSN)
	return ""
}

// Schema creates an empty schema, dropped when the test ends, and returns
// a DSN whose connections use it as their search_path.
func Schema(t testing.TB) string {
	t.Helper()
	dsn := Required(t)
	var b [6]byte
	rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", EnvDSN, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("pgtest: connect to drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return WithSearchPath(dsn, name)
}

// WithSearchPath returns dsn with the search_path runtime parameter set to
// schema.
func WithSearchPath(dsn, schema string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn) + " search_path=" + schema
}
