// Package storagetest is the conformance suite of the chat storage SPI: every
// storage.Store implementation runs it from a one-line test, which proves the
// backends interchangeable for the domain.
//
// The suite checks the documented contract of storage.Store and storage.Tx: ID
// assignment, the round trip of every field, the ErrNotFound, ErrExists and
// ErrReadOnly errors, the ordering and filtering of the list methods,
// rollback on error and on panic, snapshot reads, context cancellation and
// concurrent use. Run it with -race.
package storagetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// Run runs the conformance suite as subtests of t. open is called once per
// subtest and must return a new, empty store; Run closes that store when the
// subtest ends (and one subtest closes it itself, to check what happens
// after Close), so open must not close it.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Helper()
	RunWith(t, open, Options{})
}

// Options describe where a backend differs in ways the SPI allows.
type Options struct {
	// ConcurrentUpdates says that Updates do not wait for one another: they
	// run side by side, and the backend keeps them serialisable by aborting
	// and running fn again when they collide (PostgreSQL's SERIALIZABLE).
	// The suite then checks that an Update whose context ends while fn runs
	// commits nothing, instead of checking that an Update waiting for
	// another gives up when its context ends.
	ConcurrentUpdates bool
}

// RunWith is Run for a backend with the given differences.
func RunWith(t *testing.T, open func(t *testing.T) storage.Store, opts Options) {
	t.Helper()
	s := &suite{open: open}
	canceledWhileWaiting := s.testCanceledWhileWaiting
	if opts.ConcurrentUpdates {
		canceledWhileWaiting = s.testCanceledWhileRunning
	}
	cases := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"CreateRealm/IDs", s.testRealmIDs},
		{"CreateUser/IDs", s.testUserIDs},
		{"Realm/RoundTrip", s.testRealmRoundTrip},
		{"UpdateRealm", s.testUpdateRealm},
		{"User/RoundTrip", s.testUserRoundTrip},
		{"UpdateUser", s.testUpdateUser},
		{"Times", s.testTimes},
		{"NotFound", s.testNotFound},
		{"Exists/RealmHost", s.testExistsRealmHost},
		{"Exists/Email", s.testExistsEmail},
		{"Exists/APIKey", s.testExistsAPIKey},
		{"Realms", s.testRealms},
		{"Users/All", s.testUsersAll},
		{"Users/IDs", s.testUsersIDs},
		{"ActiveUserIDs", s.testActiveUserIDs},
		{"UsersByRole", s.testUsersByRole},
		{"BotsOwnedBy", s.testBotsOwnedBy},
		{"View/ReadOnly", s.testViewReadOnly},
		{"View/Error", s.testViewError},
		{"View/Snapshot", s.testViewSnapshot},
		{"Update/ReadYourWrites", s.testReadYourWrites},
		{"Update/Commit", s.testCommit},
		{"Update/RollbackOnError", s.testRollbackOnError},
		{"Update/RollbackOnPanic", s.testRollbackOnPanic},
		{"NoAliasing", s.testNoAliasing},
		{"Context/Canceled", s.testCanceled},
		{"Context/CanceledWhileWaiting", canceledWhileWaiting},
		{"Concurrent/Creates", s.testConcurrentCreates},
		{"Concurrent/ReadModifyWrite", s.testConcurrentReadModifyWrite},
		{"Close", s.testClose},
		{"ProfileFields", s.testProfileFields},
		{"ProfileValues", s.testProfileValues},
		{"ProfileValues/Rollback", s.testProfileValuesRollback},
		{"RealmEmoji", s.testRealmEmoji},
		{"Realm/Settings", s.testRealmSettings},
		{"Linkifiers", s.testLinkifiers},
		{"RealmDomains", s.testRealmDomains},
		{"UserGroups", s.testUserGroups},
		{"Channels", s.testChannels},
		{"Subscriptions", s.testSubscriptions},
		{"Subscriptions/Bulk", s.testSubscriptionsBulk},
		{"ChannelFolders", s.testChannelFolders},
		{"UserTopics", s.testUserTopics},
		{"Messages/Channels", s.testChannelMessages},
		{"Channels/Rollback", s.testChannelsRollback},
		{"Channels/ReadOnly", s.testChannelsReadOnly},
		{"Attachments", s.testAttachments},
		{"Attachments/Owner", s.testAttachmentsOfOwner},
		{"PushTokens", s.testPushTokens},
		{"Devices", s.testDevices},
		{"Messages", s.testMessages},
		{"Reactions", s.testReactions},
		{"Messages/RoundTrip", s.testMessageRoundTrip},
		{"Messages/Topics", s.testMessageTopics},
		{"Messages/UserMessages", s.testUserMessages},
		{"Messages/Flags", s.testMessageFlags},
		{"Messages/Find", s.testFindMessages},
		{"Messages/Search", s.testSearchMessages},
		{"Messages/Reactions", s.testReactionsConformance},
		{"Messages/ReadOnly", s.testMessagesReadOnly},
		{"Messages/Rollback", s.testMessagesRollback},
		{"Messages/NoAliasing", s.testMessagesNoAliasing},
		{"BotStorage", s.testBotStorage},
		{"Presence", s.testPresence},
	}
	for _, c := range cases {
		t.Run(c.name, c.fn)
	}
}

type suite struct {
	open func(t *testing.T) storage.Store
}

