package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// names lists the full names of the realm's users as a View reads them.
func names(t *testing.T, s storage.Store, realmID int64, ids []int64) []string {
	t.Helper()
	var out []string
	view(t, s, func(tx storage.Tx) error {
		users, err := tx.Users(realmID, ids)
		for _, u := range users {
			out = append(out, u.FullName)
		}
		return err
	})
	return out
}

func checkNames(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func rename(t *testing.T, s storage.Store, id int64, name string, fail bool) {
	t.Helper()
	errFail := errors.New("fail on purpose")
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		u, err := tx.User(id)
		if err != nil {
			return err
		}
		u.FullName = name
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		if fail {
			return errFail
		}
		return nil
	})
	if fail && !errors.Is(err, errFail) || !fail && err != nil {
		t.Fatalf("rename: %v", err)
	}
}

// TestUsersCache checks that the cached user lists never show anything but
// what an uncached read would: after commits, rollbacks, writes of another
// Store on the same file, and inside a transaction's own writes.
func TestUsersCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	update(t, s, func(tx storage.Tx) error {
		for i := 1; i <= 2; i++ {
			r := testRealm(i)
			if err := tx.CreateRealm(&r); err != nil {
				return err
			}
		}
		for i := 1; i <= 3; i++ {
			u := testUser(1, i)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
		}
		u := testUser(2, 4)
		return tx.CreateUser(&u)
	})
	checkNames(t, "first read", names(t, s, 1, nil), "User 1", "User 2", "User 3")
	checkNames(t, "cached read", names(t, s, 1, nil), "User 1", "User 2", "User 3")
	checkNames(t, "cached subset", names(t, s, 1, []int64{3, 99, 1, 3, 4}), "User 1", "User 3")
	if _, ok := s.cache.get(1, 3); !ok {
		t.Errorf("realm 1 at version 3 is not cached")
	}

	rename(t, s, 2, "Renamed", false)
	checkNames(t, "after a commit", names(t, s, 1, nil), "User 1", "Renamed", "User 3")

	rename(t, s, 2, "Rolled back", true)
	checkNames(t, "after a rollback", names(t, s, 1, nil), "User 1", "Renamed", "User 3")
	checkNames(t, "other realm", names(t, s, 2, nil), "User 4")

	// Another Store on the same file stands for another process.
	other := open(t, path)
	rename(t, other, 3, "From elsewhere", false)
	checkNames(t, "after another store's commit", names(t, s, 1, nil), "User 1", "Renamed", "From elsewhere")

	// A transaction sees its own writes, and what it read is not cached.
	update(t, s, func(tx storage.Tx) error {
		u, err := tx.User(1)
		if err != nil {
			return err
		}
		u.FullName = "Inside"
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		users, err := tx.Users(1, nil)
		if err != nil {
			return err
		}
		if users[0].FullName != "Inside" {
			t.Errorf("transaction does not see its own write: %q", users[0].FullName)
		}
		return nil
	})
	checkNames(t, "after the write", names(t, s, 1, nil), "Inside", "Renamed", "From elsewhere")

	// Changing a returned list leaves the cache alone.
	view(t, s, func(tx storage.Tx) error {
		users, err := tx.Users(1, nil)
		users[0].FullName = "Scribbled"
		return err
	})
	checkNames(t, "after changing a returned list", names(t, s, 1, nil), "Inside", "Renamed", "From elsewhere")

	checkNames(t, "unknown realm", names(t, s, 99, nil))

	// A list read inside a transaction that rolls back must not be served
	// later, when another commit reaches the same version.
	errFail := errors.New("fail on purpose")
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		u, _ := tx.User(2)
		u.FullName = "Ghost"
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		if _, err := tx.Users(1, nil); err != nil {
			return err
		}
		return errFail
	})
	if !errors.Is(err, errFail) {
		t.Fatal(err)
	}
	rename(t, s, 2, "Real", false)
	checkNames(t, "after a rolled-back read", names(t, s, 1, nil), "Inside", "Real", "From elsewhere")
}

// channelNames lists the names of the realm's channels as a View reads
// them.
func channelNames(t *testing.T, s storage.Store, realmID int64) []string {
	t.Helper()
	var out []string
	view(t, s, func(tx storage.Tx) error {
		channels, err := tx.Channels(realmID)
		for _, c := range channels {
			out = append(out, c.Name)
		}
		return err
	})
	return out
}

func renameChannel(t *testing.T, s storage.Store, id int64, name string, fail bool) {
	t.Helper()
	errFail := errors.New("fail on purpose")
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		c, err := tx.Channel(id)
		if err != nil {
			return err
		}
		c.Name = name
		if err := tx.UpdateChannel(c); err != nil {
			return err
		}
		if fail {
			return errFail
		}
		return nil
	})
	if fail && !errors.Is(err, errFail) || !fail && err != nil {
		t.Fatalf("renameChannel: %v", err)
	}
}

