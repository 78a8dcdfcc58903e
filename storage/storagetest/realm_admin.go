package storagetest

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// testRealmSettings checks that every organization setting round-trips.
func (s *suite) testRealmSettings(t *testing.T) {
	st := s.store(t)
	r := realmN(1)
	r.RealmSettings = storage.RealmSettings{
		EmailsRestrictedToDomains: true, DisallowDisposableEmailAddresses: true, AllowMessageEditing: true,
		MessageContentEditLimitSeconds: 123, MessageContentDeleteLimitSeconds: 0,
		TopicsPolicy: storage.TopicsDisableEmpty, DefaultLanguage: "pt_BR", VideoChatProvider: 3,
		EnableSpectatorAccess: true, WaitingPeriodThreshold: 9, InviteRequired: true, SendChannelEventsMessages: true,
	}
	update(t, st, func(tx storage.Tx) { r = createRealm(t, tx, r) })
	view(t, st, func(tx storage.Tx) { checkRealm(t, "created", mustRealm(t, tx, r.ID), r) })
	r.RealmSettings = storage.RealmSettings{MessageContentDeleteLimitSeconds: 5, TopicsPolicy: storage.TopicsAllowEmpty, DefaultLanguage: "en"}
	update(t, st, func(tx storage.Tx) { mustUpdateRealm(t, tx, r) })
	view(t, st, func(tx storage.Tx) { checkRealm(t, "updated", mustRealm(t, tx, r.ID), r) })
}

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

// testRealmDomains checks allowed domains.
func (s *suite) testRealmDomains(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var d1, d2 storage.RealmDomain
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		d1 = storage.RealmDomain{RealmID: r1.ID, Domain: "b.example.com", AllowSubdomains: true}
		d2 = storage.RealmDomain{RealmID: r1.ID, Domain: "a.example.com"}
		for _, d := range []*storage.RealmDomain{&d1, &d2} {
			if err := tx.CreateRealmDomain(d); err != nil {
				t.Fatalf("CreateRealmDomain: %v", err)
			}
		}
		dup := d1
		if err := tx.CreateRealmDomain(&dup); !errors.Is(err, storage.ErrExists) {
			t.Errorf("duplicate: %v", err)
		}
		other := storage.RealmDomain{RealmID: r2.ID, Domain: d1.Domain}
		if err := tx.CreateRealmDomain(&other); err != nil {
			t.Errorf("same domain in another realm: %v", err)
		}
		d2.AllowSubdomains = true
		if err := tx.UpdateRealmDomain(d2); err != nil {
			t.Errorf("UpdateRealmDomain: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.RealmDomains(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff([]storage.RealmDomain{d1, d2}, got); d != "" {
			t.Errorf("RealmDomains (-want +got):\n%s", d)
		}
		if got, err := storage.RealmDomainByName(tx, r1.ID, "a.example.com"); err != nil || got != d2 {
			t.Errorf("RealmDomain = %+v, %v", got, err)
		}
		if _, err := storage.RealmDomainByName(tx, r1.ID, "A.example.com"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("RealmDomain is not exact: %v", err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteRealmDomain(r2.ID, d1.ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("DeleteRealmDomain in another realm: %v", err)
		}
		if err := tx.DeleteRealmDomain(r1.ID, d1.ID); err != nil {
			t.Errorf("DeleteRealmDomain: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		if got, _ := tx.RealmDomains(r1.ID); len(got) != 1 || got[0] != d2 {
			t.Errorf("after delete: %+v", got)
		}
	})
}