// store opens a fresh store that is closed when t ends.
func (s *suite) store(t *testing.T) storage.Store {
	t.Helper()
	st := s.open(t)
	if st == nil {
		t.Fatal("open returned a nil store")
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// Fixtures. Times carry nanoseconds that are not a multiple of a
// microsecond, so backends that truncate are caught.

var t0 = time.Date(2025, time.March, 30, 12, 34, 56, 123456789, time.UTC)

// realmN returns a realm with every field set (except ID and Deactivated),
// distinct for each i.
func realmN(i int) storage.Realm {
	return storage.Realm{
		Name:                   fmt.Sprintf("Org %d", i),
		Description:            fmt.Sprintf("Org number %d.\n\nSecond paragraph, ünïcödé ✓ 'quoted' \"text\"", i),
		Host:                   fmt.Sprintf("org%d.example.com", i),
		URL:                    fmt.Sprintf("https://org%d.example.com", i),
		DateCreated:            t0.Add(time.Duration(i)*time.Hour + time.Duration(i)),
		DefaultEmailVisibility: storage.EmailVisibleAdmins,
	}
}

// userN returns an active human member of the realm with most fields set,
// distinct for each i. Its email is unique per realm, its API key unique
// across realms.
func userN(realmID int64, i int) storage.UserRecord {
	return storage.UserRecord{
		RealmID:         realmID,
		Email:           fmt.Sprintf("User%d@Example.com", i),
		FullName:        fmt.Sprintf("User Number %d", i),
		Role:            storage.RoleMember,
		IsActive:        true,
		DateJoined:      t0.Add(time.Duration(i)*time.Minute + time.Duration(i)),
		Timezone:        "Europe/Paris",
		AvatarSource:    chat.AvatarGravatar,
		AvatarVersion:   1,
		APIKey:          fmt.Sprintf("key-%d-%d", realmID, i),
		PasswordHash:    fmt.Sprintf("$2a$04$hash%d", i),
		EmailVisibility: storage.EmailVisibleMembers,
	}
}

// fullBot returns a bot of the realm with every field non-zero.
func fullBot(realmID, ownerID int64) storage.UserRecord {
	return storage.UserRecord{
		RealmID:         realmID,
		Email:           "Full-Bot@Bots.Example.com",
		FullName:        "Fülly Set Bot",
		Role:            storage.RoleModerator,
		IsActive:        true,
		BotType:         storage.BotOutgoingWebhook,
		BotOwnerID:      ownerID,
		DateJoined:      t0.Add(-48*time.Hour + 1),
		LastLogin:       t0.Add(3*time.Second + 7),
		IsImportedStub:  true,
		Timezone:        "America/Argentina/Buenos_Aires",
		AvatarSource:    "U",
		AvatarVersion:   7,
		APIKey:          "full-bot-key",
		PasswordHash:    "$2a$04$fullbothash",
		EmailVisibility: storage.EmailVisibleNobody,

		CanChangeUserEmails: true,
		PresenceEnabled:     true,
		Status: storage.UserStatus{Text: "Åway 🏖️ é", EmojiName: "octopus", EmojiCode: "1f419",
			ReactionType: storage.UnicodeEmoji},
	}
}

// Transaction helpers. They fail the test on any error, which is fine inside
// fn because fn runs on the test's goroutine.

func update(t *testing.T, st storage.Store, fn func(storage.Tx)) {
	t.Helper()
	if err := st.Update(context.Background(), func(tx storage.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, st storage.Store, fn func(storage.Tx)) {
	t.Helper()
	if err := st.View(context.Background(), func(tx storage.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func createRealm(t *testing.T, tx storage.Tx, r storage.Realm) storage.Realm {
	t.Helper()
	if err := tx.CreateRealm(&r); err != nil {
		t.Fatalf("CreateRealm(%q): %v", r.Host, err)
	}
	if r.ID <= 0 {
		t.Fatalf("CreateRealm(%q) set ID %d, want > 0", r.Host, r.ID)
	}
	return r
}

func createUser(t *testing.T, tx storage.Tx, u storage.UserRecord) storage.UserRecord {
	t.Helper()
	if err := tx.CreateUser(&u); err != nil {
		t.Fatalf("CreateUser(%q in realm %d): %v", u.Email, u.RealmID, err)
	}
	if u.ID <= 0 {
		t.Fatalf("CreateUser(%q) set ID %d, want > 0", u.Email, u.ID)
	}
	return u
}

func mustRealm(t *testing.T, tx storage.Tx, id int64) storage.Realm {
	t.Helper()
	r, err := tx.Realm(id)
	if err != nil {
		t.Fatalf("Realm(%d): %v", id, err)
	}
	return r
}

func mustRealmByHost(t *testing.T, tx storage.Tx, host string) storage.Realm {
	t.Helper()
	r, err := tx.RealmByHost(host)
	if err != nil {
		t.Fatalf("RealmByHost(%q): %v", host, err)
	}
	return r
}

func mustRealms(t *testing.T, tx storage.Tx) []storage.Realm {
	t.Helper()
	rs, err := tx.Realms()
	if err != nil {
		t.Fatalf("Realms: %v", err)
	}
	return rs
}

func mustUser(t *testing.T, tx storage.Tx, id int64) storage.UserRecord {
	t.Helper()
	u, err := tx.User(id)
	if err != nil {
		t.Fatalf("User(%d): %v", id, err)
	}
	return u
}

func mustUserByEmail(t *testing.T, tx storage.Tx, realmID int64, email string) storage.UserRecord {
	t.Helper()
	u, err := tx.UserByEmail(realmID, email)
	if err != nil {
		t.Fatalf("UserByEmail(%d, %q): %v", realmID, email, err)
	}
	return u
}

func mustUserByAPIKey(t *testing.T, tx storage.Tx, key string) storage.UserRecord {
	t.Helper()
	u, err := tx.UserByAPIKey(key)
	if err != nil {
		t.Fatalf("UserByAPIKey(%q): %v", key, err)
	}
	return u
}

func mustUsers(t *testing.T, tx storage.Tx, realmID int64, ids []int64) []storage.UserRecord {
	t.Helper()
	us, err := tx.Users(realmID, ids)
	if err != nil {
		t.Fatalf("Users(%d, %v): %v", realmID, ids, err)
	}
	return us
}

func mustUsersByRole(t *testing.T, tx storage.Tx, realmID int64, role storage.Role) []storage.UserRecord {
	t.Helper()
	us, err := storage.UsersByRole(tx, realmID, role)
	if err != nil {
		t.Fatalf("UsersByRole(%d, %d): %v", realmID, role, err)
	}
	return us
}

func mustBotsOwnedBy(t *testing.T, tx storage.Tx, ownerID int64) []storage.UserRecord {
	t.Helper()
	us, err := storage.BotsOwnedBy(tx, ownerID)
	if err != nil {
		t.Fatalf("BotsOwnedBy(%d): %v", ownerID, err)
	}
	return us
}

func mustUpdateRealm(t *testing.T, tx storage.Tx, r storage.Realm) {
	t.Helper()
	if err := tx.UpdateRealm(r); err != nil {
		t.Fatalf("UpdateRealm(%d): %v", r.ID, err)
	}
}

func mustUpdateUser(t *testing.T, tx storage.Tx, u storage.UserRecord) {
	t.Helper()
	if err := tx.UpdateUser(u); err != nil {
		t.Fatalf("UpdateUser(%d): %v", u.ID, err)
	}
}

// Comparisons.

// checkTime reports a time that is not in UTC or carries a monotonic clock
// reading: the domain stores time.Now().UTC().Round(0) and expects exactly
// that back.
func checkTime(t *testing.T, what string, got time.Time) {
	t.Helper()
	if got.Location() != time.UTC {
		t.Errorf("%s = %v has location %q, want UTC", what, got, got.Location())
	}
	if got != got.Round(0) {
		t.Errorf("%s = %v has a monotonic clock reading", what, got)
	}
}

func checkRealm(t *testing.T, what string, got, want storage.Realm) {
	t.Helper()
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	checkTime(t, what+".DateCreated", got.DateCreated)
	if got != want {
		t.Errorf("%s = %#v\nis cmp-equal but not == to %#v", what, got, want)
	}
}

func checkRealms(t *testing.T, what string, got, want []storage.Realm) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return // nil and empty are the same answer
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	for i := range got {
		checkRealm(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

func checkUser(t *testing.T, what string, got, want storage.UserRecord) {
	t.Helper()
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	checkTime(t, what+".DateJoined", got.DateJoined)
	checkTime(t, what+".LastLogin", got.LastLogin)
	if got != want {
		t.Errorf("%s = %#v\nis cmp-equal but not == to %#v", what, got, want)
	}
}

func checkUsers(t *testing.T, what string, got, want []storage.UserRecord) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return // nil and empty are the same answer
	}
	if len(got) != len(want) {
		t.Errorf("%s: got %d users with IDs %v, want %d with IDs %v", what, len(got), userIDs(got), len(want), userIDs(want))
		return
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	for i := range got {
		checkUser(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

func sortedByID(us []storage.UserRecord) []storage.UserRecord {
	return slices.SortedFunc(slices.Values(us), func(a, b storage.UserRecord) int { return cmp.Compare(a.ID, b.ID) })
}

func userIDs(us []storage.UserRecord) []int64 {
	ids := make([]int64, len(us))
	for i := range us {
		ids[i] = us[i].ID
	}
	return ids
}

func checkErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

// The cases.

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

func (s *suite) testUserIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
	})
	// User IDs are global: users of both realms share one sequence.
	want := int64(1)
	for _, batch := range [][]int64{{r1.ID, r2.ID, r1.ID}, {r2.ID, r1.ID}} {
		update(t, st, func(tx storage.Tx) {
			for _, realmID := range batch {
				u := userN(realmID, int(want))
				if err := tx.CreateUser(&u); err != nil {
					t.Fatalf("CreateUser: %v", err)
				}
				if u.ID != want {
					t.Errorf("user %d of a new store got ID %d, want %d", want, u.ID, want)
				}
				want++
			}
		})
	}
	view(t, st, func(tx storage.Tx) {
		for id := int64(1); id < want; id++ {
			u := mustUser(t, tx, id)
			if u.ID != id || u.FullName != userN(0, int(id)).FullName {
				t.Errorf("User(%d) = ID %d, name %q; want user number %d", id, u.ID, u.FullName, id)
			}
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
		if r != want {
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

func (s *suite) testUserRoundTrip(t *testing.T) {
	st := s.store(t)
	var realm, other storage.Realm
	var owner, bot, human, stranger storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		realm = createRealm(t, tx, realmN(1))
		other = createRealm(t, tx, realmN(2))
		owner = userN(realm.ID, 1)
		owner.Role = storage.RoleOwner
		owner.LastLogin = t0.Add(time.Hour + 1)
		owner = createUser(t, tx, owner)

		// The bot has every field set; CreateUser must only set the ID.
		want := fullBot(realm.ID, owner.ID)
		bot = want
		if err := tx.CreateUser(&bot); err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		want.ID = bot.ID
		if bot != want {
			t.Errorf("CreateUser changed fields other than ID: got %#v, want %#v", bot, want)
		}

		// A human who never logged in: zero LastLogin, zero BotOwnerID,
		// empty password hash, false booleans.
		human = storage.UserRecord{
			RealmID:         realm.ID,
			Email:           "never@example.com",
			Role:            storage.RoleGuest,
			DateJoined:      t0,
			APIKey:          "human-key",
			EmailVisibility: storage.EmailVisibleEveryone,
		}
		human = createUser(t, tx, human)
		stranger = createUser(t, tx, userN(other.ID, 1))
	})
	check := func(tx storage.Tx, when string) {
		t.Helper()
		for _, u := range []storage.UserRecord{owner, bot, human, stranger} {
			checkUser(t, when+": User", mustUser(t, tx, u.ID), u)
			checkUser(t, when+": UserByEmail", mustUserByEmail(t, tx, u.RealmID, u.Email), u)
			checkUser(t, when+": UserByAPIKey", mustUserByAPIKey(t, tx, u.APIKey), u)
			checkUsers(t, when+": Users(realm, [id])", mustUsers(t, tx, u.RealmID, []int64{u.ID}), []storage.UserRecord{u})
			checkUsers(t, when+": UsersByRole", mustUsersByRole(t, tx, u.RealmID, u.Role), []storage.UserRecord{u})
		}
		checkUsers(t, when+": Users(realm, nil)", mustUsers(t, tx, realm.ID, nil), []storage.UserRecord{owner, bot, human})
		checkUsers(t, when+": Users(other realm, nil)", mustUsers(t, tx, other.ID, nil), []storage.UserRecord{stranger})
		checkUsers(t, when+": BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{bot})
	}
	update(t, st, func(tx storage.Tx) { check(tx, "same transaction") })
	view(t, st, func(tx storage.Tx) { check(tx, "after commit") })
}

func (s *suite) testUpdateUser(t *testing.T) {
	st := s.store(t)
	var realm storage.Realm
	var owner, u, bystander storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		realm = createRealm(t, tx, realmN(1))
		owner = createUser(t, tx, userN(realm.ID, 1))
		u = createUser(t, tx, userN(realm.ID, 2))
		bystander = createUser(t, tx, userN(realm.ID, 3))
	})
	old := u
	// Every field but ID and RealmID changes.
	changed := storage.UserRecord{
		ID:              u.ID,
		RealmID:         u.RealmID,
		Email:           "Changed@Elsewhere.org",
		FullName:        "Changed Name",
		Role:            storage.RoleAdmin,
		IsActive:        false,
		BotType:         storage.BotEmbedded,
		BotOwnerID:      owner.ID,
		DateJoined:      t0.Add(2*time.Hour + 3),
		LastLogin:       t0.Add(5*time.Hour + 9),
		IsImportedStub:  true,
		Timezone:        "Asia/Kolkata",
		AvatarSource:    "U",
		AvatarVersion:   3,
		APIKey:          "changed-key",
		PasswordHash:    "",
		EmailVisibility: storage.EmailVisibleModerators,
	}
	check := func(tx storage.Tx, when string, want storage.UserRecord) {
		t.Helper()
		checkUser(t, when+": User", mustUser(t, tx, want.ID), want)
		checkUser(t, when+": UserByEmail(new)", mustUserByEmail(t, tx, realm.ID, want.Email), want)
		checkUser(t, when+": UserByAPIKey(new)", mustUserByAPIKey(t, tx, want.APIKey), want)
		if storage.EmailKey(want.Email) != storage.EmailKey(old.Email) {
			_, err := tx.UserByEmail(realm.ID, old.Email)
			checkErr(t, when+": UserByEmail(old)", err, storage.ErrNotFound)
		}
		if want.APIKey != old.APIKey {
			_, err := tx.UserByAPIKey(old.APIKey)
			checkErr(t, when+": UserByAPIKey(old)", err, storage.ErrNotFound)
		}
		checkUsers(t, when+": Users", mustUsers(t, tx, realm.ID, nil), []storage.UserRecord{owner, want, bystander})
		checkUsers(t, when+": UsersByRole(new role)", mustUsersByRole(t, tx, realm.ID, want.Role), []storage.UserRecord{want})
		checkUser(t, when+": bystander", mustUser(t, tx, bystander.ID), bystander)
	}
	update(t, st, func(tx storage.Tx) {
		mustUpdateUser(t, tx, changed)
		check(tx, "same transaction", changed)
		checkUsers(t, "same transaction: UsersByRole(old role)", mustUsersByRole(t, tx, realm.ID, storage.RoleMember), []storage.UserRecord{owner, bystander})
		checkUsers(t, "same transaction: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{changed})
	})
	view(t, st, func(tx storage.Tx) {
		check(tx, "after commit", changed)
		checkUsers(t, "after commit: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{changed})
	})

	// Back to a human with zero LastLogin: zero values round-trip on update
	// too, and the old email and key are free for others.
	back := changed
	back.BotType, back.BotOwnerID, back.LastLogin, back.IsImportedStub = storage.BotNone, 0, time.Time{}, false
	update(t, st, func(tx storage.Tx) {
		mustUpdateUser(t, tx, back)
		reuse := userN(realm.ID, 4)
		reuse.Email, reuse.APIKey = old.Email, old.APIKey
		createUser(t, tx, reuse)
	})
	view(t, st, func(tx storage.Tx) {
		checkUser(t, "after second update: User", mustUser(t, tx, back.ID), back)
		checkUsers(t, "after second update: BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), nil)
	})
}

func (s *suite) testTimes(t *testing.T) {
	st := s.store(t)
	now := time.Now().UTC().Round(0)
	times := []time.Time{
		now,
		{},
		t0,
		time.Date(2000, time.January, 1, 0, 0, 0, 1, time.UTC),
		time.Date(1969, time.December, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2100, time.February, 28, 23, 59, 59, 999999999, time.UTC),
	}
	type pair struct {
		realm storage.Realm
		user  storage.UserRecord
	}
	var created []pair
	update(t, st, func(tx storage.Tx) {
		for i, tm := range times {
			r := realmN(i)
			r.DateCreated = tm
			r = createRealm(t, tx, r)
			u := userN(r.ID, i)
			u.DateJoined = tm
			u.LastLogin = times[len(times)-1-i]
			created = append(created, pair{r, createUser(t, tx, u)})
		}
	})
	view(t, st, func(tx storage.Tx) {
		for _, p := range created {
			checkRealm(t, fmt.Sprintf("realm with DateCreated %v", p.realm.DateCreated), mustRealm(t, tx, p.realm.ID), p.realm)
			got := mustUser(t, tx, p.user.ID)
			checkUser(t, fmt.Sprintf("user with DateJoined %v, LastLogin %v", p.user.DateJoined, p.user.LastLogin), got, p.user)
			if p.user.LastLogin.IsZero() && !got.LastLogin.IsZero() {
				t.Errorf("zero LastLogin read back as %v", got.LastLogin)
			}
		}
	})
}

func (s *suite) testNotFound(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		u = createUser(t, tx, userN(r1.ID, 1))
	})
	check := func(tx storage.Tx, when string) {
		t.Helper()
		_, err := tx.Realm(999)
		checkErr(t, when+": Realm(999)", err, storage.ErrNotFound)
		_, err = tx.Realm(0)
		checkErr(t, when+": Realm(0)", err, storage.ErrNotFound)
		_, err = tx.RealmByHost("nowhere.example.com")
		checkErr(t, when+": RealmByHost(unknown)", err, storage.ErrNotFound)
		_, err = tx.RealmByHost("")
		checkErr(t, when+": RealmByHost(\"\")", err, storage.ErrNotFound)
		_, err = tx.User(999)
		checkErr(t, when+": User(999)", err, storage.ErrNotFound)
		_, err = tx.User(0)
		checkErr(t, when+": User(0)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(r1.ID, "nobody@example.com")
		checkErr(t, when+": UserByEmail(unknown email)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(r2.ID, u.Email)
		checkErr(t, when+": UserByEmail(email of another realm)", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(999, u.Email)
		checkErr(t, when+": UserByEmail(unknown realm)", err, storage.ErrNotFound)
		_, err = tx.UserByAPIKey("no-such-key")
		checkErr(t, when+": UserByAPIKey(unknown)", err, storage.ErrNotFound)
		_, err = tx.UserByAPIKey(u.APIKey + "x")
		checkErr(t, when+": UserByAPIKey(prefix of key)", err, storage.ErrNotFound)
	}
	update(t, st, func(tx storage.Tx) {
		check(tx, "Update")
		r := realmN(3)
		r.ID = 999
		checkErr(t, "UpdateRealm(999)", tx.UpdateRealm(r), storage.ErrNotFound)
		// Unknown ID and a taken host: either error will do, but nothing
		// may be stored.
		r.Host = r2.Host
		if err := tx.UpdateRealm(r); err == nil {
			t.Errorf("UpdateRealm(999 with a taken host) succeeded")
		}
		nu := userN(r1.ID, 5)
		nu.ID = 999
		checkErr(t, "UpdateUser(999)", tx.UpdateUser(nu), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		check(tx, "View")
		checkRealms(t, "Realms after failed updates", mustRealms(t, tx), []storage.Realm{r1, r2})
		checkUsers(t, "Users after failed updates", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{u})
		_, err := tx.User(999)
		checkErr(t, "User(999) after UpdateUser(999)", err, storage.ErrNotFound)
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

func (s *suite) testExistsEmail(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var a, b, a2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		a = userN(r1.ID, 1)
		a.Email = "A@x.com"
		a = createUser(t, tx, a)
		b = createUser(t, tx, userN(r1.ID, 2))
	})
	update(t, st, func(tx storage.Tx) {
		dup := userN(r1.ID, 3)
		dup.Email = "a@X.com"
		checkErr(t, "CreateUser(same email, other case, same realm)", tx.CreateUser(&dup), storage.ErrExists)
		dup.Email = "A@x.com"
		checkErr(t, "CreateUser(same email, same realm)", tx.CreateUser(&dup), storage.ErrExists)

		// The same address is a different account in another realm.
		a2 = userN(r2.ID, 1)
		a2.Email = "a@X.com"
		a2 = createUser(t, tx, a2)

		taken := b
		taken.Email = "a@x.COM"
		taken.FullName = "must not be stored"
		checkErr(t, "UpdateUser(email of another user, other case)", tx.UpdateUser(taken), storage.ErrExists)

		// Changing the case of one's own address is no collision.
		a.Email = "a@x.com"
		mustUpdateUser(t, tx, a)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1)", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{a, b})
		checkUsers(t, "Users(r2)", mustUsers(t, tx, r2.ID, nil), []storage.UserRecord{a2})
		for _, e := range []string{"A@X.COM", "a@x.com", "A@x.com"} {
			checkUser(t, "UserByEmail(r1, "+e+")", mustUserByEmail(t, tx, r1.ID, e), a)
			checkUser(t, "UserByEmail(r2, "+e+")", mustUserByEmail(t, tx, r2.ID, e), a2)
		}
		checkUser(t, "UserByEmail(b)", mustUserByEmail(t, tx, r1.ID, b.Email), b)
	})
}

func (s *suite) testExistsAPIKey(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var a, b storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		a = createUser(t, tx, userN(r1.ID, 1))
		b = createUser(t, tx, userN(r1.ID, 2))
	})
	update(t, st, func(tx storage.Tx) {
		// API keys are unique across realms.
		dup := userN(r2.ID, 3)
		dup.APIKey = a.APIKey
		checkErr(t, "CreateUser(API key of a user of another realm)", tx.CreateUser(&dup), storage.ErrExists)
		dup.RealmID = r1.ID
		checkErr(t, "CreateUser(API key of a user of the same realm)", tx.CreateUser(&dup), storage.ErrExists)

		taken := b
		taken.APIKey = a.APIKey
		taken.FullName = "must not be stored"
		checkErr(t, "UpdateUser(API key of another user)", tx.UpdateUser(taken), storage.ErrExists)

		// Keeping one's own key is no collision.
		b.FullName = "Renamed"
		mustUpdateUser(t, tx, b)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1)", mustUsers(t, tx, r1.ID, nil), []storage.UserRecord{a, b})
		checkUsers(t, "Users(r2)", mustUsers(t, tx, r2.ID, nil), nil)
		checkUser(t, "UserByAPIKey(a)", mustUserByAPIKey(t, tx, a.APIKey), a)
		checkUser(t, "UserByAPIKey(b)", mustUserByAPIKey(t, tx, b.APIKey), b)
		_, err := tx.UserByEmail(r2.ID, userN(r2.ID, 3).Email)
		checkErr(t, "UserByEmail(user whose create failed)", err, storage.ErrNotFound)
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

func (s *suite) testUsersAll(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 12; i++ {
			// Interleave the realms so their IDs interleave.
			if i%3 == 0 {
				in2 = append(in2, createUser(t, tx, userN(r2.ID, i)))
			} else {
				in1 = append(in1, createUser(t, tx, userN(r1.ID, i)))
			}
		}
	})
	// Updates must not reorder users, even when the email, key and role
	// change.
	update(t, st, func(tx storage.Tx) {
		in1[0].Email, in1[0].APIKey, in1[0].Role = "zzz@example.com", "zzz", storage.RoleGuest
		mustUpdateUser(t, tx, in1[0])
		in1[3].IsActive = false
		mustUpdateUser(t, tx, in1[3])
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "Users(r1, nil)", mustUsers(t, tx, r1.ID, nil), in1)
		checkUsers(t, "Users(r2, nil)", mustUsers(t, tx, r2.ID, nil), in2)
		checkUsers(t, "Users(unknown realm, nil)", mustUsers(t, tx, 999, nil), nil)
	})
	update(t, st, func(tx storage.Tx) {
		// Users created in the transaction are listed after the others.
		in1 = append(in1, createUser(t, tx, userN(r1.ID, 100)))
		checkUsers(t, "Users(r1, nil) in the writing transaction", mustUsers(t, tx, r1.ID, nil), in1)
	})
}

func (s *suite) testUsersIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 10; i++ {
			if i%2 == 0 {
				in2 = append(in2, createUser(t, tx, userN(r2.ID, i)))
			} else {
				in1 = append(in1, createUser(t, tx, userN(r1.ID, i)))
			}
		}
	})
	// in1 holds IDs 1,3,5,7,9 and in2 2,4,6,8,10.
	cases := []struct {
		name  string
		realm int64
		ids   []int64
		want  []storage.UserRecord
	}{
		{"one", r1.ID, []int64{in1[2].ID}, in1[2:3]},
		{"unsorted", r1.ID, []int64{in1[4].ID, in1[0].ID, in1[2].ID}, []storage.UserRecord{in1[0], in1[2], in1[4]}},
		{"duplicates", r1.ID, []int64{in1[1].ID, in1[1].ID, in1[0].ID, in1[1].ID}, in1[0:2]},
		{"unknown IDs", r1.ID, []int64{999, in1[3].ID, -1, 0, 1 << 40}, in1[3:4]},
		{"IDs of another realm", r1.ID, []int64{in2[0].ID, in1[0].ID, in2[4].ID}, in1[0:1]},
		{"only IDs of another realm", r1.ID, []int64{in2[0].ID, in2[1].ID}, nil},
		{"all mixed", r2.ID, []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 42}, in2},
		{"empty, not nil", r1.ID, []int64{}, nil},
		{"unknown realm", 999, []int64{in1[0].ID}, nil},
	}
	for _, c := range cases {
		view(t, st, func(tx storage.Tx) {
			ids := slices.Clone(c.ids)
			got := mustUsers(t, tx, c.realm, ids)
			checkUsers(t, fmt.Sprintf("%s: Users(%d, %v)", c.name, c.realm, c.ids), got, c.want)
			if !slices.Equal(ids, c.ids) {
				t.Errorf("%s: Users modified its ids argument: %v, was %v", c.name, ids, c.ids)
			}
		})
	}
	// A long list (longer than SQL's usual bound-parameter limits) of mostly
	// unknown IDs.
	view(t, st, func(tx storage.Tx) {
		ids := make([]int64, 0, 40010)
		for id := int64(40000); id > 0; id-- {
			ids = append(ids, id)
		}
		got := mustUsers(t, tx, r2.ID, ids)
		checkUsers(t, "Users(r2, 40000 IDs)", got, in2)
	})
}

func (s *suite) testActiveUserIDs(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var in1, in2 []int64
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i := 1; i <= 6; i++ {
			u := userN(r1.ID, i)
			// The second and fourth users of realm 1 are deactivated.
			u.IsActive = i != 2 && i != 4
			in1 = append(in1, createUser(t, tx, u).ID)
			in2 = append(in2, createUser(t, tx, userN(r2.ID, 10+i)).ID)
		}
	})
	cases := []struct {
		name  string
		realm int64
		ids   []int64
		want  []int64
	}{
		{"all, unsorted, repeated", r1.ID, []int64{in1[5], in1[0], in1[1], in1[0], in1[3], in1[2], in1[4]},
			[]int64{in1[0], in1[2], in1[4], in1[5]}},
		{"only deactivated", r1.ID, []int64{in1[1], in1[3]}, []int64{}},
		{"unknown and other realm", r1.ID, []int64{999999, in2[0], in1[2], -1}, []int64{in1[2]}},
		{"empty", r1.ID, []int64{}, []int64{}},
		{"nil", r1.ID, nil, []int64{}},
		{"unknown realm", 999999, []int64{in1[0]}, []int64{}},
	}
	for _, c := range cases {
		view(t, st, func(tx storage.Tx) {
			ids := slices.Clone(c.ids)
			got, err := tx.ActiveUserIDs(c.realm, ids)
			if err != nil {
				t.Fatalf("%s: ActiveUserIDs: %v", c.name, err)
			}
			if got == nil || !slices.Equal(got, c.want) {
				t.Errorf("%s: ActiveUserIDs(%d, %v) = %#v, want %v", c.name, c.realm, c.ids, got, c.want)
			}
			if !slices.Equal(ids, c.ids) {
				t.Errorf("%s: ActiveUserIDs modified its ids argument", c.name)
			}
		})
	}
	// Deactivation is seen in the same transaction.
	update(t, st, func(tx storage.Tx) {
		u := mustUsers(t, tx, r2.ID, in2[:1])[0]
		u.IsActive = false
		if err := tx.UpdateUser(u); err != nil {
			t.Fatal(err)
		}
		got, err := tx.ActiveUserIDs(r2.ID, in2[:2])
		if err != nil || !slices.Equal(got, in2[1:2]) {
			t.Errorf("after deactivation: ActiveUserIDs = %v, %v; want %v", got, err, in2[1:2])
		}
	})
}

func (s *suite) testUsersByRole(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	byRole := map[storage.Role][]storage.UserRecord{}
	var otherMembers []storage.UserRecord
	roles := []storage.Role{storage.RoleMember, storage.RoleOwner, storage.RoleGuest, storage.RoleMember, storage.RoleAdmin, storage.RoleOwner, storage.RoleMember}
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		for i, role := range roles {
			u := userN(r1.ID, i)
			u.Role = role
			u.IsActive = i%2 == 0 // inactive users are listed too
			if i == 2 {
				u.BotType, u.BotOwnerID = storage.BotGeneric, 1 // and bots
			}
			byRole[role] = append(byRole[role], createUser(t, tx, u))
			if i%3 == 0 {
				otherMembers = append(otherMembers, createUser(t, tx, userN(r2.ID, i)))
			}
		}
	})
	view(t, st, func(tx storage.Tx) {
		for _, role := range []storage.Role{storage.RoleOwner, storage.RoleAdmin, storage.RoleModerator, storage.RoleMember, storage.RoleGuest} {
			checkUsers(t, fmt.Sprintf("UsersByRole(r1, %d)", role), mustUsersByRole(t, tx, r1.ID, role), byRole[role])
		}
		checkUsers(t, "UsersByRole(r2, member)", mustUsersByRole(t, tx, r2.ID, storage.RoleMember), otherMembers)
		checkUsers(t, "UsersByRole(r2, owner)", mustUsersByRole(t, tx, r2.ID, storage.RoleOwner), nil)
		checkUsers(t, "UsersByRole(unknown realm, member)", mustUsersByRole(t, tx, 999, storage.RoleMember), nil)
	})
	// A role change moves the user between lists, keeping ID order.
	update(t, st, func(tx storage.Tx) {
		u := byRole[storage.RoleMember][0]
		u.Role = storage.RoleOwner
		mustUpdateUser(t, tx, u)
		byRole[storage.RoleMember] = byRole[storage.RoleMember][1:]
		byRole[storage.RoleOwner] = sortedByID(append([]storage.UserRecord{u}, byRole[storage.RoleOwner]...))
		checkUsers(t, "UsersByRole(r1, owner) after promotion", mustUsersByRole(t, tx, r1.ID, storage.RoleOwner), byRole[storage.RoleOwner])
		checkUsers(t, "UsersByRole(r1, member) after promotion", mustUsersByRole(t, tx, r1.ID, storage.RoleMember), byRole[storage.RoleMember])
	})
}

func (s *suite) testBotsOwnedBy(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var o1, o2, lonely storage.UserRecord
	var bots1, bots2 []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		o1 = createUser(t, tx, userN(r1.ID, 1))
		o2 = createUser(t, tx, userN(r1.ID, 2))
		lonely = createUser(t, tx, userN(r1.ID, 3))
		createUser(t, tx, userN(r2.ID, 1))
		for i := 10; i < 16; i++ {
			b := userN(r1.ID, i)
			b.BotType = storage.BotType(1 + i%4)
			switch i % 3 {
			case 0:
				b.BotOwnerID = o1.ID
				b.IsActive = i != 12 // deactivated bots are listed too
				bots1 = append(bots1, createUser(t, tx, b))
			case 1:
				b.BotOwnerID = o2.ID
				bots2 = append(bots2, createUser(t, tx, b))
			default:
				// A legacy bot without owner.
				createUser(t, tx, b)
			}
		}
		// A human whose BotOwnerID is set is not a bot.
		h := userN(r1.ID, 20)
		h.BotOwnerID = o1.ID
		createUser(t, tx, h)
	})
	view(t, st, func(tx storage.Tx) {
		checkUsers(t, "BotsOwnedBy(o1)", mustBotsOwnedBy(t, tx, o1.ID), bots1)
		checkUsers(t, "BotsOwnedBy(o2)", mustBotsOwnedBy(t, tx, o2.ID), bots2)
		checkUsers(t, "BotsOwnedBy(user without bots)", mustBotsOwnedBy(t, tx, lonely.ID), nil)
		checkUsers(t, "BotsOwnedBy(a bot)", mustBotsOwnedBy(t, tx, bots1[0].ID), nil)
		checkUsers(t, "BotsOwnedBy(unknown user)", mustBotsOwnedBy(t, tx, 999), nil)
		checkUsers(t, "BotsOwnedBy(0), which owns nothing", mustBotsOwnedBy(t, tx, 0), nil)
	})
	// Handing a bot over moves it between lists.
	update(t, st, func(tx storage.Tx) {
		b := bots1[0]
		b.BotOwnerID = o2.ID
		mustUpdateUser(t, tx, b)
		checkUsers(t, "BotsOwnedBy(o1) after hand-over", mustBotsOwnedBy(t, tx, o1.ID), bots1[1:])
		checkUsers(t, "BotsOwnedBy(o2) after hand-over", mustBotsOwnedBy(t, tx, o2.ID), sortedByID(append([]storage.UserRecord{b}, bots2...)))
	})
}

func (s *suite) testViewReadOnly(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	view(t, st, func(tx storage.Tx) {
		nr := realmN(2)
		checkErr(t, "CreateRealm in View", tx.CreateRealm(&nr), storage.ErrReadOnly)
		cr := r
		cr.Name = "changed"
		checkErr(t, "UpdateRealm in View", tx.UpdateRealm(cr), storage.ErrReadOnly)
		nu := userN(r.ID, 2)
		checkErr(t, "CreateUser in View", tx.CreateUser(&nu), storage.ErrReadOnly)
		cu := u
		cu.FullName = "changed"
		checkErr(t, "UpdateUser in View", tx.UpdateUser(cu), storage.ErrReadOnly)
		// Reads still work after the refused writes.
		checkRealm(t, "Realm after refused writes", mustRealm(t, tx, r.ID), r)
	})
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms", mustRealms(t, tx), []storage.Realm{r})
		checkUsers(t, "Users", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{u})
		_, err := tx.RealmByHost(realmN(2).Host)
		checkErr(t, "RealmByHost(realm created in View)", err, storage.ErrNotFound)
	})
}

