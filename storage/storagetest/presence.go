package storagetest

import (
	"context"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// testPresence checks PresenceTx: increasing update IDs across users and
// realms, replacement of a user's presence, the realm and update-ID
// filters, and rollback.
func (s *suite) testPresence(t *testing.T) {
	st := s.store(t)
	at := time.Date(2025, 3, 30, 12, 0, 0, 0, time.UTC)
	var r1, r2 storage.Realm
	var u1, u2, u3 storage.UserRecord
	var p1, p2, p3 storage.Presence
	update(t, st, func(tx storage.Tx) {
		r1, r2 = createRealm(t, tx, realmN(1)), createRealm(t, tx, realmN(2))
		u1, u2, u3 = createUser(t, tx, userN(r1.ID, 1)), createUser(t, tx, userN(r1.ID, 2)), createUser(t, tx, userN(r2.ID, 3))
		p2 = storage.Presence{UserID: u2.ID, RealmID: r1.ID, LastActive: at, LastConnected: at}
		p3 = storage.Presence{UserID: u3.ID, RealmID: r2.ID, LastConnected: at}
		p1 = storage.Presence{UserID: u1.ID, RealmID: r1.ID, LastConnected: at.Add(time.Second)}
		for _, p := range []*storage.Presence{&p2, &p3, &p1} {
			if err := tx.SetPresence(p); err != nil {
				t.Fatalf("SetPresence: %v", err)
			}
		}
		if !(p2.UpdateID > 0 && p3.UpdateID > p2.UpdateID && p1.UpdateID > p3.UpdateID) {
			t.Errorf("update IDs %d, %d, %d: want increasing", p2.UpdateID, p3.UpdateID, p1.UpdateID)
		}
	})
	view(t, st, func(tx storage.Tx) {
		all, err := tx.Presences(r1.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Presences(r1)", all, []storage.Presence{p1, p2})
		after, err := tx.Presences(r1.ID, p2.UpdateID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Presences(r1, after p2)", after, []storage.Presence{p1})
		if last, err := tx.LastPresenceUpdateID(r1.ID); err != nil || last != p1.UpdateID {
			t.Errorf("LastPresenceUpdateID(r1) = %d, %v; want %d", last, err, p1.UpdateID)
		}
		if got, err := tx.Presence(u2.ID); err != nil || got != p2 {
			t.Errorf("Presence(u2) = %+v, %v; want %+v", got, err, p2)
		}
		_, err = tx.Presence(u3.ID + 100)
		checkErr(t, "Presence(unknown)", err, storage.ErrNotFound)
		if last, err := tx.LastPresenceUpdateID(r2.ID + 100); err != nil || last != 0 {
			t.Errorf("LastPresenceUpdateID(unknown) = %d, %v; want 0", last, err)
		}
	})
	// A failed Update keeps the presence it would have replaced.
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		p := p2
		p.LastActive = at.Add(time.Hour)
		if err := tx.SetPresence(&p); err != nil {
			return err
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	update(t, st, func(tx storage.Tx) {
		p2.LastActive, p2.LastConnected = at.Add(time.Minute), at.Add(time.Minute)
		if err := tx.SetPresence(&p2); err != nil {
			t.Fatal(err)
		}
		if p2.UpdateID <= p1.UpdateID {
			t.Errorf("replaced presence update ID %d, want above %d", p2.UpdateID, p1.UpdateID)
		}
	})
	view(t, st, func(tx storage.Tx) {
		all, err := tx.Presences(r1.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Presences(r1) after replacing", all, []storage.Presence{p1, p2})
	})
}
