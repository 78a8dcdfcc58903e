// Package backends opens an empty store of every storage implementation,
// for tests that must pass on each of them.
package backends

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/postgres"
	"github.com/teamchat/chat/storage/sqlite"
	"github.com/teamchat/chat/storage/storagetest"
)

// Backend opens an empty store of one storage implementation.
type Backend struct {
	Name string
	Open func(t *testing.T) storage.Store
}

// All lists every storage implementation: memory, memory with the optional
// queries of the SPI derived, SQLite, and PostgreSQL when a test database
// is configured, and always in CI, where a missing one fails the tests
// (see pgtest).
func All() []Backend {
	out := []Backend{
		{"memory", func(t *testing.T) storage.Store { return memory.New() }},
		{"memory-required-only", func(t *testing.T) storage.Store { return storagetest.RequiredOnly(memory.New()) }},
		{"sqlite", func(t *testing.T) storage.Store {
			t.Helper()
			st, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
			if err != nil {
				t.Fatalf("sqlite.Open: %v", err)
			}
			return st
		}},
	}
	if pgtest.Available() || pgtest.InCI() {
		out = append(out, Backend{"postgres", func(t *testing.T) storage.Store {
			t.Helper()
			st, err := postgres.Open(context.Background(), pgtest.Schema(t))
			if err != nil {
				t.Fatalf("postgres.Open: %v", err)
			}
			return st
		}})
	}
	return out
}

// ForEach runs fn once per storage backend, as a subtest named after the
// backend. newStore opens a fresh, empty store that is closed when the
// test that opened it ends.
func ForEach(t *testing.T, fn func(t *testing.T, newStore func(t *testing.T) storage.Store)) {
	t.Helper()
	for _, b := range All() {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, func(t *testing.T) storage.Store {
				t.Helper()
				st := b.Open(t)
				t.Cleanup(func() {
					if err := st.Close(); err != nil {
						t.Errorf("closing the %s store: %v", b.Name, err)
					}
				})
				return st
			})
		})
	}
}