var errTest = errors.New("storagetest: error returned by fn")

func (s *suite) testViewError(t *testing.T) {
	st := s.store(t)
	err := st.View(context.Background(), func(tx storage.Tx) error {
		return fmt.Errorf("wrapped: %w", errTest)
	})
	checkErr(t, "View whose fn fails", err, errTest)
}

func (s *suite) testViewSnapshot(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	done := make(chan error, 1)
	view(t, st, func(tx storage.Tx) {
		before := mustRealm(t, tx, r.ID)
		go func() {
			done <- st.Update(context.Background(), func(tx storage.Tx) error {
				r2 := r
				r2.Name = "changed"
				if err := tx.UpdateRealm(r2); err != nil {
					return err
				}
				u2 := u
				u2.FullName = "changed"
				if err := tx.UpdateUser(u2); err != nil {
					return err
				}
				nr := realmN(2)
				if err := tx.CreateRealm(&nr); err != nil {
					return err
				}
				nu := userN(r.ID, 2)
				return tx.CreateUser(&nu)
			})
		}()
		// Either the Update waits for this View, or it commits while the
		// View runs; both are fine, but the View must not see it.
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("concurrent Update: %v", err)
			}
			done <- nil
		case <-time.After(200 * time.Millisecond):
		}
		checkRealm(t, "Realm read again in the same View", mustRealm(t, tx, r.ID), before)
		checkRealms(t, "Realms in the same View", mustRealms(t, tx), []storage.Realm{r})
		checkUser(t, "User in the same View", mustUser(t, tx, u.ID), u)
		checkUsers(t, "Users in the same View", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{u})
	})
	if err := <-done; err != nil {
		t.Fatalf("concurrent Update: %v", err)
	}
	view(t, st, func(tx storage.Tx) {
		if got := mustRealm(t, tx, r.ID); got.Name != "changed" {
			t.Errorf("a View after the Update sees realm name %q, want %q", got.Name, "changed")
		}
		if got := mustUsers(t, tx, r.ID, nil); len(got) != 2 {
			t.Errorf("a View after the Update sees %d users, want 2", len(got))
		}
	})
}

