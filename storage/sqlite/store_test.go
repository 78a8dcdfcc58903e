package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func update(t *testing.T, s storage.Store, fn func(storage.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s storage.Store, fn func(storage.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

var t0 = time.Date(2025, time.March, 30, 12, 34, 56, 123456789, time.UTC)

func testRealm(i int) storage.Realm {
	return storage.Realm{
		Name:                   fmt.Sprintf("Org %d", i),
		Description:            "Desc",
		Host:                   fmt.Sprintf("org%d.example.com", i),
		URL:                    fmt.Sprintf("https://org%d.example.com", i),
		Deactivated:            i%2 == 0,
		DateCreated:            t0,
		DefaultEmailVisibility: storage.EmailVisibleAdmins,
	}
}

func testUser(realmID int64, i int) storage.UserRecord {
	return storage.UserRecord{
		RealmID:         realmID,
		Email:           fmt.Sprintf("User%d@Example.com", i),
		FullName:        fmt.Sprintf("User %d", i),
		Role:            storage.RoleMember,
		IsActive:        true,
		BotType:         storage.BotGeneric,
		BotOwnerID:      1,
		DateJoined:      t0.Add(time.Duration(i)),
		LastLogin:       t0.Add(time.Hour + time.Duration(i)),
		IsImportedStub:  true,
		Timezone:        "UTC",
		AvatarSource:    "U",
		AvatarVersion:   2,
		APIKey:          fmt.Sprintf("key-%d-%d", realmID, i),
		PasswordHash:    "hash",
		EmailVisibility: storage.EmailVisibleNobody,
	}
}

// TestReopen checks that committed data survives closing the store, and
// that IDs go on where they stopped.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var r storage.Realm
	var u, human storage.UserRecord
	update(t, s, func(tx storage.Tx) error {
		r = testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		u = testUser(r.ID, 1)
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		human = storage.UserRecord{RealmID: r.ID, Email: "h@example.com", APIKey: "h", DateJoined: t0}
		return tx.CreateUser(&human)
	})
	// A rolled-back write must not reappear either.
	s.Update(context.Background(), func(tx storage.Tx) error {
		r2 := testRealm(2)
		tx.CreateRealm(&r2)
		return errors.New("roll back")
	})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = open(t, path)
	view(t, s, func(tx storage.Tx) error {
		gotR, err := tx.RealmByHost(r.Host)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(r, gotR); diff != "" {
			t.Errorf("realm after reopen (-want +got):\n%s", diff)
		}
		gotUs, err := tx.Users(r.ID, nil)
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]storage.UserRecord{u, human}, gotUs); diff != "" {
			t.Errorf("users after reopen (-want +got):\n%s", diff)
		}
		rs, err := tx.Realms()
		if len(rs) != 1 {
			t.Errorf("Realms after reopen: %d realms, want 1", len(rs))
		}
		return err
	})
	update(t, s, func(tx storage.Tx) error {
		u2 := testUser(r.ID, 2)
		if err := tx.CreateUser(&u2); err != nil {
			return err
		}
		if u2.ID != human.ID+1 {
			t.Errorf("user created after reopen got ID %d, want %d", u2.ID, human.ID+1)
		}
		return nil
	})
}

