package storagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// testUserLists checks UserListTx: alert words by realm in the order set,
// replaced and removed; muted users both ways, duplicates, unmuting,
// unknown users; and rollback.
func (s *suite) testUserLists(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var u1, u2, u3, other storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1, r2 = createRealm(t, tx, realmN(1)), createRealm(t, tx, realmN(2))
		u1, u2, u3 = createUser(t, tx, userN(r1.ID, 1)), createUser(t, tx, userN(r1.ID, 2)), createUser(t, tx, userN(r1.ID, 3))
		other = createUser(t, tx, userN(r2.ID, 4))
		for _, c := range []struct {
			realm, user int64
			words       []string
		}{{r1.ID, u1.ID, []string{"zebra", "Äpfel", "deploy now"}}, {r1.ID, u2.ID, []string{"x"}}, {r2.ID, other.ID, []string{"y"}}} {
			if err := tx.SetAlertWords(c.realm, c.user, c.words); err != nil {
				t.Fatalf("SetAlertWords: %v", err)
			}
		}
		checkErr(t, "SetAlertWords in another realm", tx.SetAlertWords(r2.ID, u3.ID, []string{"z"}), storage.ErrNotFound)
		if err := tx.SetAlertWords(r1.ID, u2.ID, []string{"replaced"}); err != nil {
			t.Fatalf("SetAlertWords again: %v", err)
		}
		t0 := time.Unix(1_700_000_000, 0).UTC()
		for _, m := range []storage.MutedUser{{UserID: u1.ID, MutedUserID: u3.ID, DateMuted: t0},
			{UserID: u1.ID, MutedUserID: u2.ID, DateMuted: t0.Add(time.Hour)}, {UserID: u3.ID, MutedUserID: u2.ID, DateMuted: t0}} {
			if err := tx.MuteUser(m); err != nil {
				t.Fatalf("MuteUser: %v", err)
			}
		}
	})
	// A failed transaction changes nothing.
	errRollback := errors.New("roll back")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.SetAlertWords(r1.ID, u1.ID, nil); err != nil {
			t.Fatalf("SetAlertWords(nil): %v", err)
		}
		if err := tx.UnmuteUser(u1.ID, u3.ID); err != nil {
			t.Fatalf("UnmuteUser: %v", err)
		}
		return errRollback
	})
	checkErr(t, "Update", err, errRollback)
	view(t, st, func(tx storage.Tx) {
		words, err := tx.RealmAlertWords(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "RealmAlertWords", words, map[int64][]string{u1.ID: {"zebra", "Äpfel", "deploy now"}, u2.ID: {"replaced"}})
		muted, err := tx.MutedUsers(u1.ID)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Unix(1_700_000_000, 0).UTC()
		checkEqual(t, "MutedUsers", muted, []storage.MutedUser{{UserID: u1.ID, MutedUserID: u2.ID, DateMuted: t0.Add(time.Hour)},
			{UserID: u1.ID, MutedUserID: u3.ID, DateMuted: t0}})
		muting, err := tx.UsersMuting(u2.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UsersMuting", muting, []int64{u1.ID, u3.ID})
		if none, err := tx.UsersMuting(other.ID); err != nil || len(none) != 0 {
			t.Errorf("UsersMuting(nobody's) = %v, %v", none, err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		checkErr(t, "MuteUser twice", tx.MuteUser(storage.MutedUser{UserID: u1.ID, MutedUserID: u2.ID, DateMuted: time.Now()}), storage.ErrExists)
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.UnmuteUser(u1.ID, u2.ID); err != nil {
			t.Fatalf("UnmuteUser: %v", err)
		}
		checkErr(t, "UnmuteUser again", tx.UnmuteUser(u1.ID, u2.ID), storage.ErrNotFound)
		if err := tx.SetAlertWords(r1.ID, u1.ID, []string{}); err != nil {
			t.Fatalf("SetAlertWords(empty): %v", err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		for _, v := range []map[string]string{{"enter_sends": "true", "emojiset": `"text"`}, {"emojiset": `"google"`}} {
			if err := tx.SetUserSettings(u1.ID, v); err != nil {
				t.Fatalf("SetUserSettings: %v", err)
			}
		}
	})
	if err := st.Update(context.Background(), func(tx storage.Tx) error {
		return tx.SetUserSettings(other.ID+1000, map[string]string{"x": "1"})
	}); err == nil {
		t.Error("SetUserSettings of an unknown user succeeded")
	}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.UserSettings(u1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserSettings", got, map[string]string{"enter_sends": "true", "emojiset": `"google"`})
		none, err := tx.UserSettings(u2.ID)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("UserSettings(none stored) = %#v, %v; want an empty map", none, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		words, _ := tx.RealmAlertWords(r1.ID)
		checkEqual(t, "RealmAlertWords after removal", words, map[int64][]string{u2.ID: {"replaced"}})
		muted, _ := tx.MutedUsers(u1.ID)
		if len(muted) != 1 || muted[0].MutedUserID != u3.ID {
			t.Errorf("MutedUsers after unmuting = %v", muted)
		}
	})
}