func (s *suite) testReadYourWrites(t *testing.T) {
	st := s.store(t)
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		checkRealm(t, "Realm", mustRealm(t, tx, r.ID), r)
		checkRealm(t, "RealmByHost", mustRealmByHost(t, tx, r.Host), r)
		checkRealms(t, "Realms", mustRealms(t, tx), []storage.Realm{r})
		owner := userN(r.ID, 1)
		owner.Role = storage.RoleOwner
		owner = createUser(t, tx, owner)
		bot := fullBot(r.ID, owner.ID)
		bot = createUser(t, tx, bot)
		checkUser(t, "User", mustUser(t, tx, owner.ID), owner)
		checkUser(t, "UserByEmail", mustUserByEmail(t, tx, r.ID, owner.Email), owner)
		checkUser(t, "UserByAPIKey", mustUserByAPIKey(t, tx, owner.APIKey), owner)
		checkUsers(t, "Users", mustUsers(t, tx, r.ID, nil), []storage.UserRecord{owner, bot})
		checkUsers(t, "Users(ids)", mustUsers(t, tx, r.ID, []int64{bot.ID}), []storage.UserRecord{bot})
		checkUsers(t, "UsersByRole", mustUsersByRole(t, tx, r.ID, storage.RoleOwner), []storage.UserRecord{owner})
		checkUsers(t, "BotsOwnedBy", mustBotsOwnedBy(t, tx, owner.ID), []storage.UserRecord{bot})
		// A check-then-write inside one transaction sees the write.
		dup := userN(r.ID, 1)
		dup.APIKey = "other"
		checkErr(t, "CreateUser(email created in the same transaction)", tx.CreateUser(&dup), storage.ErrExists)
	})
}