func TestMigrations(t *testing.T) {
	ms, err := sqlcommon.Migrations(migrationFiles, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].Name != "0001_init.sql" {
		t.Fatalf("migrations = %v", ms)
	}
	path := filepath.Join(t.TempDir(), "chat.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var version int
	if err := s.writer.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	latest := ms[len(ms)-1].Version
	if version != latest {
		t.Errorf("user_version = %d, want %d", version, latest)
	}
	var tables int
	if err := s.reader.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('realms', 'users')`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 2 {
		t.Errorf("found %d of the 2 tables", tables)
	}
	// A database from a newer program is refused.
	if _, err := s.writer.Exec(fmt.Sprintf("PRAGMA user_version = %d", latest+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(path); err == nil {
		s.Close()
		t.Fatal("Open of a database with a newer schema succeeded")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a database with a newer schema: %v", err)
	}
}

// TestPragmas checks the settings of both pools.
func TestPragmas(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	want := map[string]string{
		"journal_mode": "wal",
		"busy_timeout": "10000",
		"foreign_keys": "1",
		"synchronous":  "1", // NORMAL
	}
	for pool, db := range map[string]querier{"writer": s.writer, "reader": s.reader} {
		for pragma, value := range want {
			var got string
			if err := db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
				t.Fatalf("%s: PRAGMA %s: %v", pool, pragma, err)
			}
			if got != value {
				t.Errorf("%s: PRAGMA %s = %s, want %s", pool, pragma, got, value)
			}
		}
		var queryOnly string
		if err := db.QueryRow("PRAGMA query_only").Scan(&queryOnly); err != nil {
			t.Fatal(err)
		}
		if wantQO := map[string]string{"writer": "0", "reader": "1"}[pool]; queryOnly != wantQO {
			t.Errorf("%s: PRAGMA query_only = %s, want %s", pool, queryOnly, wantQO)
		}
	}
	// The writer leaves checkpoints to the checkpointer (checkpoint.go).
	var autoCheckpoint int
	if err := s.writer.QueryRow("PRAGMA wal_autocheckpoint").Scan(&autoCheckpoint); err != nil || autoCheckpoint != 0 {
		t.Errorf("writer: PRAGMA wal_autocheckpoint = %d, %v; want 0", autoCheckpoint, err)
	}
	// and cuts back a log file that grew past twice a restart's length.
	var sizeLimit int
	if err := s.writer.QueryRow("PRAGMA journal_size_limit").Scan(&sizeLimit); err != nil || sizeLimit != 128<<20 {
		t.Errorf("writer: PRAGMA journal_size_limit = %d, %v; want %d", sizeLimit, err, 128<<20)
	}
	if n := s.writer.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("writer allows %d connections, want 1", n)
	}
	if n := s.reader.Stats().MaxOpenConnections; n != readerConns {
		t.Errorf("reader allows %d connections, want %d", n, readerConns)
	}
	if _, err := s.reader.Exec(`INSERT INTO realms (name, description, host, url, deactivated, date_created, default_email_visibility) VALUES ('', '', 'x', '', 0, 0, 1)`); err == nil {
		t.Error("the reader pool accepted a write")
	}
}

type querier interface {
	QueryRow(query string, args ...any) *sql.Row
}

// TestQueryPlans checks that every user lookup uses an index and needs no
// sort.
func TestQueryPlans(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	for q := range numQueries {
		text := queries[q]
		if !strings.Contains(text, "FROM users") || q >= firstWrite {
			continue
		}
		args := make([]any, strings.Count(text, "?"))
		for i := range args {
			args[i] = 1
		}
		if q == qUsersIDs {
			args[1] = "[1,2,3]"
		}
		rows, err := s.writer.Query("EXPLAIN QUERY PLAN "+text, args...)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		all := strings.Join(plan, "\n")
		if strings.Contains(all, "TEMP B-TREE") || strings.Contains(all, "SCAN users") {
			t.Errorf("query %s\nhas plan\n%s", text, all)
		}
	}
}

// TestPathEscaping opens a file whose name holds characters that mean
// something in a URI.
func TestPathEscaping(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "we?ird#na%20me &x=1.db")
	s := open(t, path)
	update(t, s, func(tx storage.Tx) error {
		r := testRealm(1)
		return tx.CreateRealm(&r)
	})
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not where expected: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "we?ird#na%20me &x=1.db") {
			t.Errorf("unexpected file %q in the directory", e.Name())
		}
	}
}

// TestOtherConstraints checks that a violated constraint other than
// uniqueness is an error, but neither ErrExists nor a broken transaction.
func TestOtherConstraints(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	var r storage.Realm
	update(t, s, func(tx storage.Tx) error {
		r = testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		orphan := testUser(999, 1)
		err := tx.CreateUser(&orphan)
		if err == nil || errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrNotFound) {
			t.Errorf("CreateUser in an unknown realm: %v, want a foreign key error", err)
		}
		u := testUser(r.ID, 1)
		return tx.CreateUser(&u)
	})
	view(t, s, func(tx storage.Tx) error {
		us, err := tx.Users(r.ID, nil)
		if len(us) != 1 {
			t.Errorf("after a failed and a good CreateUser: %d users, want 1", len(us))
		}
		return err
	})
}

// TestBrokenTransaction checks that an Update whose fn ignores a failure
// that aborted the transaction commits nothing.
func TestBrokenTransaction(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.Update(ctx, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		cancel()
		r2 := testRealm(2)
		if err := tx.CreateRealm(&r2); err == nil {
			t.Error("CreateRealm after cancel succeeded")
		}
		return nil // ignoring the error
	})
	if err == nil {
		t.Error("Update committed after a failed statement")
	}
	view(t, s, func(tx storage.Tx) error {
		rs, err := tx.Realms()
		if len(rs) != 0 {
			t.Errorf("%d realms stored by the broken transaction", len(rs))
		}
		return err
	})
}

func TestTimes(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	zone := time.FixedZone("UTC+1", 3600)
	var u storage.UserRecord
	update(t, s, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		u = testUser(r.ID, 1)
		u.DateJoined = t0.In(zone)
		u.LastLogin = time.Now() // with a monotonic reading
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		bad := testUser(r.ID, 2)
		bad.DateJoined = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := tx.CreateUser(&bad); err == nil {
			t.Error("CreateUser with a time past 2262 succeeded")
		}
		bad.DateJoined = t0
		bad.LastLogin = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := tx.CreateUser(&bad); err == nil {
			t.Error("CreateUser with a time before 1678 succeeded")
		}
		return nil
	})
	view(t, s, func(tx storage.Tx) error {
		got, err := tx.User(u.ID)
		if err != nil {
			return err
		}
		if got.DateJoined != t0 {
			t.Errorf("DateJoined = %v, want %v in UTC", got.DateJoined, t0)
		}
		if want := u.LastLogin.UTC().Round(0); got.LastLogin != want {
			t.Errorf("LastLogin = %v, want %v", got.LastLogin, want)
		}
		us, err := tx.Users(u.RealmID, nil)
		if len(us) != 1 {
			t.Errorf("%d users stored, want 1", len(us))
		}
		return err
	})
}

// TestTwoStores runs read-modify-write Updates from two stores on one file,
// as two processes would: IMMEDIATE transactions and the busy timeout make
// them wait for each other instead of failing.
func TestTwoStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	stores := []*Store{open(t, path), open(t, path)}
	var r storage.Realm
	update(t, stores[0], func(tx storage.Tx) error {
		r = testRealm(1)
		r.Description = "0"
		return tx.CreateRealm(&r)
	})
	const goroutines, perGoroutine = 4, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				err := stores[(g+i)%2].Update(context.Background(), func(tx storage.Tx) error {
					got, err := tx.Realm(r.ID)
					if err != nil {
						return err
					}
					n, err := strconv.Atoi(got.Description)
					if err != nil {
						return err
					}
					time.Sleep(100 * time.Microsecond)
					got.Description = strconv.Itoa(n + 1)
					return tx.UpdateRealm(got)
				})
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	view(t, stores[1], func(tx storage.Tx) error {
		got, err := tx.Realm(r.ID)
		if want := strconv.Itoa(goroutines * perGoroutine); got.Description != want {
			t.Errorf("counter = %s, want %s", got.Description, want)
		}
		return err
	})
}

// TestManyUsers reads 100 000 users at once (10 000 under the race
// detector, which slows SQLite down too much).
func TestManyUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	n := 100_000
	if raceEnabled {
		n = 10_000
	}
	s := open(t, filepath.Join(t.TempDir(), "chat.db"))
	var r storage.Realm
	update(t, s, func(tx storage.Tx) error {
		r = testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		for i := range n {
			u := testUser(r.ID, i)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, s, func(tx storage.Tx) error {
		all, err := tx.Users(r.ID, nil)
		if err != nil {
			return err
		}
		if len(all) != n {
			t.Fatalf("Users(realm, nil) returned %d users, want %d", len(all), n)
		}
		for i := range all {
			if all[i].ID != int64(i+1) {
				t.Fatalf("Users(realm, nil)[%d].ID = %d", i, all[i].ID)
			}
		}
		ids := make([]int64, 0, n/2)
		for id := int64(n); id > 0; id -= 2 {
			ids = append(ids, id)
		}
		some, err := tx.Users(r.ID, ids)
		if err != nil {
			return err
		}
		if len(some) != n/2 || some[0].ID != 2 || some[len(some)-1].ID != int64(n) {
			t.Errorf("Users(realm, %d IDs) returned %d users", len(ids), len(some))
		}
		return nil
	})
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{garbage, filepath.Join(dir, "missing", "chat.db")} {
		if s, err := Open(path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}

// TestMigrationNotificationBotID: messages stored with the notification
// bot's former sender ID 0 get its stable ID.
func TestMigrationNotificationBotID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		return tx.CreateMessages([]*storage.MessageRecord{{RealmID: r.ID, SenderID: 0, RecipientType: storage.RecipientChannel,
			ChannelID: 1, Topic: "t", Content: "hi", RenderedContent: "<p>hi</p>", DateSent: time.Unix(1, 0).UTC()}})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Applying 0011 alone keeps the test independent of later migrations.
	sql, err := migrationFiles.ReadFile("migrations/0011_notification_bot_id.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(string(sql)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	var sender int64
	if err := s.reader.QueryRow(`SELECT sender_id FROM messages`).Scan(&sender); err != nil || sender != 2147483647 {
		t.Errorf("sender after migration 0011 = %d, %v; want 2147483647", sender, err)
	}
}

// TestMigrationSenderDirectIndex: a database of schema 22 gets the indexes
// of the sender and conversation narrows, and a conversation stored with
// another spelling of its JSON array is found by its participants.
func TestMigrationSenderDirectIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	var realm, u1, u2 int64
	update(t, s, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		a, b := testUser(r.ID, 1), testUser(r.ID, 2)
		if err := tx.CreateUser(&a); err != nil {
			return err
		}
		if err := tx.CreateUser(&b); err != nil {
			return err
		}
		realm, u1, u2 = r.ID, a.ID, b.ID
		return nil
	})
	if _, err := s.writer.Exec(`DROP INDEX messages_sender; DROP INDEX messages_direct; DROP TABLE user_messages_pending; DROP TABLE message_recipients;
		ALTER TABLE realms DROP COLUMN default_code_block_language; PRAGMA user_version = 22`); err != nil {
		t.Fatal(err)
	}
	res, err := s.writer.Exec(`INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids,
		topic, topic_key, content, rendered_content, date_sent) VALUES (?, ?, 2, 0, ?, '', '', 'hi', '<p>hi</p>', 0)`,
		realm, u2, fmt.Sprintf("[ %d,  %d ]", u1, u2))
	if err != nil {
		t.Fatal(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(`INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)`, u1, id); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path)
	var indexes int
	if err := s.reader.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index'
		AND name IN ('messages_sender', 'messages_direct')`).Scan(&indexes); err != nil || indexes != 2 {
		t.Errorf("indexes after migration 0023: %d of 2, %v", indexes, err)
	}
	view(t, s, func(tx storage.Tx) error {
		for _, f := range []storage.MessageFilter{
			{RealmID: realm, UserID: u1, DirectUserIDs: []int64{u2, u1}},
			{RealmID: realm, UserID: u1, SenderID: u2},
		} {
			rows, err := tx.FindMessages(f)
			if err != nil {
				return err
			}
			if len(rows) != 1 || rows[0].Message.ID != id || !slices.Equal(rows[0].Message.DirectUserIDs, []int64{u1, u2}) {
				t.Errorf("FindMessages(%+v) after migration 0023 = %+v, want message %d", f, rows, id)
			}
		}
		return nil
	})
}

