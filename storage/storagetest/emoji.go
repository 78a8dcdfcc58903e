package storagetest

import (
	"testing"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testRealmEmoji(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var a, b, c storage.RealmEmoji
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		author := createUser(t, tx, userN(r1.ID, 1))
		a = storage.RealmEmoji{RealmID: r1.ID, Name: "party", AuthorID: author.ID, FileName: "1.png"}
		b = storage.RealmEmoji{RealmID: r1.ID, Name: "parrot", Deactivated: true}
		c = storage.RealmEmoji{RealmID: r2.ID, Name: "party"}
		for _, e := range []*storage.RealmEmoji{&a, &b, &c} {
			if err := tx.CreateRealmEmoji(e); err != nil || e.ID <= 0 {
				t.Fatalf("CreateRealmEmoji(%s): %v, ID %d", e.Name, err, e.ID)
			}
		}
		dup := storage.RealmEmoji{RealmID: r1.ID, Name: "party"}
		checkErr(t, "CreateRealmEmoji with a taken name", tx.CreateRealmEmoji(&dup), storage.ErrExists)
		renamed := b
		renamed.Name = "party"
		checkErr(t, "UpdateRealmEmoji to a taken name", tx.UpdateRealmEmoji(renamed), storage.ErrExists)
		a.Deactivated, a.FileName = true, "1-2.gif"
		if err := tx.UpdateRealmEmoji(a); err != nil {
			t.Fatal(err)
		}
		missing := storage.RealmEmoji{ID: a.ID + b.ID + c.ID + 100, RealmID: r1.ID, Name: "x"}
		checkErr(t, "UpdateRealmEmoji of an unknown ID", tx.UpdateRealmEmoji(missing), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		for _, want := range []storage.RealmEmoji{a, b, c} {
			got, err := tx.RealmEmoji(want.ID)
			if err != nil || got != want {
				t.Errorf("RealmEmoji(%d) = %+v, %v; want %+v", want.ID, got, err, want)
			}
			got, err = tx.RealmEmojiByName(want.RealmID, want.Name)
			if err != nil || got != want {
				t.Errorf("RealmEmojiByName(%d, %s) = %+v, %v; want %+v", want.RealmID, want.Name, got, err, want)
			}
		}
		_, err := tx.RealmEmoji(a.ID + b.ID + c.ID + 100)
		checkErr(t, "RealmEmoji of an unknown ID", err, storage.ErrNotFound)
		_, err = tx.RealmEmojiByName(r2.ID, "parrot")
		checkErr(t, "RealmEmojiByName in another realm", err, storage.ErrNotFound)
		all, err := tx.RealmEmojis(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "RealmEmojis(r1)", all, []storage.RealmEmoji{a, b})
		none, err := tx.RealmEmojis(r2.ID + 100)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("RealmEmojis(unknown realm) = %#v, %v; want an empty list", none, err)
		}
	})
}