func (s *suite) testCommit(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
	})
	view(t, st, func(tx storage.Tx) {
		checkRealm(t, "Realm after commit", mustRealm(t, tx, r.ID), r)
		checkUser(t, "User after commit", mustUser(t, tx, u.ID), u)
	})
	update(t, st, func(tx storage.Tx) {
		checkRealm(t, "Realm in the next Update", mustRealm(t, tx, r.ID), r)
		u.LastLogin = t0.Add(time.Hour)
		mustUpdateUser(t, tx, u)
	})
	view(t, st, func(tx storage.Tx) {
		checkUser(t, "User after second commit", mustUser(t, tx, u.ID), u)
	})
}

// rollbackFixture is committed state that a failing transaction modifies.
type rollbackFixture struct {
	r1      storage.Realm
	u1, u2  storage.UserRecord
	maxID   int64
	newHost string
	newUser storage.UserRecord
}

func setupRollback(t *testing.T, st storage.Store) *rollbackFixture {
	t.Helper()
	f := &rollbackFixture{newHost: "rolled-back.example.com"}
	update(t, st, func(tx storage.Tx) {
		f.r1 = createRealm(t, tx, realmN(1))
		f.u1 = createUser(t, tx, userN(f.r1.ID, 1))
		f.u2 = createUser(t, tx, userN(f.r1.ID, 2))
	})
	f.maxID = f.u2.ID
	f.newUser = userN(f.r1.ID, 3)
	return f
}