// TestMigrationUserMessagesUnchecked: a database of schema 24 keeps its
// users' rows, flags and indexes when 0025 rebuilds the table without
// foreign keys; 0026 lists each message's recipients in place of the
// index by message; and deleting a message still deletes its rows.
func TestMigrationUserMessagesUnchecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	var realm int64
	var users, messages []int64
	update(t, s, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		realm = r.ID
		for i := range 2 {
			u := testUser(r.ID, i+1)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			users = append(users, u.ID)
		}
		var ms []*storage.MessageRecord
		for range 2 {
			ms = append(ms, &storage.MessageRecord{RealmID: r.ID, SenderID: users[0], RecipientType: storage.RecipientChannel,
				ChannelID: 1, Topic: "t", Content: "hi", RenderedContent: "<p>hi</p>", DateSent: time.Unix(1, 0).UTC()})
		}
		if err := tx.CreateMessages(ms); err != nil {
			return err
		}
		for _, m := range ms {
			messages = append(messages, m.ID)
		}
		return nil
	})
	// The table as migrations 0006 and 0021 made it, without 0026's, and
	// the realms without 0027's column.
	if _, err := s.writer.Exec(`DROP TABLE message_recipients; DROP TABLE user_messages;
		CREATE TABLE user_messages (
			user_id    INTEGER NOT NULL REFERENCES users (id),
			message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
			flags      INTEGER NOT NULL,
			PRIMARY KEY (user_id, message_id)
		) STRICT, WITHOUT ROWID;
		CREATE INDEX user_messages_message ON user_messages (message_id);
		CREATE INDEX user_messages_unread ON user_messages (user_id, message_id, flags) WHERE flags & 1 = 0;
		CREATE INDEX user_messages_starred ON user_messages (user_id, message_id, flags) WHERE flags & 2 != 0;
		ALTER TABLE realms DROP COLUMN default_code_block_language;
		PRAGMA user_version = 24`); err != nil {
		t.Fatal(err)
	}
	old := []storage.UserMessage{
		{UserID: users[0], MessageID: messages[0], Flags: storage.FlagRead | storage.FlagStarred},
		{UserID: users[1], MessageID: messages[0], Flags: storage.FlagMentioned},
		{UserID: users[1], MessageID: messages[1]},
	}
	for _, r := range old {
		if _, err := s.writer.Exec(`INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)`,
			r.UserID, r.MessageID, int64(r.Flags)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, path)
	var keys int
	if err := s.reader.QueryRow(`SELECT count(*) FROM pragma_foreign_key_list('user_messages')`).Scan(&keys); err != nil || keys != 0 {
		t.Errorf("foreign keys of user_messages after migration 0025: %d, %v; want none", keys, err)
	}
	var indexes []string
	rows, err := s.reader.Query(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'user_messages' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, name)
	}
	rows.Close()
	if want := []string{"user_messages_starred", "user_messages_unread"}; !slices.Equal(indexes, want) {
		t.Errorf("indexes of user_messages after migrations 0025 and 0026: %q, want %q", indexes, want)
	}
	view(t, s, func(tx storage.Tx) error {
		for _, want := range old {
			got, err := tx.(storage.UserMessageTx).UserMessage(want.UserID, want.MessageID)
			if err != nil || got != want {
				t.Errorf("UserMessage(%d, %d) after migration 0025 = %+v, %v; want %+v", want.UserID, want.MessageID, got, err, want)
			}
		}
		unread, err := tx.FindMessages(storage.MessageFilter{RealmID: realm, UserID: users[1], Unread: true})
		if err != nil || len(unread) != 2 {
			t.Errorf("unread of user %d after migration 0025: %d messages, %v; want 2", users[1], len(unread), err)
		}
		for i, want := range [][]storage.UserMessage{old[:2], old[2:]} {
			got, err := tx.MessageRecipients(messages[i])
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("MessageRecipients(%d) after migration 0026 = %+v, %v; want %+v", messages[i], got, err, want)
			}
		}
		return nil
	})
	update(t, s, func(tx storage.Tx) error { return tx.DeleteMessages(messages[:1]) })
	view(t, s, func(tx storage.Tx) error {
		rows, err := tx.MessageRecipients(messages[0])
		if err != nil || len(rows) != 0 {
			t.Errorf("rows of a deleted message: %+v, %v; want none", rows, err)
		}
		return nil
	})
	var left, lists int
	if err := s.reader.QueryRow(`SELECT (SELECT count(*) FROM user_messages WHERE message_id = ?),
		(SELECT count(*) FROM message_recipients)`, messages[0]).Scan(&left, &lists); err != nil || left != 0 || lists != 1 {
		t.Errorf("after deleting message %d: %d of its rows, %d lists, %v; want 0 and 1", messages[0], left, lists, err)
	}
}

