package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teamchat/chat/storage"
)

// BenchmarkScanUsers reads 1000 users a View with a query that no cache
// answers, so that it measures the statement and the row scanner.
func BenchmarkScanUsers(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "chat.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var realmID int64
	err = s.Update(context.Background(), func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		realmID = r.ID
		for i := range 1000 {
			u := testUser(r.ID, i)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		err := s.View(context.Background(), func(tx storage.Tx) error {
			us, err := tx.(storage.UsersByRoleTx).UsersByRole(realmID, storage.RoleMember)
			if err == nil && len(us) != 1000 {
				b.Fatalf("%d users", len(us))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
