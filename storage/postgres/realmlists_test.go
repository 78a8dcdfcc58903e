package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// realmListsSeen is what a message's delivery reads of its organization's
// lists, reduced to what a test compares.
type realmListsSeen struct {
	Groups     map[string][]int64 // members by group name
	Linkifiers []string           // URL templates in order
	AlertWords map[int64][]string
	Muters     []int64 // who muted the sender
}

// TestRealmListsFollowEveryWriter: a store keeps an organization's user
// groups, linkifiers, alert words and mutes by the organization's version
// (migration 28), and another store on the same database (another
// process), a tool writing SQL, and the store's own transactions,
// committed or rolled back, each change the lists that the first store
// answers next; a transaction that has written reads them.
func TestRealmListsFollowEveryWriter(t *testing.T) {
	pgtest.Required(t)
	dsn := pgtest.Schema(t)
	a, b := open(t, dsn), open(t, dsn)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	var realmID int64
	var u []storage.UserRecord
	update := func(s *postgres.Store, fn func(tx storage.Tx) error) { t.Helper(); mustUpdate(t, s, fn) }
	sql := func(query string, args ...any) {
		t.Helper()
		if _, err := b.Pool().Exec(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
	}
	update(b, func(tx storage.Tx) error {
		realm := storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		realmID = realm.ID
		for _, name := range []string{"sender", "b", "c"} {
			user := storage.UserRecord{RealmID: realm.ID, Email: name + "@example.com", FullName: name, IsActive: true, APIKey: "key-" + name}
			if err := tx.CreateUser(&user); err != nil {
				return err
			}
			u = append(u, user)
		}
		return nil
	})
	sender := u[0].ID
	// read reads the lists as a send does: the sender with the
	// organization first.
	read := func(tx storage.Tx) realmListsSeen {
		t.Helper()
		if _, _, err := tx.(storage.UserAndRealmTx).UserAndRealm(sender); err != nil {
			t.Fatal(err)
		}
		return readLists(t, tx, realmID, sender)
	}
	check := func(when string, want realmListsSeen) {
		t.Helper()
		readTwice(t, a, when+": lists", want, read)
	}
	version := func() int64 {
		t.Helper()
		return readVersion(t, a, `SELECT lists_version FROM realms WHERE id = $1`, realmID)
	}
	want := realmListsSeen{Groups: map[string][]int64{}, Linkifiers: []string{}, AlertWords: map[int64][]string{}, Muters: []int64{}}
	check("at first", want)

	group := storage.UserGroup{RealmID: realmID, Name: "team", Members: []int64{u[1].ID}}
	update(b, func(tx storage.Tx) error { return tx.CreateUserGroups([]*storage.UserGroup{&group}) })
	want.Groups = map[string][]int64{"team": {u[1].ID}}
	check("a group created by another process", want)

	group.Members = []int64{u[1].ID, u[2].ID}
	update(b, func(tx storage.Tx) error { return tx.UpdateUserGroup(group) })
	want.Groups = map[string][]int64{"team": {u[1].ID, u[2].ID}}
	check("a group's members changed by another process", want)

	update(b, func(tx storage.Tx) error {
		return tx.CreateLinkifier(&storage.LinkifierRecord{Linkifier: storage.Linkifier{Pattern: `#(?P<id>\d+)`,
			URLTemplate: "https://example.com/{id}"}, RealmID: realmID, Order: 1})
	})
	want.Linkifiers = []string{"https://example.com/{id}"}
	check("a linkifier created by another process", want)

	update(b, func(tx storage.Tx) error { return tx.SetAlertWords(realmID, u[1].ID, []string{"deploy", "outage"}) })
	want.AlertWords = map[int64][]string{u[1].ID: {"deploy", "outage"}}
	check("alert words set by another process", want)

	update(b, func(tx storage.Tx) error {
		return tx.MuteUser(storage.MutedUser{UserID: u[2].ID, MutedUserID: sender, DateMuted: time.Unix(1, 0)})
	})
	want.Muters = []int64{u[2].ID}
	check("the sender muted in another process", want)

	sql(`UPDATE linkifiers SET url_template = 'https://example.org/{id}'`)
	want.Linkifiers = []string{"https://example.org/{id}"}
	check("a linkifier changed by a tool's SQL", want)

	sql(`INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES ($1, $2, 0)`, u[1].ID, sender)
	want.Muters = []int64{u[1].ID, u[2].ID}
	check("the sender muted by a tool's SQL", want)

	sql(`DELETE FROM alert_words WHERE word = 'outage'`)
	want.AlertWords = map[int64][]string{u[1].ID: {"deploy"}}
	check("an alert word deleted by a tool's SQL", want)

	before := version()
	update(b, func(tx storage.Tx) error {
		renamed := u[1]
		renamed.FullName = "B. B."
		return tx.UpdateUser(renamed)
	})
	if after := version(); after != before {
		t.Errorf("a rename changed the organization's version: %d, then %d", before, after)
	}
	check("a rename", want)

	// The store's own transaction: answered from the kept lists until it
	// writes, then from what it wrote; rolled back, the lists are as
	// before.
	errRollBack := errors.New("roll back")
	err := a.Update(ctx, func(tx storage.Tx) error {
		if diff := cmp.Diff(want, read(tx)); diff != "" {
			t.Errorf("in a transaction, before it writes: lists (-want +got):\n%s", diff)
		}
		if err := tx.SetAlertWords(realmID, u[2].ID, []string{"lunch"}); err != nil {
			return err
		}
		if err := tx.MuteUser(storage.MutedUser{UserID: u[1].ID, MutedUserID: u[2].ID, DateMuted: time.Unix(1, 0)}); err != nil {
			return err
		}
		mine := want
		mine.AlertWords = map[int64][]string{u[1].ID: {"deploy"}, u[2].ID: {"lunch"}}
		if diff := cmp.Diff(mine, readLists(t, tx, realmID, sender)); diff != "" {
			t.Errorf("in a transaction, after it wrote: lists (-want +got):\n%s", diff)
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatal(err)
	}
	check("after a transaction rolled back", want)

	// With the triggers off, a change keeps the version: the store answers
	// from its lists, which shows that it keeps them; a store without
	// them reads the change.
	sql(`ALTER TABLE alert_words DISABLE TRIGGER USER`)
	sql(`INSERT INTO alert_words (realm_id, user_id, pos, word) VALUES ($1, $2, 0, 'hidden')`, realmID, u[2].ID)
	sql(`ALTER TABLE alert_words ENABLE TRIGGER USER`)
	check("an alert word added behind the triggers' back", want)
	fresh := open(t, dsn)
	defer fresh.Close()
	err = fresh.View(ctx, func(tx storage.Tx) error {
		seen := read(tx)
		if diff := cmp.Diff(map[int64][]string{u[1].ID: {"deploy"}, u[2].ID: {"hidden"}}, seen.AlertWords); diff != "" {
			t.Errorf("a store without the lists: alert words (-want +got):\n%s", diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	want.AlertWords = map[int64][]string{}
	for _, table := range []string{"alert_words", "muted_users", "linkifiers"} {
		sql(`TRUNCATE ` + table)
	}
	want.Muters, want.Linkifiers = []int64{}, []string{}
	check("alert words, mutes and linkifiers truncated by a tool", want)
	sql(`DELETE FROM user_groups`)
	want.Groups = map[string][]int64{}
	check("groups deleted by a tool", want)
}

// readLists reads the organization's lists in tx.
func readLists(t *testing.T, tx storage.Tx, realmID, sender int64) realmListsSeen {
	t.Helper()
	groups, err := tx.UserGroups(realmID)
	if err != nil {
		t.Fatal(err)
	}
	linkifiers, err := tx.Linkifiers(realmID)
	if err != nil {
		t.Fatal(err)
	}
	words, err := tx.RealmAlertWords(realmID)
	if err != nil {
		t.Fatal(err)
	}
	muters, err := tx.UsersMuting(sender)
	if err != nil {
		t.Fatal(err)
	}
	seen := realmListsSeen{Groups: map[string][]int64{}, Linkifiers: []string{}, AlertWords: words, Muters: muters}
	for _, g := range groups {
		seen.Groups[g.Name] = g.Members
	}
	for _, l := range linkifiers {
		seen.Linkifiers = append(seen.Linkifiers, l.URLTemplate)
	}
	return seen
}
