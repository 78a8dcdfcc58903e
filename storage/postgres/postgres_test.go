package postgres_test

import (
	"context"
	"testing"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
	"github.com/teamchat/chat/storage/storagetest"
)

func open(t testing.TB, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	pgtest.Required(t)
	storagetest.RunWith(t, func(t *testing.T) storage.Store {
		return open(t, pgtest.Schema(t))
	}, storagetest.Options{ConcurrentUpdates: true})
}

// TestConformanceDeferred runs the suite with the rows of every new
// channel message deferred (fanout.go): once settled only by the writes
// that need them, so that every read counts the pending rows in itself,
// and once also by the settler, racing the reads.
func TestConformanceDeferred(t *testing.T) {
	pgtest.Required(t)
	for _, auto := range []bool{false, true} {
		t.Run(map[bool]string{false: "reads merge", true: "settler"}[auto], func(t *testing.T) {
			storagetest.RunWith(t, func(t *testing.T) storage.Store {
				s, err := postgres.OpenDeferred(context.Background(), pgtest.Schema(t), 1, auto)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}, storagetest.Options{ConcurrentUpdates: true})
		})
	}
}
