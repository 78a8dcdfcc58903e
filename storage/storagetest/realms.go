package storagetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

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
		TopicsPolicy: storage.TopicsDisableEmpty, DefaultLanguage: "pt_BR", DefaultCodeBlockLanguage: "python", VideoChatProvider: 3,
		EnableSpectatorAccess: true, WaitingPeriodThreshold: 9, InviteRequired: true, SendChannelEventsMessages: true,
		MoveMessagesWithinStreamLimitSeconds: 60, MoveMessagesBetweenStreamsLimitSeconds: 7200,
		MessageEditHistoryVisibilityPolicy:  storage.EditHistoryMoves,
		CanMoveMessagesBetweenTopicsGroup:   storage.GroupSetting{GroupID: 7},
		CanMoveMessagesBetweenChannelsGroup: storage.GroupSetting{Members: []int64{3, 4}, Subgroups: []int64{5}},
	}
	update(t, st, func(tx storage.Tx) { r = createRealm(t, tx, r) })
	view(t, st, func(tx storage.Tx) { checkRealm(t, "created", mustRealm(t, tx, r.ID), r) })
	r.RealmSettings = storage.RealmSettings{MessageContentDeleteLimitSeconds: 5, TopicsPolicy: storage.TopicsAllowEmpty, DefaultLanguage: "en",
		DefaultCodeBlockLanguage: "c++"}
	update(t, st, func(tx storage.Tx) { mustUpdateRealm(t, tx, r) })
	view(t, st, func(tx storage.Tx) { checkRealm(t, "updated", mustRealm(t, tx, r.ID), r) })
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

func (s *suite) testRealmIDs(t *testing.T) {
	st := s.store(t)
	update(t, st, func(tx storage.Tx) {
		for i := 1; i <= 3; i++ {
			r := realmN(i)
			if err := tx.CreateRealm(&r); err != nil {
				t.Fatalf("CreateRealm: %v", err)
			}
			if r.ID != int64(i) {
				t.Errorf("realm %d of a new store got ID %d, want %d", i, r.ID, i)
			}
		}
	})
	update(t, st, func(tx storage.Tx) {
		r := realmN(4)
		if err := tx.CreateRealm(&r); err != nil {
			t.Fatalf("CreateRealm: %v", err)
		}
		if r.ID != 4 {
			t.Errorf("realm created in a second transaction got ID %d, want 4", r.ID)
		}
	})
	view(t, st, func(tx storage.Tx) {
		for i := 1; i <= 4; i++ {
			want := realmN(i)
			want.ID = int64(i)
			checkRealm(t, fmt.Sprintf("Realm(%d)", i), mustRealm(t, tx, int64(i)), want)
		}
	})
}

func (s *suite) testRealmRoundTrip(t *testing.T) {
	st := s.store(t)
	want := realmN(1)
	want.Deactivated = true
	want.DefaultEmailVisibility = storage.EmailVisibleModerators
	other := realmN(2)
	check := func(tx storage.Tx, when string) {
		t.Helper()
		checkRealm(t, when+": Realm", mustRealm(t, tx, want.ID), want)
		checkRealm(t, when+": RealmByHost", mustRealmByHost(t, tx, want.Host), want)
		checkRealms(t, when+": Realms", mustRealms(t, tx), []storage.Realm{want, other})
	}
	update(t, st, func(tx storage.Tx) {
		r := want
		if err := tx.CreateRealm(&r); err != nil {
			t.Fatalf("CreateRealm: %v", err)
		}
		want.ID = r.ID
		if !gocmp.Equal(r, want) {
			t.Errorf("CreateRealm changed fields other than ID: got %#v, want %#v", r, want)
		}
		other = createRealm(t, tx, other)
		check(tx, "same transaction")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "after commit") })

	// A realm with zero values everywhere but Host round-trips too.
	zero := storage.Realm{Host: "zero"}
	update(t, st, func(tx storage.Tx) { zero = createRealm(t, tx, zero) })
	view(t, st, func(tx storage.Tx) {
		checkRealm(t, "zero-valued realm", mustRealm(t, tx, zero.ID), zero)
	})
}

