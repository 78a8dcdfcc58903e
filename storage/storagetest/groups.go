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

	// UpdateUserGroup replaces all but the realm, kind, creator and
	// creation time; settings round-trip.
	changed := want[1]
	changed.Name, changed.Description, changed.Deactivated = "Artists", "Draw", false
	changed.Members, changed.Subgroups = []int64{f.users[1].ID}, []int64{a.ID}
	changed.Settings = storage.UserGroupSettings{CanManageGroup: storage.GroupSetting{Members: []int64{f.users[1].ID}, Subgroups: []int64{a.ID}},
		CanJoinGroup: storage.GroupSetting{GroupID: a.ID}}
	attempt := changed
	attempt.RealmID, attempt.IsSystem, attempt.CreatorID, attempt.DateCreated = f.r2.ID, true, 0, t0.Add(5*time.Hour)
	update(t, st, func(tx storage.Tx) {
		if err := tx.UpdateUserGroup(attempt); err != nil {
			t.Fatalf("UpdateUserGroup: %v", err)
		}
		clash := changed
		clash.ID, clash.Name = a.ID, "Artists"
		checkErr(t, "UpdateUserGroup to a taken name", tx.UpdateUserGroup(clash), storage.ErrExists)
		unknown := changed
		unknown.ID = 99999
		checkErr(t, "UpdateUserGroup(unknown)", tx.UpdateUserGroup(unknown), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.UserGroups(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserGroups after UpdateUserGroup", got, []storage.UserGroup{*a, changed})
	})
}