// writeAll makes every kind of write, checking that the transaction sees
// them.
func (f *rollbackFixture) writeAll(t *testing.T, tx storage.Tx) {
	t.Helper()
	r2 := createRealm(t, tx, storage.Realm{Name: "New", Host: f.newHost})
	r1 := f.r1
	r1.Name, r1.Host, r1.Deactivated = "Changed", "changed.example.com", true
	mustUpdateRealm(t, tx, r1)
	u3 := createUser(t, tx, f.newUser)
	createUser(t, tx, userN(r2.ID, 4))
	u1 := f.u1
	u1.Email, u1.APIKey, u1.Role, u1.LastLogin = "changed@example.com", "changed-key", storage.RoleOwner, t0
	mustUpdateUser(t, tx, u1)
	checkUser(t, "new user inside the transaction", mustUser(t, tx, u3.ID), u3)
	checkUser(t, "changed user inside the transaction", mustUserByAPIKey(t, tx, "changed-key"), u1)
	if got := mustRealms(t, tx); len(got) != 2 {
		t.Errorf("Realms inside the transaction: got %d, want 2", len(got))
	}
}

// checkRolledBack checks that nothing of writeAll is left, and that the
// freed keys can be used again.
func (f *rollbackFixture) checkRolledBack(t *testing.T, st storage.Store) {
	t.Helper()
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after rollback", mustRealms(t, tx), []storage.Realm{f.r1})
		checkRealm(t, "RealmByHost(old host) after rollback", mustRealmByHost(t, tx, f.r1.Host), f.r1)
		for _, host := range []string{f.newHost, "changed.example.com"} {
			_, err := tx.RealmByHost(host)
			checkErr(t, "RealmByHost("+host+") after rollback", err, storage.ErrNotFound)
		}
		checkUsers(t, "Users after rollback", mustUsers(t, tx, f.r1.ID, nil), []storage.UserRecord{f.u1, f.u2})
		checkUser(t, "UserByEmail(old email) after rollback", mustUserByEmail(t, tx, f.r1.ID, f.u1.Email), f.u1)
		checkUser(t, "UserByAPIKey(old key) after rollback", mustUserByAPIKey(t, tx, f.u1.APIKey), f.u1)
		checkUsers(t, "UsersByRole(owner) after rollback", mustUsersByRole(t, tx, f.r1.ID, storage.RoleOwner), nil)
		_, err := tx.User(f.maxID + 1)
		checkErr(t, "User(created, rolled back) after rollback", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(f.r1.ID, "changed@example.com")
		checkErr(t, "UserByEmail(new email) after rollback", err, storage.ErrNotFound)
		_, err = tx.UserByEmail(f.r1.ID, f.newUser.Email)
		checkErr(t, "UserByEmail(created, rolled back) after rollback", err, storage.ErrNotFound)
		for _, key := range []string{"changed-key", f.newUser.APIKey} {
			_, err = tx.UserByAPIKey(key)
			checkErr(t, "UserByAPIKey("+key+") after rollback", err, storage.ErrNotFound)
		}
	})
	// The store stays usable (a leaked lock or connection would block
	// here), and the rolled-back keys are free.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := st.Update(ctx, func(tx storage.Tx) error {
		r := createRealm(t, tx, storage.Realm{Host: f.newHost})
		u := createUser(t, tx, f.newUser)
		if u.ID <= f.maxID {
			t.Errorf("user created after rollback got ID %d, want > %d", u.ID, f.maxID)
		}
		if r.ID <= f.r1.ID {
			t.Errorf("realm created after rollback got ID %d, want > %d", r.ID, f.r1.ID)
		}
		u1 := f.u1
		u1.Email, u1.APIKey = "changed@example.com", "changed-key"
		return tx.UpdateUser(u1)
	})
	if err != nil {
		t.Fatalf("Update after rollback: %v", err)
	}
}

