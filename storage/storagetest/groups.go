package storagetest

import (
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testUserGroups(t *testing.T) {
	st, f := s.channelStore(t)
	members := []int64{f.users[0].ID, f.users[2].ID}
	a := &storage.UserGroup{RealmID: f.r1.ID, Name: "role:owners", Description: "Owners ✓ 'q'", IsSystem: true, DateCreated: t0}
	b := &storage.UserGroup{RealmID: f.r1.ID, Name: "Designers", Description: "", CreatorID: f.users[1].ID,
		DateCreated: t0.Add(time.Hour), Deactivated: true, Members: members, Subgroups: []int64{1, 2}}
	c := &storage.UserGroup{RealmID: f.r2.ID, Name: "Designers", DateCreated: t0}
	update(t, st, func(tx storage.Tx) {
		if err := tx.CreateUserGroups([]*storage.UserGroup{a, b}); err != nil {
			t.Fatalf("CreateUserGroups: %v", err)
		}
		if err := tx.CreateUserGroups([]*storage.UserGroup{c}); err != nil {
			t.Fatalf("CreateUserGroups in another realm: %v", err)
		}
		if a.ID <= 0 || b.ID <= a.ID || c.ID <= b.ID {
			t.Errorf("IDs %d, %d, %d, want increasing", a.ID, b.ID, c.ID)
		}
		dup := &storage.UserGroup{RealmID: f.r1.ID, Name: "Designers", DateCreated: t0}
		checkErr(t, "same name in the realm", tx.CreateUserGroups([]*storage.UserGroup{dup}), storage.ErrExists)
		x, y := &storage.UserGroup{RealmID: f.r1.ID, Name: "x", DateCreated: t0}, &storage.UserGroup{RealmID: f.r1.ID, Name: "x", DateCreated: t0}
		checkErr(t, "same name twice in one call", tx.CreateUserGroups([]*storage.UserGroup{x, y}), storage.ErrExists)
	})
	// The caller's slices are not the stored ones.
	members[0] = 999
	b.Members[1] = 999
	want := []storage.UserGroup{*a, {ID: b.ID, RealmID: f.r1.ID, Name: "Designers", CreatorID: f.users[1].ID,
		DateCreated: t0.Add(time.Hour), Deactivated: true, Members: []int64{f.users[0].ID, f.users[2].ID}, Subgroups: []int64{1, 2}}}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.UserGroups(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserGroups(r1)", got, want)
		for i := range got {
			checkTime(t, "DateCreated", got[i].DateCreated)
		}
		got[1].Members[0] = 12345 // must not reach the store
		got, err = tx.UserGroups(f.r2.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserGroups(r2)", got, []storage.UserGroup{*c})
		got, err = tx.UserGroups(999)
		if err != nil || len(got) != 0 {
			t.Errorf("UserGroups(unknown realm) = %v, %v", got, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := tx.UserGroups(f.r1.ID)
		checkEqual(t, "UserGroups after changing a result", got, want)
	})
}