// TestChannelsCache checks that the cached channel lists never show
// anything but what an uncached read would: after commits, rollbacks,
// writes of another Store on the same file, inside a transaction's own
// writes, and after a caller changed a returned channel's group setting.
func TestChannelsCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	var ids []int64
	update(t, s, func(tx storage.Tx) error {
		for i := 1; i <= 2; i++ {
			r := testRealm(i)
			if err := tx.CreateRealm(&r); err != nil {
				return err
			}
		}
		var cs []*storage.Channel
		for i, realm := range []int64{1, 1, 2} {
			cs = append(cs, &storage.Channel{RealmID: realm, Name: fmt.Sprintf("Channel %d", i+1),
				CanAdministerChannelGroup: storage.GroupSetting{Members: []int64{7}, Subgroups: []int64{}}})
		}
		if err := tx.CreateChannels(cs); err != nil {
			return err
		}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return nil
	})
	checkNames(t, "first read", channelNames(t, s, 1), "Channel 1", "Channel 2")
	checkNames(t, "cached read", channelNames(t, s, 1), "Channel 1", "Channel 2")
	var version int64
	view(t, s, func(stx storage.Tx) error {
		return stx.(*tx).stmt(qChannelsVersion).QueryRowContext(t.Context(), 1).Scan(&version)
	})
	if _, ok := s.channels.get(1, version); !ok {
		t.Errorf("realm 1 at version %d is not cached", version)
	}

	renameChannel(t, s, ids[1], "Renamed", false)
	checkNames(t, "after a commit", channelNames(t, s, 1), "Channel 1", "Renamed")
	renameChannel(t, s, ids[1], "Rolled back", true)
	checkNames(t, "after a rollback", channelNames(t, s, 1), "Channel 1", "Renamed")
	checkNames(t, "other realm", channelNames(t, s, 2), "Channel 3")

	// Another Store on the same file stands for another process.
	other := open(t, path)
	renameChannel(t, other, ids[0], "From elsewhere", false)
	checkNames(t, "after another store's commit", channelNames(t, s, 1), "From elsewhere", "Renamed")

	// A transaction sees its own writes, and what it read is not cached.
	update(t, s, func(tx storage.Tx) error {
		c, err := tx.Channel(ids[0])
		if err != nil {
			return err
		}
		c.Name = "Inside"
		if err := tx.UpdateChannel(c); err != nil {
			return err
		}
		channels, err := tx.Channels(1)
		if err != nil {
			return err
		}
		if channels[0].Name != "Inside" {
			t.Errorf("transaction does not see its own write: %q", channels[0].Name)
		}
		return nil
	})
	checkNames(t, "after the write", channelNames(t, s, 1), "Inside", "Renamed")

	// Changing a returned list, down to a group setting's members, leaves
	// the cache alone.
	view(t, s, func(tx storage.Tx) error {
		channels, err := tx.Channels(1)
		channels[0].Name = "Scribbled"
		channels[0].CanAdministerChannelGroup.Members[0] = 99
		return err
	})
	view(t, s, func(tx storage.Tx) error {
		channels, err := tx.Channels(1)
		if err == nil && (channels[0].Name != "Inside" || channels[0].CanAdministerChannelGroup.Members[0] != 7) {
			t.Errorf("after changing a returned list: %+v", channels[0])
		}
		return err
	})
	checkNames(t, "unknown realm", channelNames(t, s, 99))
}

// TestUsersCacheFilledByManyIDs: a read of many users of one realm (the
// checks of a round of long-polls) reads the realm's whole list into the
// cache and answers from it after; a read of a few reads those alone.
// What it answers is what an uncached read would, after another store's
// write too.
func TestUsersCacheFilledByManyIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	var ids []int64
	var want []string
	update(t, s, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		for i := 1; i <= usersLoadMin+8; i++ {
			u := testUser(1, i)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			ids = append(ids, u.ID)
			want = append(want, u.FullName)
		}
		return nil
	})
	checkNames(t, "a few", names(t, s, 1, ids[:3]), want[:3]...)
	if s.cache.holds(1) {
		t.Fatalf("a read of %d users filled the cache", 3)
	}
	many := ids[:usersLoadMin]
	checkNames(t, "many", names(t, s, 1, many), want[:usersLoadMin]...)
	if !s.cache.holds(1) {
		t.Fatalf("a read of %d users left the cache empty", usersLoadMin)
	}
	other := open(t, path)
	rename(t, other, ids[0], "Renamed elsewhere", false)
	want[0] = "Renamed elsewhere"
	checkNames(t, "many, after another store's write", names(t, s, 1, many), want[:usersLoadMin]...)
	checkNames(t, "a few, from the cache", names(t, s, 1, []int64{ids[1], ids[0]}), want[:2]...)
}