func (s *suite) testRollbackOnError(t *testing.T) {
	st := s.store(t)
	f := setupRollback(t, st)
	ran := false
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		ran = true
		f.writeAll(t, tx)
		return fmt.Errorf("wrapped: %w", errTest)
	})
	if !ran {
		t.Fatal("Update did not run fn")
	}
	checkErr(t, "Update whose fn fails", err, errTest)
	f.checkRolledBack(t, st)
}

// testPanic is the value the panicking fn panics with.
type testPanic struct{ msg string }

func (s *suite) testRollbackOnPanic(t *testing.T) {
	st := s.store(t)
	f := setupRollback(t, st)
	want := testPanic{"storagetest: panic in fn"}
	func() {
		defer func() {
			if got := recover(); got != want {
				t.Errorf("recovered %v, want the panic of fn %v", got, want)
			}
		}()
		err := st.Update(context.Background(), func(tx storage.Tx) error {
			f.writeAll(t, tx)
			panic(want)
		})
		t.Errorf("Update returned %v instead of panicking", err)
	}()
	f.checkRolledBack(t, st)
}

func (s *suite) testNoAliasing(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u, v storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
		v = createUser(t, tx, userN(r.ID, 2))
	})
	wantR, wantU, wantV := r, u, v

	// Values passed to the store are copied.
	r.Name, u.FullName = "mutated after create", "mutated after create"
	update(t, st, func(tx storage.Tx) {
		upd := wantV
		upd.FullName = "Updated"
		mustUpdateUser(t, tx, upd)
		wantV = upd
		upd.FullName = "mutated after update"
	})

	mutateRealms := func(rs []storage.Realm) {
		for i := range rs {
			rs[i].Name = "mutated"
			rs[i].ID = 999
		}
	}
	mutateUsers := func(us []storage.UserRecord) {
		for i := range us {
			us[i].FullName = "mutated"
			us[i].Email = "mutated@example.com"
			us[i].ID = 999
		}
	}
	check := func(tx storage.Tx, when string) {
		t.Helper()
		checkRealm(t, when+": Realm", mustRealm(t, tx, wantR.ID), wantR)
		checkRealms(t, when+": Realms", mustRealms(t, tx), []storage.Realm{wantR})
		checkUser(t, when+": User(u)", mustUser(t, tx, wantU.ID), wantU)
		checkUser(t, when+": User(v)", mustUser(t, tx, wantV.ID), wantV)
		checkUsers(t, when+": Users", mustUsers(t, tx, wantR.ID, nil), []storage.UserRecord{wantU, wantV})
	}
	mutate := func(tx storage.Tx) {
		got := mustRealm(t, tx, wantR.ID)
		got.Name = "mutated"
		byHost := mustRealmByHost(t, tx, wantR.Host)
		byHost.Name = "mutated"
		mutateRealms(mustRealms(t, tx))
		gu := mustUser(t, tx, wantU.ID)
		gu.FullName = "mutated"
		mutateUsers(mustUsers(t, tx, wantR.ID, nil))
		mutateUsers(mustUsers(t, tx, wantR.ID, []int64{wantU.ID, wantV.ID}))
		mutateUsers(mustUsersByRole(t, tx, wantR.ID, storage.RoleMember))
		// Appending to a returned slice must not show up either.
		us := mustUsers(t, tx, wantR.ID, nil)
		_ = append(us[:1], storage.UserRecord{ID: 999})
		rs := mustRealms(t, tx)
		_ = append(rs[:0], storage.Realm{ID: 999})
	}
	view(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same View")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "next View") })
	update(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same Update")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "View after Update") })
}

func (s *suite) testCanceled(t *testing.T) {
	st := s.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := st.View(ctx, func(storage.Tx) error { ran = true; return nil })
	checkErr(t, "View with a canceled context", err, context.Canceled)
	if ran {
		t.Error("View with a canceled context ran fn")
	}
	ran = false
	err = st.Update(ctx, func(tx storage.Tx) error {
		ran = true
		r := realmN(1)
		return tx.CreateRealm(&r)
	})
	checkErr(t, "Update with a canceled context", err, context.Canceled)
	if ran {
		t.Error("Update with a canceled context ran fn")
	}
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

// testCanceledWhileWaiting cancels an Update while it waits for another
// one to finish: it must not run once the other is done.
func (s *suite) testCanceledWhileWaiting(t *testing.T) {
	st := s.store(t)
	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.Update(context.Background(), func(storage.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	ran := make(chan bool, 1)
	go func() {
		second <- st.Update(ctx, func(tx storage.Tx) error {
			ran <- true
			r := realmN(1)
			return tx.CreateRealm(&r)
		})
	}()
	time.Sleep(50 * time.Millisecond) // let the second Update start waiting
	cancel()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first Update: %v", err)
	}
	checkErr(t, "Update canceled while waiting", <-second, context.Canceled)
	select {
	case <-ran:
		t.Error("Update canceled while waiting ran fn")
	default:
	}
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

// testCanceledWhileRunning cancels an Update while fn runs, for backends
// whose Updates run side by side: it must commit nothing and report the
// cancellation.
func (s *suite) testCanceledWhileRunning(t *testing.T) {
	st := s.store(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := st.Update(ctx, func(tx storage.Tx) error {
		r := realmN(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		cancel()
		return nil
	})
	checkErr(t, "Update canceled while running", err, context.Canceled)
	view(t, st, func(tx storage.Tx) {
		checkRealms(t, "Realms after canceled Update", mustRealms(t, tx), nil)
	})
}

func (s *suite) testConcurrentCreates(t *testing.T) {
	const goroutines, perGoroutine = 8, 20
	st := s.store(t)
	var realm storage.Realm
	update(t, st, func(tx storage.Tx) { realm = createRealm(t, tx, realmN(1)) })

	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				u := userN(realm.ID, g*perGoroutine+i)
				err := st.Update(context.Background(), func(tx storage.Tx) error {
					return tx.CreateUser(&u)
				})
				if err != nil {
					t.Errorf("goroutine %d: CreateUser %d: %v", g, i, err)
					return
				}
				ids[g] = append(ids[g], u.ID)
			}
		})
		// Readers run alongside and always see an ordered list.
		wg.Go(func() {
			for range perGoroutine / 2 {
				err := st.View(context.Background(), func(tx storage.Tx) error {
					us, err := tx.Users(realm.ID, nil)
					if err != nil {
						return err
					}
					if !slices.IsSortedFunc(us, func(a, b storage.UserRecord) int { return cmp.Compare(a.ID, b.ID) }) {
						t.Errorf("concurrent View: Users not ordered by ID: %v", userIDs(us))
					}
					return nil
				})
				if err != nil {
					t.Errorf("concurrent View: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var all []int64
	for g := range ids {
		if !slices.IsSorted(ids[g]) {
			t.Errorf("goroutine %d got decreasing IDs %v", g, ids[g])
		}
		all = append(all, ids[g]...)
	}
	slices.Sort(all)
	if n := len(slices.Compact(slices.Clone(all))); n != goroutines*perGoroutine {
		t.Errorf("got %d distinct IDs, want %d: %v", n, goroutines*perGoroutine, all)
	}
	view(t, st, func(tx storage.Tx) {
		if got := userIDs(mustUsers(t, tx, realm.ID, nil)); !slices.Equal(got, all) {
			t.Errorf("Users after concurrent creates = %v, want %v", got, all)
		}
	})
}

func (s *suite) testConcurrentReadModifyWrite(t *testing.T) {
	const goroutines, perGoroutine = 8, 20
	st := s.store(t)
	var realm storage.Realm
	update(t, st, func(tx storage.Tx) {
		r := realmN(1)
		r.Description = "0"
		realm = createRealm(t, tx, r)
	})
	// Each Update increments a counter read in the same transaction: lost
	// updates mean Updates are not serialised.
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range perGoroutine {
				err := st.Update(context.Background(), func(tx storage.Tx) error {
					r, err := tx.Realm(realm.ID)
					if err != nil {
						return err
					}
					n, err := strconv.Atoi(r.Description)
					if err != nil {
						return err
					}
					runtime.Gosched() // widen the window for a lost update
					r.Description = strconv.Itoa(n + 1)
					return tx.UpdateRealm(r)
				})
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	view(t, st, func(tx storage.Tx) {
		want := strconv.Itoa(goroutines * perGoroutine)
		if got := mustRealm(t, tx, realm.ID).Description; got != want {
			t.Errorf("counter after %d increments = %s", goroutines*perGoroutine, got)
		}
	})
}

func (s *suite) testClose(t *testing.T) {
	st := s.open(t)
	update(t, st, func(tx storage.Tx) { createRealm(t, tx, realmN(1)) })
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ran := false
	if err := st.View(context.Background(), func(storage.Tx) error { ran = true; return nil }); err == nil {
		t.Error("View after Close succeeded")
	}
	if err := st.Update(context.Background(), func(storage.Tx) error { ran = true; return nil }); err == nil {
		t.Error("Update after Close succeeded")
	}
	if ran {
		t.Error("a transaction ran fn after Close")
	}
}
