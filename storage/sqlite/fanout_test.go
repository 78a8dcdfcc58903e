package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/storagetest"
)

// TestConformanceDeferred runs the conformance suite with the rows of
// every new message deferred (fanout.go): once settled only by the writes
// that need them, so that every read counts in the pending rows itself,
// and once also by the settler, in turns of one row, racing the reads. Under the race detector,
// where the suite takes minutes, only the second runs: its reads within
// the settler's delay count pending rows in too.
func TestConformanceDeferred(t *testing.T) {
	variants := []bool{false, true}
	if raceEnabled {
		variants = []bool{true}
	}
	for _, auto := range variants {
		t.Run(map[bool]string{false: "reads merge", true: "settler"}[auto], func(t *testing.T) {
			storagetest.Run(t, func(t *testing.T) storage.Store {
				s, err := openStore(filepath.Join(t.TempDir(), "chat.db"), 1, auto)
				if err != nil {
					t.Fatal(err)
				}
				// Turns of one row each, so that the reads meet messages
				// partly stored (settleInTurns).
				s.settleTurn.Store(1)
				return s
			})
		})
	}
}

// deferringStore opens a store in a temporary directory that defers big
// messages' rows as chatd's does, without the settler: they stay pending
// until a write or Settle moves them.
func deferringStore(t *testing.T) *Store {
	t.Helper()
	s, err := openStore(filepath.Join(t.TempDir(), "chat.db"), defaultDeferMin, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// pendingCount returns the messages whose rows are pending.
func pendingCount(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages_pending`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// bigChannel makes a realm and a channel, and n users of the realm.
func bigChannel(tb testing.TB, s *Store, n int) (realmID, channelID int64, users []int64) {
	tb.Helper()
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		r := storage.Realm{Name: "R", Host: "r.example.com"}
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		for i := range n {
			u := storage.UserRecord{RealmID: r.ID, Email: fmt.Sprintf("u%d@example.com", i), FullName: "U",
				APIKey: fmt.Sprintf("key%029d", i)}
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			users = append(users, u.ID)
		}
		cs := []*storage.Channel{{RealmID: r.ID, Name: "big"}}
		if err := tx.CreateChannels(cs); err != nil {
			return err
		}
		realmID, channelID = r.ID, cs[0].ID
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return realmID, channelID, users
}

// fanoutFixture makes a channel of 100 users (bigChannel) and one message
// to it: the sender's row is read, the other 99 carry no flag.
func fanoutFixture(t *testing.T, s *Store) (realmID, channelID, messageID int64, users []int64) {
	t.Helper()
	realmID, channelID, users = bigChannel(t, s, 100)
	update(t, s, func(tx storage.Tx) error {
		m := &storage.MessageRecord{RealmID: realmID, SenderID: users[0], RecipientType: storage.RecipientChannel,
			ChannelID: channelID, Topic: "t", Content: "hi", DateSent: time.Unix(1, 0)}
		if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
			return err
		}
		rows := []storage.UserMessage{{UserID: users[0], MessageID: m.ID, Flags: storage.FlagRead}}
		for _, u := range users[1:] {
			rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID})
		}
		messageID = m.ID
		return tx.CreateUserMessages(rows)
	})
	return realmID, channelID, messageID, users
}

// TestFanoutDeferred follows a big message's rows: pending after the send,
// read as rows meanwhile, settled by the first write that needs them.
func TestFanoutDeferred(t *testing.T) {
	s := deferringStore(t)
	realmID, channelID, id, users := fanoutFixture(t, s)
	if n := pendingCount(t, s); n != 1 {
		t.Fatalf("%d messages pending after the send, want 1", n)
	}
	var stored int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("%d rows stored at once (%v), want the sender's only", stored, err)
	}

	wantRows := []storage.UserMessage{{UserID: users[0], MessageID: id, Flags: storage.FlagRead}}
	for _, u := range users[1:] {
		wantRows = append(wantRows, storage.UserMessage{UserID: u, MessageID: id})
	}
	check := func(when string, tx storage.Tx) {
		t.Helper()
		got, err := tx.MessageRecipients(id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantRows, got); diff != "" {
			t.Errorf("%s: MessageRecipients (-want +got):\n%s", when, diff)
		}
		readers, err := storage.MessageReaders(tx, []int64{id})
		if err != nil || !slices.Equal(readers, users) {
			t.Errorf("%s: MessageReaders = %v, %v; want every user", when, readers, err)
		}
		if um, err := storage.UserMessageOf(tx, users[7], id); err != nil || um.Flags != 0 {
			t.Errorf("%s: UserMessage = %+v, %v; want a row without flags", when, um, err)
		}
		for _, f := range []storage.MessageFilter{
			{RealmID: realmID, UserID: users[7]},
			{RealmID: realmID, UserID: users[7], Unread: true},
			{RealmID: realmID, UserID: users[7], ChannelID: channelID},
			{RealmID: realmID, UserID: users[7], ChannelID: channelID, ChannelHistory: true, Descending: true, Limit: 1},
			{RealmID: realmID, UserID: users[7], Search: []string{"hi"}},
		} {
			rows, err := tx.FindMessages(f)
			if err != nil || len(rows) != 1 || rows[0].Message.ID != id || !rows[0].Received || rows[0].Flags != 0 {
				t.Errorf("%s: FindMessages(%+v) = %+v, %v; want the message, received, unread", when, f, rows, err)
			}
		}
		if rows, err := tx.FindMessages(storage.MessageFilter{RealmID: realmID, UserID: users[7], Starred: true}); err != nil || len(rows) != 0 {
			t.Errorf("%s: starred = %+v, %v; want none", when, rows, err)
		}
		unread, err := storage.UnreadMessages(tx, realmID, users[7], 0)
		if err != nil || len(unread) != 1 || unread[0].ID != id || unread[0].ChannelID != channelID || unread[0].Topic != "t" {
			t.Errorf("%s: UnreadMessages = %+v, %v", when, unread, err)
		}
	}
	if err := s.View(context.Background(), func(tx storage.Tx) error { check("read while pending", tx); return nil }); err != nil {
		t.Fatal(err)
	}

	// A new message's rows cannot meet pending ones: sending a direct
	// message leaves them pending.
	update(t, s, func(tx storage.Tx) error {
		m := &storage.MessageRecord{RealmID: realmID, SenderID: users[0], RecipientType: storage.RecipientDirect,
			DirectUserIDs: users[:2], Content: "psst", DateSent: time.Unix(2, 0)}
		if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
			return err
		}
		return tx.CreateUserMessages([]storage.UserMessage{{UserID: users[0], MessageID: m.ID, Flags: storage.FlagRead},
			{UserID: users[1], MessageID: m.ID}})
	})
	if n := pendingCount(t, s); n != 1 {
		t.Fatalf("%d messages pending after a direct message, want 1: did its send settle?", n)
	}

	// A write that needs the rows settles them, for every user.
	update(t, s, func(tx storage.Tx) error {
		changed, err := tx.UpdateUserMessageFlags(users[1], []int64{id}, storage.FlagStarred, 0)
		if err != nil || !slices.Equal(changed, []int64{id}) {
			t.Errorf("starring a pending row changed %v, %v", changed, err)
		}
		return err
	})
	if n := pendingCount(t, s); n != 0 {
		t.Fatalf("%d messages pending after a write, want none", n)
	}
	wantRows[1].Flags = storage.FlagStarred
	if err := s.View(context.Background(), func(tx storage.Tx) error { check("read once settled", tx); return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestFanoutSettledAfterCrash opens a database that holds pending rows:
// the settler moves them.
func TestFanoutSettledAfterCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	s, err := openStore(path, defaultDeferMin, false)
	if err != nil {
		t.Fatal(err)
	}
	fanoutFixture(t, s)
	s.Close()
	s = open(t, path)
	deadline := time.Now().Add(10 * time.Second)
	for pendingCount(t, s) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("rows still pending 10 s after Open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var stored int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&stored); err != nil || stored != 100 {
		t.Fatalf("%d rows stored (%v), want 100", stored, err)
	}
}

// TestSettleKeepsRowsThere: a pending recipient who has a row of the
// message already keeps that row and its flags, and the settling goes
// on with the others rather than failing every write after it.
func TestSettleKeepsRowsThere(t *testing.T) {
	s := deferringStore(t)
	_, _, id, users := fanoutFixture(t, s)
	// Behind the store's back, which would settle first.
	if _, err := s.writer.Exec(`INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)`,
		users[1], id, int64(storage.FlagStarred)); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(context.Background()); err != nil {
		t.Fatalf("Settle: %v", err)
	}
	if n := pendingCount(t, s); n != 0 {
		t.Errorf("%d messages pending after Settle, want 0", n)
	}
	var rows int
	var flags int64
	if err := s.reader.QueryRow(`SELECT count(*), sum(flags = ?) FROM user_messages WHERE message_id = ?`,
		int64(storage.FlagStarred), id).Scan(&rows, &flags); err != nil {
		t.Fatal(err)
	}
	if rows != len(users) || flags != 1 {
		t.Errorf("after Settle: %d rows, %d starred; want %d and 1", rows, flags, len(users))
	}
}

// TestSettleInTurns: while the settler's turns have stored some pending
// rows and not yet the others (nor listed any), every read sees each
// recipient of each message once, and the last turn leaves the rows,
// the lists and no pending row.
func TestSettleInTurns(t *testing.T) {
	s := deferringStore(t)
	realmID, channelID, users := bigChannel(t, s, 100)
	var ids []int64
	for i := range 3 {
		update(t, s, func(tx storage.Tx) error {
			m := &storage.MessageRecord{RealmID: realmID, SenderID: users[i], RecipientType: storage.RecipientChannel,
				ChannelID: channelID, Topic: "t", Content: "hi", DateSent: time.Unix(int64(i+1), 0)}
			if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
				return err
			}
			ids = append(ids, m.ID)
			var rows []storage.UserMessage
			for _, u := range users {
				um := storage.UserMessage{UserID: u, MessageID: m.ID}
				if u == users[i] {
					um.Flags = storage.FlagRead
				}
				rows = append(rows, um)
			}
			return tx.CreateUserMessages(rows)
		})
	}
	// A first turn of 260 of the 297 pending rows (statements of 256 and
	// of 4): users 0 to about 86.
	update(t, s, func(st storage.Tx) error {
		batch, lists, err := st.(*tx).pendingLists()
		if err != nil {
			return err
		}
		if !slices.Equal(batch, ids) {
			t.Errorf("pending %v, want %v", batch, ids)
		}
		return st.(*tx).storeSettled(settleOrder(batch, lists)[:260])
	})
	var stored int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&stored); err != nil || stored != 263 {
		t.Fatalf("%d rows stored (%v), want 3 at once and 260 in the turn", stored, err)
	}
	if err := s.View(context.Background(), func(tx storage.Tx) error {
		for i, id := range ids {
			var want []storage.UserMessage
			for _, u := range users {
				um := storage.UserMessage{UserID: u, MessageID: id}
				if u == users[i] {
					um.Flags = storage.FlagRead
				}
				want = append(want, um)
			}
			got, err := tx.MessageRecipients(id)
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("MessageRecipients(%d) (-want +got):\n%s", id, diff)
			}
		}
		readers, err := storage.MessageReaders(tx, ids)
		if err != nil || !slices.Equal(readers, users) {
			t.Errorf("MessageReaders = %v, %v; want every user once", readers, err)
		}
		for _, u := range []int64{users[5], users[99]} { // stored, and still pending only
			if um, err := storage.UserMessageOf(tx, u, ids[2]); err != nil || um.Flags != 0 {
				t.Errorf("UserMessage(%d) = %+v, %v; want a row without flags", u, um, err)
			}
			unread, err := storage.UnreadMessages(tx, realmID, u, 0)
			if err != nil || len(unread) != 3 {
				t.Errorf("user %d: %d unread messages (%v), want 3: %+v", u, len(unread), err, unread)
			}
			for _, f := range []storage.MessageFilter{{RealmID: realmID, UserID: u}, {RealmID: realmID, UserID: u, Unread: true},
				{RealmID: realmID, UserID: u, ChannelID: channelID, ChannelHistory: true, Descending: true, Limit: 2}} {
				rows, err := tx.FindMessages(f)
				want := 3
				if f.Limit > 0 {
					want = f.Limit
				}
				if err != nil || len(rows) != want {
					t.Errorf("user %d: FindMessages(%+v) = %d rows, %v; want %d", u, f, len(rows), err, want)
				}
				for _, r := range rows {
					if !r.Received || r.Flags != 0 {
						t.Errorf("user %d: %+v, want received without flags", u, r)
					}
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A message deleted meanwhile takes its stored rows along, those the
	// turn stored but did not list included.
	update(t, s, func(tx storage.Tx) error { return tx.DeleteMessages(ids[:1]) })
	var left int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages WHERE message_id = ?`, ids[0]).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d rows of the deleted message left (%v)", left, err)
	}
	// The deletion settled the others; a new message is pending.
	update(t, s, func(tx storage.Tx) error {
		m := &storage.MessageRecord{RealmID: realmID, SenderID: users[0], RecipientType: storage.RecipientChannel,
			ChannelID: channelID, Topic: "t", Content: "hi", DateSent: time.Unix(9, 0)}
		if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
			return err
		}
		var rows []storage.UserMessage
		for _, u := range users {
			rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID})
		}
		return tx.CreateUserMessages(rows)
	})
	s.settleTurn.Store(30)
	if err := s.settleInTurns(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&stored); err != nil || stored != 300 || pendingCount(t, s) != 0 {
		t.Errorf("after the turns: %d rows stored (%v), %d messages pending; want 300 and none", stored, err, pendingCount(t, s))
	}
	if listed, rows := recipientLists(t, s); !cmp.Equal(listed, rows) {
		t.Errorf("lists %v, rows %v", listed, rows)
	}
}

