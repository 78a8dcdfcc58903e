package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/sqlite"
)

// twoStores opens two stores on one new database file, as two processes
// would; they are closed when the test ends.
func twoStores(t *testing.T) (*sqlite.Store, *sqlite.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chat.db")
	var stores [2]*sqlite.Store
	for i := range stores {
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	return stores[0], stores[1]
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriterRowCache checks the cache of realm and user rows that write
// transactions read: it saves the statements of repeated reads, and never
// returns a row that another connection (another process) changed, that a
// rolled-back transaction wrote, or that the transaction itself replaced.
func TestWriterRowCache(t *testing.T) {
	ctx := context.Background()
	s1, s2 := twoStores(t)

	var realm storage.Realm
	var user storage.UserRecord
	must := func(err error) { t.Helper(); mustOK(t, err) }
	must(s1.Update(ctx, func(tx storage.Tx) error {
		realm = storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		user = storage.UserRecord{RealmID: realm.ID, Email: "u@example.com", FullName: "Before", IsActive: true, APIKey: "key-1"}
		return tx.CreateUser(&user)
	}))
	// names reads the user's and the realm's names in a write
	// transaction of s and returns them with the statements it ran.
	names := func(s *sqlite.Store) (string, string, int64) {
		t.Helper()
		var un, rn string
		before := s.QueryCount()
		must(s.Update(ctx, func(tx storage.Tx) error {
			u, err := tx.User(user.ID)
			if err != nil {
				return err
			}
			r, err := tx.Realm(realm.ID)
			un, rn = u.FullName, r.Name
			return err
		}))
		return un, rn, s.QueryCount() - before
	}
	expect := func(when, wantUser, wantRealm string, wantQueries int64) {
		t.Helper()
		un, rn, q := names(s1)
		if un != wantUser || rn != wantRealm || q != wantQueries {
			t.Errorf("%s: user %q, realm %q, %d statements; want %q, %q, %d", when, un, rn, q, wantUser, wantRealm, wantQueries)
		}
	}
	expect("first read", "Before", "Org", 2)
	expect("second read", "Before", "Org", 0)

	// Another connection changes both rows.
	must(s2.Update(ctx, func(tx storage.Tx) error {
		if err := setUserName(tx, user.ID, "Elsewhere"); err != nil {
			return err
		}
		return setRealmName(tx, realm.ID, "Renamed Elsewhere")
	}))
	expect("after another connection's commit", "Elsewhere", "Renamed Elsewhere", 2)
	expect("read again", "Elsewhere", "Renamed Elsewhere", 0)

	// A transaction that reads, writes, reads its own write and rolls back.
	rollback := errors.New("rolled back")
	err := s1.Update(ctx, func(tx storage.Tx) error {
		if err := setUserName(tx, user.ID, "Never committed"); err != nil {
			return err
		}
		if got, err := tx.User(user.ID); err != nil || got.FullName != "Never committed" {
			t.Errorf("User after its own update = %q, %v; want %q", got.FullName, err, "Never committed")
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Update = %v, want the rollback", err)
	}
	// The user it wrote is read again; the realm it did not write is not.
	expect("after a rolled-back write", "Elsewhere", "Renamed Elsewhere", 1)
	expect("read again", "Elsewhere", "Renamed Elsewhere", 0)

	// A committed write of this connection is read back.
	must(s1.Update(ctx, func(tx storage.Tx) error { return setRealmName(tx, realm.ID, "Renamed Here") }))
	expect("after its own commit", "Elsewhere", "Renamed Here", 1)
	expect("read again", "Elsewhere", "Renamed Here", 0)

	// A user this connection updated is kept as a read would return it,
	// once committed: the time in another zone comes back in UTC.
	berlin := time.FixedZone("CET", 3600)
	must(s1.Update(ctx, func(tx storage.Tx) error {
		u, err := tx.User(user.ID)
		if err != nil {
			return err
		}
		u.FullName = "Updated Here"
		u.DateJoined = time.Date(2025, 3, 30, 14, 34, 56, 789, berlin)
		u.Status = storage.UserStatus{Text: "busy", EmojiName: "car", EmojiCode: "1f697", ReactionType: storage.UnicodeEmoji}
		return tx.UpdateUser(u)
	}))
	expect("after its own user update", "Updated Here", "Renamed Here", 0)
	var cached, fresh storage.UserRecord
	must(s1.Update(ctx, func(tx storage.Tx) (err error) { cached, err = tx.User(user.ID); return err }))
	must(s1.View(ctx, func(tx storage.Tx) (err error) { fresh, err = tx.User(user.ID); return err }))
	if cached != fresh || cached.DateJoined.Location() != time.UTC {
		t.Errorf("cached user after an update = %+v, want what a read gives: %+v", cached, fresh)
	}

	// Read transactions never use the writer's rows.
	must(s2.Update(ctx, func(tx storage.Tx) error { return setUserName(tx, user.ID, "Third") }))
	must(s1.View(ctx, func(tx storage.Tx) error {
		u, err := tx.User(user.ID)
		if err == nil && u.FullName != "Third" {
			t.Errorf("View: user %q, want %q", u.FullName, "Third")
		}
		return err
	}))
	expect("after the third change", "Third", "Renamed Here", 2)
}

// setUserName renames a user.
func setUserName(tx storage.Tx, id int64, name string) error {
	u, err := tx.User(id)
	if err != nil {
		return err
	}
	u.FullName = name
	return tx.UpdateUser(u)
}

// setRealmName renames an organization.
func setRealmName(tx storage.Tx, id int64, name string) error {
	r, err := tx.Realm(id)
	if err != nil {
		return err
	}
	r.Name = name
	return tx.UpdateRealm(r)
}

// orgOfTwo creates an organization and two active users of it, A and B.
func orgOfTwo(tx storage.Tx) (storage.Realm, storage.UserRecord, storage.UserRecord, error) {
	realm := storage.Realm{Name: "Org", Host: "org.example.com"}
	if err := tx.CreateRealm(&realm); err != nil {
		return realm, storage.UserRecord{}, storage.UserRecord{}, err
	}
	a := storage.UserRecord{RealmID: realm.ID, Email: "a@example.com", FullName: "A", IsActive: true, APIKey: "key-a"}
	b := storage.UserRecord{RealmID: realm.ID, Email: "b@example.com", FullName: "B", IsActive: true, APIKey: "key-b"}
	if err := tx.CreateUser(&a); err != nil {
		return realm, a, b, err
	}
	return realm, a, b, tx.CreateUser(&b)
}

// TestWriterRowCacheMessages checks the same for the rows a reaction
// reads: the message, its recipients and the realm's emoji by name.
func TestWriterRowCacheMessages(t *testing.T) {
	ctx := context.Background()
	s1, s2 := twoStores(t)
	must := func(err error) { t.Helper(); mustOK(t, err) }
	var realm storage.Realm
	var a, b storage.UserRecord
	var m storage.MessageRecord
	must(s1.Update(ctx, func(tx storage.Tx) error {
		var err error
		if realm, a, b, err = orgOfTwo(tx); err != nil {
			return err
		}
		m = storage.MessageRecord{RealmID: realm.ID, SenderID: a.ID, RecipientType: storage.RecipientDirect,
			DirectUserIDs: []int64{a.ID, b.ID}, Content: "first", RenderedContent: "<p>first</p>",
			DateSent: time.Unix(1700000000, 0).UTC(), Client: "test"}
		if err := tx.CreateMessages([]*storage.MessageRecord{&m}); err != nil {
			return err
		}
		return tx.CreateUserMessages([]storage.UserMessage{{UserID: a.ID, MessageID: m.ID, Flags: storage.FlagRead}})
	}))

	read := func() reactionState { t.Helper(); return readReactionState(t, s1, realm.ID, m.ID, b.ID) }
	type state = reactionState
	expect := func(when string, want state) {
		t.Helper()
		if got := read(); !slices.Equal(got.recipients, want.recipients) || got.content != want.content ||
			got.bReceived != want.bReceived || got.emoji != want.emoji || got.statements != want.statements {
			t.Errorf("%s: %+v, want %+v", when, got, want)
		}
	}
	// The recipients, once read, answer UserMessage too. The first read
	// also looks for pending rows (fanout.go): no write since Open has.
	expect("first read", state{"first", []int64{a.ID}, false, false, 4})
	expect("second read", state{"first", []int64{a.ID}, false, false, 0})
	if got := read(); got.content != "first" {
		t.Fatalf("a caller's change to its copy reached the cache")
	}

	// Another connection edits the message, adds a recipient and an emoji.
	must(s2.Update(ctx, func(tx storage.Tx) error {
		edited := m
		edited.Content = "edited elsewhere"
		if err := tx.UpdateMessage(edited); err != nil {
			return err
		}
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: b.ID, MessageID: m.ID}}); err != nil {
			return err
		}
		return tx.CreateRealmEmoji(&storage.RealmEmoji{RealmID: realm.ID, Name: "party", AuthorID: a.ID})
	}))
	// One statement more: whether that commit left rows pending (fanout.go).
	expect("after another connection's commit", state{"edited elsewhere", []int64{a.ID, b.ID}, true, true, 4})

	// This connection edits, deletes and renames, and rolls back.
	rollback := errors.New("rolled back")
	err := s1.Update(ctx, func(tx storage.Tx) error {
		edited := m
		edited.Content = "never"
		if err := tx.UpdateMessage(edited); err != nil {
			return err
		}
		if got, err := tx.Message(m.ID); err != nil || got.Content != "never" {
			t.Errorf("Message after its own update = %q, %v", got.Content, err)
		}
		e, err := tx.RealmEmojiByName(realm.ID, "party")
		if err != nil {
			return err
		}
		e.Name = "renamed"
		if err := tx.UpdateRealmEmoji(e); err != nil {
			return err
		}
		if _, err := tx.RealmEmojiByName(realm.ID, "party"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("RealmEmojiByName(old name) after its own rename = %v, want ErrNotFound", err)
		}
		if err := tx.DeleteMessages([]int64{m.ID}); err != nil {
			return err
		}
		if rows, err := tx.MessageRecipients(m.ID); err != nil || len(rows) != 0 {
			t.Errorf("MessageRecipients after its own delete = %v, %v", rows, err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("Update = %v, want the rollback", err)
	}
	expect("after a rolled-back edit, rename and delete", state{"edited elsewhere", []int64{a.ID, b.ID}, true, true, 3})
	expect("read again", state{"edited elsewhere", []int64{a.ID, b.ID}, true, true, 0})

	// This connection deletes the message for good.
	must(s1.Update(ctx, func(tx storage.Tx) error { return tx.DeleteMessages([]int64{m.ID}) }))
	expect("after its own delete", state{"(none)", nil, false, true, 2})
}

// reactionState is what a reaction reads: the message, its recipients,
// whether user b received it, whether the realm has the emoji "party";
// and how many statements reading them took.
type reactionState struct {
	content    string
	recipients []int64
	bReceived  bool
	emoji      bool
	statements int64
}

// readReactionState reads what a reaction reads, in a write transaction
// of s.
func readReactionState(t *testing.T, s *sqlite.Store, realmID, messageID, bID int64) reactionState {
	t.Helper()
	var st reactionState
	before := s.QueryCount()
	mustOK(t, s.Update(context.Background(), func(tx storage.Tx) error {
		got, err := tx.Message(messageID)
		if errors.Is(err, storage.ErrNotFound) {
			st.content = "(none)"
		} else if err != nil {
			return err
		} else {
			st.content = got.Content
			got.DirectUserIDs[0] = -1 // callers own what they get
		}
		rows, err := tx.MessageRecipients(messageID)
		if err != nil {
			return err
		}
		for _, r := range rows {
			st.recipients = append(st.recipients, r.UserID)
		}
		_, err = storage.UserMessageOf(tx, bID, messageID)
		st.bReceived = err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		_, err = tx.RealmEmojiByName(realmID, "party")
		st.emoji = err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		return nil
	}))
	st.statements = s.QueryCount() - before
	return st
}

// TestWriterRowCacheSubscribers checks that a channel's active subscribers,
// once read by a write transaction, are read again after another
// connection subscribes someone, and not before.
func TestWriterRowCacheSubscribers(t *testing.T) {
	ctx := context.Background()
	s1, s2 := twoStores(t)
	must := func(err error) { t.Helper(); mustOK(t, err) }
	var realm storage.Realm
	var a, b storage.UserRecord
	var ch storage.Channel
	must(s1.Update(ctx, func(tx storage.Tx) error {
		var err error
		if realm, a, b, err = orgOfTwo(tx); err != nil {
			return err
		}
		ch = storage.Channel{RealmID: realm.ID, Name: "general"}
		if err := tx.CreateChannels([]*storage.Channel{&ch}); err != nil {
			return err
		}
		return tx.CreateSubscriptions([]storage.Subscription{{UserID: a.ID, ChannelID: ch.ID, Color: "#000"}})
	}))
	expect := func(when string, want []int64, statements int64) {
		t.Helper()
		must(s1.Update(ctx, func(tx storage.Tx) error {
			before := s1.QueryCount()
			got, err := storage.ActiveSubscribers(tx, realm.ID, []int64{ch.ID})
			if n := s1.QueryCount() - before; err != nil || !slices.Equal(got[ch.ID], want) || n != statements {
				t.Errorf("%s: ActiveSubscribers = %v, %v in %d statements; want %v in %d", when, got, err, n, want, statements)
			}
			return nil
		}))
	}
	expect("first read", []int64{a.ID}, 1)
	expect("second read", []int64{a.ID}, 0)
	must(s2.Update(ctx, func(tx storage.Tx) error {
		return tx.CreateSubscriptions([]storage.Subscription{{UserID: b.ID, ChannelID: ch.ID, Color: "#000"}})
	}))
	expect("after another connection's subscription", []int64{a.ID, b.ID}, 1)
	expect("again", []int64{a.ID, b.ID}, 0)
}

// TestWriterRowCacheKnowsEveryWrite lists the statements of the package
// that write the tables the writer caches rows of. Each one must note
// what it writes (rowcache.go); a new one fails this test until it is
// added here, after it does.
func TestWriterRowCacheKnowsEveryWrite(t *testing.T) {
	want := map[string]int{
		"INSERT INTO realms": 1, "UPDATE realms": 1,
		"INSERT INTO users": 1, "UPDATE users": 2,
		"INSERT INTO messages": 1, "UPDATE messages": 2, "DELETE FROM messages": 1,
		"INSERT INTO user_messages": 3, "UPDATE user_messages": 2, "DELETE FROM user_messages": 3,
		"INSERT INTO realm_emoji": 1, "UPDATE realm_emoji": 1,
		// UpdateSubscription changes no subscriber, only their settings.
		"INSERT INTO subscriptions": 1, "UPDATE subscriptions": 1, "DELETE FROM subscriptions": 1,
	}
	write := regexp.MustCompile(`(?i)\b(INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+(realms|users|messages|user_messages|realm_emoji|subscriptions)\b`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range write.FindAllStringSubmatch(string(src), -1) {
			verb := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
			if strings.HasPrefix(verb, "INSERT") {
				verb = "INSERT INTO" // with OR IGNORE or not
			}
			got[verb+" "+m[2]]++
		}
	}
	for k, n := range got {
		if want[k] != n {
			t.Errorf("%d statements %s..., want %d: does rowcache.go know of them?", n, k, want[k])
		}
	}
	for k, n := range want {
		if got[k] == 0 {
			t.Errorf("no statement %s... (want %d): update this list", k, n)
		}
	}
}
