package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/sqlite"
)

// TestWriterRowCache checks the cache of realm and user rows that write
// transactions read: it saves the statements of repeated reads, and never
// returns a row that another connection (another process) changed, that a
// rolled-back transaction wrote, or that the transaction itself replaced.
func TestWriterRowCache(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	s1, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	s2, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()

	var realm chat.Realm
	var user chat.UserRecord
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s1.Update(ctx, func(tx chat.Tx) error {
		realm = chat.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		user = chat.UserRecord{RealmID: realm.ID, Email: "u@example.com", FullName: "Before", IsActive: true, APIKey: "key-1"}
		return tx.CreateUser(&user)
	}))
	// names reads the user's and the realm's names in a write
	// transaction of s and returns them with the statements it ran.
	names := func(s *sqlite.Store) (string, string, int64) {
		t.Helper()
		var un, rn string
		before := s.QueryCount()
		must(s.Update(ctx, func(tx chat.Tx) error {
			u, err := tx.User(user.ID)
			if err != nil {
				return err
			}
			r, err := tx.Realm(realm.ID)
			un, rn = u.FullName, r.Name
			return err
		}))
		return un, rn, s.QueryCount() - before
	}
	expect := func(when, wantUser, wantRealm string, wantQueries int64) {
		t.Helper()
		un, rn, q := names(s1)
		if un != wantUser || rn != wantRealm || q != wantQueries {
			t.Errorf("%s: user %q, realm %q, %d statements; want %q, %q, %d", when, un, rn, q, wantUser, wantRealm, wantQueries)
		}
	}
	expect("first read", "Before", "Org", 2)
	expect("second read", "Before", "Org", 0)

	// Another connection changes both rows.
	must(s2.Update(ctx, func(tx chat.Tx) error {
		u, err := tx.User(user.ID)
		if err != nil {
			return err
		}
		u.FullName = "Elsewhere"
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		r, err := tx.Realm(realm.ID)
		if err != nil {
			return err
		}
		r.Name = "Renamed Elsewhere"
		return tx.UpdateRealm(r)
	}))
	expect("after another connection's commit", "Elsewhere", "Renamed Elsewhere", 2)
	expect("read again", "Elsewhere", "Renamed Elsewhere", 0)

	// A transaction that reads, writes, reads its own write and rolls back.
	rollback := errors.New("rolled back")
	err = s1.Update(ctx, func(tx chat.Tx) error {
		u, err := tx.User(user.ID)
		if err != nil {
			return err
		}
		u.FullName = "Never committed"
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		if got, err := tx.User(user.ID); err != nil || got.FullName != "Never committed" {
			t.Errorf("User after its own update = %q, %v; want %q", got.FullName, err, "Never committed")
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Update = %v, want the rollback", err)
	}
	// The user it wrote is read again; the realm it did not write is not.
	expect("after a rolled-back write", "Elsewhere", "Renamed Elsewhere", 1)
	expect("read again", "Elsewhere", "Renamed Elsewhere", 0)

	// A committed write of this connection is read back.
	must(s1.Update(ctx, func(tx chat.Tx) error {
		r, err := tx.Realm(realm.ID)
		if err != nil {
			return err
		}
		r.Name = "Renamed Here"
		return tx.UpdateRealm(r)
	}))
	expect("after its own commit", "Elsewhere", "Renamed Here", 1)
	expect("read again", "Elsewhere", "Renamed Here", 0)

	// A user this connection updated is kept as a read would return it,
	// once committed: the time in another zone comes back in UTC.
	berlin := time.FixedZone("CET", 3600)
	must(s1.Update(ctx, func(tx chat.Tx) error {
		u, err := tx.User(user.ID)
		if err != nil {
			return err
		}
		u.FullName = "Updated Here"
		u.DateJoined = time.Date(2025, 3, 30, 14, 34, 56, 789, berlin)
		u.Status = chat.UserStatus{Text: "busy", EmojiName: "car", EmojiCode: "1f697", ReactionType: chat.UnicodeEmoji}
		return tx.UpdateUser(u)
	}))
	expect("after its own user update", "Updated Here", "Renamed Here", 0)
	var cached, fresh chat.UserRecord
	must(s1.Update(ctx, func(tx chat.Tx) (err error) { cached, err = tx.User(user.ID); return err }))
	must(s1.View(ctx, func(tx chat.Tx) (err error) { fresh, err = tx.User(user.ID); return err }))
	if cached != fresh || cached.DateJoined.Location() != time.UTC {
		t.Errorf("cached user after an update = %+v, want what a read gives: %+v", cached, fresh)
	}

	// Read transactions never use the writer's rows.
	must(s2.Update(ctx, func(tx chat.Tx) error {
		u, _ := tx.User(user.ID)
		u.FullName = "Third"
		return tx.UpdateUser(u)
	}))
	must(s1.View(ctx, func(tx chat.Tx) error {
		u, err := tx.User(user.ID)
		if err == nil && u.FullName != "Third" {
			t.Errorf("View: user %q, want %q", u.FullName, "Third")
		}
		return err
	}))
	expect("after the third change", "Third", "Renamed Here", 2)
}
