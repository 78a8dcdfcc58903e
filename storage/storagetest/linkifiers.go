package storagetest

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// testLinkifiers checks IDs, order, uniqueness per realm, updates, deletes
// and rollback of linkifiers.
func (s *suite) testLinkifiers(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	example := "#1"
	a := storage.LinkifierRecord{Linkifier: storage.Linkifier{Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://x/{id}",
		ExampleInput: &example, AlternativeURLTemplates: []string{"https://y/{id}", "ü"}}, Order: 5}
	b := storage.LinkifierRecord{Linkifier: storage.Linkifier{Pattern: "b", URLTemplate: "https://b/", AlternativeURLTemplates: []string{}}, Order: 1}
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		a.RealmID, b.RealmID = r1.ID, r1.ID
		for _, l := range []*storage.LinkifierRecord{&a, &b} {
			if err := tx.CreateLinkifier(l); err != nil {
				t.Fatalf("CreateLinkifier: %v", err)
			}
		}
		dup := a
		if err := tx.CreateLinkifier(&dup); !errors.Is(err, storage.ErrExists) {
			t.Errorf("duplicate pattern: %v, want ErrExists", err)
		}
		other := a
		other.RealmID = r2.ID
		if err := tx.CreateLinkifier(&other); err != nil {
			t.Errorf("same pattern in another realm: %v", err)
		}
	})
	if a.ID == 0 || b.ID == 0 || a.ID == b.ID {
		t.Fatalf("IDs %d, %d", a.ID, b.ID)
	}
	list := func(tx storage.Tx, realmID int64) []storage.LinkifierRecord {
		t.Helper()
		l, err := tx.Linkifiers(realmID)
		if err != nil {
			t.Fatalf("Linkifiers: %v", err)
		}
		return l
	}
	view(t, st, func(tx storage.Tx) {
		if d := gocmp.Diff([]storage.LinkifierRecord{b, a}, list(tx, r1.ID)); d != "" {
			t.Errorf("Linkifiers (-want +got):\n%s", d)
		}
	})
	b.Pattern, b.Order, b.ReverseTemplate = "bb", 9, &example
	update(t, st, func(tx storage.Tx) {
		if err := tx.UpdateLinkifier(b); err != nil {
			t.Fatalf("UpdateLinkifier: %v", err)
		}
		clash := b
		clash.Pattern = a.Pattern
		if err := tx.UpdateLinkifier(clash); !errors.Is(err, storage.ErrExists) {
			t.Errorf("UpdateLinkifier to a taken pattern: %v", err)
		}
		wrong := b
		wrong.RealmID = r2.ID
		if err := tx.UpdateLinkifier(wrong); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("UpdateLinkifier in another realm: %v", err)
		}
		if err := tx.DeleteLinkifier(r2.ID, a.ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("DeleteLinkifier in another realm: %v", err)
		}
	})
	fail := errors.New("roll back")
	if err := st.Update(t.Context(), func(tx storage.Tx) error {
		if err := tx.DeleteLinkifier(r1.ID, a.ID); err != nil {
			return err
		}
		return fail
	}); !errors.Is(err, fail) {
		t.Fatalf("Update: %v", err)
	}
	view(t, st, func(tx storage.Tx) {
		if d := gocmp.Diff([]storage.LinkifierRecord{a, b}, list(tx, r1.ID)); d != "" {
			t.Errorf("after update and rollback (-want +got):\n%s", d)
		}
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteLinkifier(r1.ID, a.ID); err != nil {
			t.Fatalf("DeleteLinkifier: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		if got := list(tx, r1.ID); len(got) != 1 || got[0].ID != b.ID {
			t.Errorf("after delete: %+v", got)
		}
	})
}
