package storagetest

import (
	"context"
	"testing"

	"github.com/teamchat/chat/storage"
)

// testBotStorage checks BotStorageTx: upserts, reads by key in key order,
// sizes in code points, deletes, one user's storage apart from another's,
// and rollback.
func (s *suite) testBotStorage(t *testing.T) {
	st := s.store(t)
	var u1, u2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		set := []storage.BotStorageEntry{
			{UserID: u1.ID, Key: "zeta", Value: "1"}, {UserID: u1.ID, Key: "älpha", Value: "ünïcode"},
			{UserID: u1.ID, Key: "beta", Value: ""}, {UserID: u2.ID, Key: "beta", Value: "other user"},
		}
		if err := tx.SetBotStorage(set); err != nil {
			t.Fatalf("SetBotStorage: %v", err)
		}
		// A second write of a key replaces its value.
		if err := tx.SetBotStorage([]storage.BotStorageEntry{{UserID: u1.ID, Key: "zeta", Value: "two"}}); err != nil {
			t.Fatalf("SetBotStorage again: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		all, err := tx.BotStorage(u1.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "BotStorage(all)", all, []storage.BotStorageEntry{
			{UserID: u1.ID, Key: "beta", Value: ""}, {UserID: u1.ID, Key: "zeta", Value: "two"},
			{UserID: u1.ID, Key: "älpha", Value: "ünïcode"},
		})
		some, err := tx.BotStorage(u1.ID, []string{"zeta", "missing", "beta"})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "BotStorage(keys)", some, []storage.BotStorageEntry{
			{UserID: u1.ID, Key: "beta", Value: ""}, {UserID: u1.ID, Key: "zeta", Value: "two"},
		})
		none, err := tx.BotStorage(u1.ID, []string{})
		if err != nil || len(none) != 0 || none == nil {
			t.Errorf("BotStorage(no keys) = %#v, %v; want an empty list", none, err)
		}
		// beta (4) + zeta two (7) + älpha ünïcode (12): code points.
		if n, err := tx.BotStorageSize(u1.ID); err != nil || n != 23 {
			t.Errorf("BotStorageSize = %d, %v; want 23", n, err)
		}
		if n, err := tx.BotStorageSize(999999); err != nil || n != 0 {
			t.Errorf("BotStorageSize(unknown user) = %d, %v; want 0", n, err)
		}
		if err := tx.SetBotStorage([]storage.BotStorageEntry{{UserID: u1.ID, Key: "k", Value: "v"}}); err == nil {
			t.Error("SetBotStorage in View succeeded")
		}
	})
	// A failed Update writes nothing.
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.DeleteBotStorage(u1.ID, []string{"beta", "zeta"}); err != nil {
			return err
		}
		if err := tx.SetBotStorage([]storage.BotStorageEntry{{UserID: u1.ID, Key: "new", Value: "x"}}); err != nil {
			return err
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteBotStorage(u1.ID, []string{"beta", "missing", "älpha"}); err != nil {
			t.Fatalf("DeleteBotStorage: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		left, err := tx.BotStorage(u1.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "after delete", left, []storage.BotStorageEntry{{UserID: u1.ID, Key: "zeta", Value: "two"}})
		other, err := tx.BotStorage(u2.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "the other user's", other, []storage.BotStorageEntry{{UserID: u2.ID, Key: "beta", Value: "other user"}})
	})
}

// testBotServices checks BotServiceTx: services by realm in bot order,
// replaced by a second write, and unknown bots refused.
func (s *suite) testBotServices(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var b1, b2, b3 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1, r2 = createRealm(t, tx, realmN(1)), createRealm(t, tx, realmN(2))
		b1, b2, b3 = createUser(t, tx, userN(r1.ID, 1)), createUser(t, tx, userN(r1.ID, 2)), createUser(t, tx, userN(r2.ID, 3))
		for _, sv := range []storage.BotService{
			{BotID: b2.ID, RealmID: r1.ID, PayloadURL: "https://b2.example/hook", Token: "t2", Interface: 1},
			{BotID: b1.ID, RealmID: r1.ID, PayloadURL: "https://b1.example/hook", Token: "t1", Interface: 1},
			{BotID: b3.ID, RealmID: r2.ID, PayloadURL: "https://b3.example/hook", Token: "t3", Interface: 1},
			{BotID: b1.ID, RealmID: r1.ID, PayloadURL: "https://b1.example/new", Token: "t1b", Interface: 2},
		} {
			if err := tx.SetBotService(sv); err != nil {
				t.Fatalf("SetBotService: %v", err)
			}
		}
	})
	if err := st.Update(context.Background(), func(tx storage.Tx) error {
		return tx.SetBotService(storage.BotService{BotID: b3.ID + 1000, RealmID: r1.ID, PayloadURL: "x"})
	}); err == nil {
		t.Error("SetBotService of an unknown bot succeeded")
	}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.RealmBotServices(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "RealmBotServices", got, []storage.BotService{
			{BotID: b1.ID, RealmID: r1.ID, PayloadURL: "https://b1.example/new", Token: "t1b", Interface: 2},
			{BotID: b2.ID, RealmID: r1.ID, PayloadURL: "https://b2.example/hook", Token: "t2", Interface: 1},
		})
		none, err := tx.RealmBotServices(r2.ID + 100)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("RealmBotServices(unknown realm) = %#v, %v", none, err)
		}
	})
}
