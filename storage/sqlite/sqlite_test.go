package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/sqlite"
	"github.com/teamchat/chat/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