// TestStoreSettledStatements: storeSettled writes n rows in one statement
// per set bit of n (up to settleChunk rows a statement), every row once.
func TestStoreSettledStatements(t *testing.T) {
	s := deferringStore(t)
	var rows []settledRow
	for u := range int64(200 + 2*settleChunk) {
		rows = append(rows, settledRow{user: u + 1, message: 1})
	}
	for _, c := range []struct{ n, statements int }{{1, 1}, {200, 3}, {256, 1}, {200 + 2*settleChunk, 5}} {
		before := s.queries.Load()
		update(t, s, func(st storage.Tx) error { return st.(*tx).storeSettled(rows[:c.n]) })
		var stored int
		if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&stored); err != nil || stored != c.n {
			t.Errorf("%d rows: %d stored (%v)", c.n, stored, err)
		}
		if got := int(s.queries.Load() - before); got != c.statements {
			t.Errorf("%d rows: %d statements, want %d", c.n, got, c.statements)
		}
		update(t, s, func(st storage.Tx) error {
			_, err := st.(*tx).exec("test", `DELETE FROM user_messages`)
			return err
		})
	}
}

// TestWriterCacheSize: the writer's page cache is writerCacheKiB, the
// readers' SQLite's default.
func TestWriterCacheSize(t *testing.T) {
	s := deferringStore(t)
	var writer, reader int
	if err := s.writer.QueryRow(`PRAGMA cache_size`).Scan(&writer); err != nil {
		t.Fatal(err)
	}
	if err := s.reader.QueryRow(`PRAGMA cache_size`).Scan(&reader); err != nil {
		t.Fatal(err)
	}
	if writer != -writerCacheKiB || reader != -2000 {
		t.Errorf("cache_size: writer %d, reader %d; want %d and -2000", writer, reader, -writerCacheKiB)
	}
}
