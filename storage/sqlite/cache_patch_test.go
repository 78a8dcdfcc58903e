package sqlite

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// usersVersion reads a realm's users_version.
func usersVersion(t *testing.T, s *Store, realmID int64) int64 {
	t.Helper()
	var v int64
	view(t, s, func(stx storage.Tx) error {
		return stx.(*tx).stmt(qUsersVersion).QueryRowContext(t.Context(), realmID).Scan(&v)
	})
	return v
}

// allUsers reads a realm's users through s.
func allUsers(t *testing.T, s storage.Store, realmID int64) []storage.UserRecord {
	t.Helper()
	var out []storage.UserRecord
	view(t, s, func(tx storage.Tx) (err error) {
		out, err = tx.Users(realmID, nil)
		return err
	})
	return out
}

// TestUsersCachePatched: the writes this process commits move the cached
// user list to the version they leave, so the next read needs no read of
// the whole list, and what it returns is what a fresh read of the file
// returns, record for record, through a random run of creations, updates,
// rollbacks, transactions over two realms and another process's writes.
func TestUsersCachePatched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	other := open(t, path) // another process on the same file
	update(t, s, func(tx storage.Tx) error {
		for i := 1; i <= 2; i++ {
			r := testRealm(i)
			if err := tx.CreateRealm(&r); err != nil {
				return err
			}
		}
		return nil
	})
	zone := time.FixedZone("UTC+2", 2*60*60)
	next := 0
	create := func(tx storage.Tx, realmID int64) error {
		next++
		u := testUser(realmID, next)
		u.DateJoined = u.DateJoined.In(zone) // stored and read back in UTC
		return tx.CreateUser(&u)
	}
	for range 5 {
		update(t, s, func(tx storage.Tx) error { return create(tx, 1) })
	}

	// Fill the cache, then write through s: the cache moves along.
	allUsers(t, s, 1)
	update(t, s, func(tx storage.Tx) error {
		if err := create(tx, 1); err != nil {
			return err
		}
		u, err := tx.User(2)
		if err != nil {
			return err
		}
		u.FullName, u.Role, u.LastLogin = "Renamed", storage.RoleAdmin, t0.In(zone)
		return tx.UpdateUser(u)
	})
	if _, ok := s.cache.get(1, usersVersion(t, s, 1)); !ok {
		t.Fatal("the cache did not move to the version its own commit left")
	}
	if diff := cmp.Diff(allUsers(t, open(t, path), 1), allUsers(t, s, 1)); diff != "" {
		t.Fatalf("patched list against a fresh read (-fresh +patched):\n%s", diff)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	errFail := errors.New("rolled back on purpose")
	for step := range 300 {
		var what string
		var err error
		switch op := rng.IntN(10); {
		case op < 3:
			what = "create"
			err = s.Update(t.Context(), func(tx storage.Tx) error { return create(tx, 1) })
		case op < 6:
			what = "update"
			realm1 := allUsers(t, other, 1)
			id := realm1[rng.IntN(len(realm1))].ID
			err = s.Update(t.Context(), func(tx storage.Tx) error {
				u, err := tx.User(id)
				if err != nil {
					return err
				}
				u.FullName = fmt.Sprintf("Step %d", step)
				u.IsActive = rng.IntN(2) == 0
				if rng.IntN(3) == 0 {
					u.Email = fmt.Sprintf("moved%d@example.com", step)
				}
				return tx.UpdateUser(u)
			})
		case op == 6:
			what = "rolled back"
			err = s.Update(t.Context(), func(tx storage.Tx) error {
				if err := create(tx, 1); err != nil {
					return err
				}
				return errFail
			})
			if errors.Is(err, errFail) {
				err = nil
			}
		case op == 7:
			what = "two realms"
			err = s.Update(t.Context(), func(tx storage.Tx) error {
				if err := create(tx, 1); err != nil {
					return err
				}
				return create(tx, 2)
			})
		case op == 8:
			what = "another process"
			err = other.Update(t.Context(), func(tx storage.Tx) error { return create(tx, 1) })
		default:
			what = "read"
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", step, what, err)
		}
		if rng.IntN(2) == 0 {
			continue // let several writes pile up before a read
		}
		fresh := allUsers(t, open(t, path), 1)
		if diff := cmp.Diff(fresh, allUsers(t, s, 1)); diff != "" {
			t.Fatalf("step %d (%s): cached list against a fresh read (-fresh +cached):\n%s", step, what, diff)
		}
	}
}
