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