func (s *suite) testUpdateRealm(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
	})
	oldHost := r1.Host
	changed := storage.Realm{
		ID:                     r1.ID,
		Name:                   "Renamed",
		Description:            "New description",
		Host:                   "renamed.example.org:8443",
		URL:                    "https://renamed.example.org:8443",
		Deactivated:            true,
		DateCreated:            t0.Add(-time.Hour + 42),
		DefaultEmailVisibility: storage.EmailVisibleNobody,
	}
	check := func(tx storage.Tx, when string) {
		t.Helper()
		checkRealm(t, when+": Realm", mustRealm(t, tx, r1.ID), changed)
		checkRealm(t, when+": RealmByHost(new host)", mustRealmByHost(t, tx, changed.Host), changed)
		_, err := tx.RealmByHost(oldHost)
		checkErr(t, when+": RealmByHost(old host)", err, storage.ErrNotFound)
		checkRealm(t, when+": other realm", mustRealm(t, tx, r2.ID), r2)
		checkRealms(t, when+": Realms", mustRealms(t, tx), []storage.Realm{changed, r2})
	}
	update(t, st, func(tx storage.Tx) {
		mustUpdateRealm(t, tx, changed)
		check(tx, "same transaction")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "after commit") })

	// The old host is free again, and fields can go back to zero values.
	update(t, st, func(tx storage.Tx) {
		r3 := createRealm(t, tx, storage.Realm{Host: oldHost})
		checkRealm(t, "RealmByHost(old host) after reuse", mustRealmByHost(t, tx, oldHost), r3)
		changed = storage.Realm{ID: r1.ID, Host: changed.Host}
		mustUpdateRealm(t, tx, changed)
	})
	view(t, st, func(tx storage.Tx) {
		checkRealm(t, "realm updated to zero values", mustRealm(t, tx, r1.ID), changed)
	})
}

func (s *suite) testExistsRealmHost(t *testing.T) {
	st := s.store(t)
	var r1, r2, upper storage.Realm
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
	})
	update(t, st, func(tx storage.Tx) {
		dup := realmN(3)
		dup.Host = r1.Host
		checkErr(t, "CreateRealm(duplicate host)", tx.CreateRealm(&dup), storage.ErrExists)

		// Hosts are compared exactly: the domain lowercases them itself.
		upper = realmN(4)
		upper.Host = "ORG1.example.com"
		upper = createRealm(t, tx, upper)
		if got := mustRealmByHost(t, tx, upper.Host); got.ID != upper.ID {
			t.Errorf("RealmByHost(%q) = realm %d, want %d", upper.Host, got.ID, upper.ID)
		}
		if got := mustRealmByHost(t, tx, r1.Host); got.ID != r1.ID {
			t.Errorf("RealmByHost(%q) = realm %d, want %d", r1.Host, got.ID, r1.ID)
		}

		taken := r2
		taken.Host = r1.Host
		taken.Name = "must not be stored"
		checkErr(t, "UpdateRealm(host of another realm)", tx.UpdateRealm(taken), storage.ErrExists)

		// Keeping one's own host is no collision.
		r2.Name = "Renamed"
		mustUpdateRealm(t, tx, r2)
	})
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms", mustRealms(t, tx), []storage.Realm{r1, r2, upper})
		checkRealm(t, "RealmByHost(r1)", mustRealmByHost(t, tx, r1.Host), r1)
		checkRealm(t, "RealmByHost(r2)", mustRealmByHost(t, tx, r2.Host), r2)
	})
	// A failed create in one transaction does not block others.
	update(t, st, func(tx storage.Tx) {
		dup := realmN(1)
		checkErr(t, "CreateRealm(duplicate host) again", tx.CreateRealm(&dup), storage.ErrExists)
		createRealm(t, tx, realmN(5))
	})
}

func (s *suite) testRealms(t *testing.T) {
	st := s.store(t)
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms of an empty store", mustRealms(t, tx), nil)
	})
	var want []storage.Realm
	update(t, st, func(tx storage.Tx) {
		for i := 1; i <= 5; i++ {
			want = append(want, createRealm(t, tx, realmN(i)))
		}
	})
	// Updating the first realm (host included) must not move it.
	update(t, st, func(tx storage.Tx) {
		want[0].Host = "zzz.example.com"
		want[0].Name = "AAA"
		mustUpdateRealm(t, tx, want[0])
		want = append(want, createRealm(t, tx, storage.Realm{Host: "aaa.example.com", Name: "000"}))
	})
	view(t, st, func(tx storage.Tx) {
		got := mustRealms(t, tx)
		checkRealms(t, "Realms", got, want)
		if !slices.IsSortedFunc(got, func(a, b storage.Realm) int { return cmp.Compare(a.ID, b.ID) }) {
			t.Errorf("Realms not ordered by ID: %v", got)
		}
	})
}