// scratchStore opens a store in a new directory, with a table of blobs
// to fill its log with; it returns the database file's path too.
func scratchStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chat.db")
	s := open(t, path)
	if _, err := s.writer.Exec(`CREATE TABLE scratch (b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// writeScratch commits a blob of size bytes; with checkpointed, it waits
// for the checkpoint that the commit asks for.
func writeScratch(t *testing.T, s *Store, size int, checkpointed bool) {
	t.Helper()
	before := s.checkpoints.Load()
	update(t, s, func(st storage.Tx) error {
		_, err := st.(*tx).tx.Exec(`INSERT INTO scratch (b) VALUES (zeroblob(?))`, size)
		return err
	})
	for deadline := time.Now().Add(10 * time.Second); checkpointed && s.checkpoints.Load() == before; {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint within 10 s of a commit (%d so far)", before)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantWriterWait checks that the writer's connection waits for locks as
// dsn sets it.
func wantWriterWait(t *testing.T, s *Store) {
	t.Helper()
	var wait int
	if err := s.writer.QueryRow(`PRAGMA busy_timeout`).Scan(&wait); err != nil || wait != busyTimeoutMillis {
		t.Errorf("writer: PRAGMA busy_timeout = %d, %v; want %d", wait, err, busyTimeoutMillis)
	}
}

// readLog starts a read transaction and reads in it, so that it holds its
// snapshot of the log until the test ends.
func readLog(t *testing.T, s *Store) {
	t.Helper()
	reader, err := s.reader.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Rollback() })
	var rows int
	if err := reader.QueryRow(`SELECT count(*) FROM scratch`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointer: the log is copied back and started over while the
// writer goes on, though the writer never checkpoints. Twenty commits of
// 1 MB each, each followed by the checkpoint it asked for, leave a log of
// about two commits' pages; without checkpoints it would hold all twenty.
func TestCheckpointer(t *testing.T) {
	s, path := scratchStore(t)
	const commits, size = 20, 1 << 20
	for range commits {
		writeScratch(t, s, size, true)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 4*size {
		t.Errorf("log of %d bytes after %d commits of %d bytes, each checkpointed: not started over", fi.Size(), commits, size)
	}
}

// TestCheckpointerRestartsLog: commits back to back leave a passive
// checkpoint no moment in which it has copied the whole log, so the log
// would never start over; past restartFrames the checkpointer starts it
// over on the writer's connection, which gets its own lock wait back.
func TestCheckpointerRestartsLog(t *testing.T) {
	s, _ := scratchStore(t)
	s.restartFrames.Store(64) // 256 KiB
	const size = 64 << 10
	commits := 0
	for deadline := time.Now().Add(20 * time.Second); s.restarts.Load() < 2; commits++ {
		if time.Now().After(deadline) {
			t.Fatalf("%d restarts of the log in %d commits of %d bytes", s.restarts.Load(), commits, size)
		}
		writeScratch(t, s, size, false)
	}
	var rows int
	if err := s.reader.QueryRow(`SELECT count(*) FROM scratch`).Scan(&rows); err != nil || rows != commits {
		t.Errorf("%d rows, %v; want %d", rows, err, commits)
	}
	wantWriterWait(t, s)
}

// TestRestartLogWaitsForReaders: a restart gives up while a reader still
// reads the log (the writer's lock wait given back, writes going on), and
// once the reader is done, the next commit writes the log from its start.
func TestRestartLogWaitsForReaders(t *testing.T) {
	ctx := context.Background()
	s, path := scratchStore(t)
	// The checkpointer's own passive checkpoints would make a restart
	// give up too (a checkpoint does not wait for another).
	s.stopCk()
	<-s.ckDone
	s.stopCk = nil
	for range 20 {
		writeScratch(t, s, 64<<10, false)
	}
	t.Run("reader", func(t *testing.T) {
		readLog(t, s) // until this subtest ends
		if s.restartLog(ctx) {
			t.Error("restartLog succeeded with a reader on the log")
		}
		wantWriterWait(t, s)
		writeScratch(t, s, 64<<10, false)
	})
	if !s.restartLog(ctx) {
		t.Fatal("restartLog failed with no reader")
	}
	before := logFrames(t, path)
	writeScratch(t, s, 64<<10, false)
	if after := logFrames(t, path); after >= before || after > 32 {
		t.Errorf("log of %d pages after a restart and a commit of 16, %d before: not started over", after, before)
	}
}

// TestRestartBacksOffFromReader: a reader that stays on the log makes each
// restart give up; the checkpointer then waits for the log to grow by
// restartFrames more before it tries again, rather than holding the writer
// at every checkpoint.
func TestRestartBacksOffFromReader(t *testing.T) {
	s, path := scratchStore(t)
	s.restartFrames.Store(64) // 256 KiB
	// The reader starts before the first commit's checkpoint, so that it
	// reads that commit from the log.
	writeScratch(t, s, 64<<10, false)
	readLog(t, s)
	const commits = 24 // 16 pages or more each, each checkpointed
	for range commits {
		writeScratch(t, s, 64<<10, true)
	}
	frames := logFrames(t, path)
	tries := s.restartTries.Load()
	if tries == 0 || tries > frames/64+1 {
		t.Errorf("%d restarts tried for a log of %d pages with a reader on it, want 1 to %d", tries, frames, frames/64+1)
	}
	if n := s.restarts.Load(); n != 0 {
		t.Errorf("%d restarts with a reader on the log, want 0", n)
	}
}

// logFrames is the length of path's log in pages, as a passive checkpoint
// on a connection of its own reports it.
func logFrames(t *testing.T, path string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 100 {
		var busy, frames, copied int64
		if err := db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			return frames
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no passive checkpoint in 100 tries")
	return 0
}
