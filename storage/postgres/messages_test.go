package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
)

// TestFindMessagesNotPrepared checks that FindMessages's and UserByEmail's
// statements are not kept prepared on the connection, where PostgreSQL
// could fall to a generic plan (see each), while the store's other
// statements are:
// with one connection in the pool, the session's prepared statements are
// the store's.
func TestFindMessagesNotPrepared(t *testing.T) {
	dsn := pgtest.Schema(t)
	if strings.Contains(dsn, "://") {
		dsn += "&pool_max_conns=1"
	} else {
		dsn += " pool_max_conns=1"
	}
	s := open(t, dsn)
	defer s.Close()
	ctx := context.Background()
	topic := "t"
	err := s.View(ctx, func(tx storage.Tx) error {
		// More runs than PostgreSQL's five custom plans of a prepared
		// statement.
		for range 7 {
			for _, f := range []storage.MessageFilter{
				{RealmID: 1, UserID: 1, Descending: true, Limit: 50},
				{RealmID: 1, UserID: 1, Search: []string{"word"}, Descending: true, Limit: 50},
				{RealmID: 1, UserID: 1, ChannelID: 1, TopicKey: &topic, Descending: true, Limit: 50},
				{RealmID: 1, UserID: 1, ChannelID: 1, ChannelHistory: true, Limit: 50},
				{RealmID: 1, UserID: 1, SenderID: 2, Descending: true, Limit: 50},
				{RealmID: 1, UserID: 1, DirectUserIDs: []int64{1, 2}, Descending: true, Limit: 50},
			} {
				if _, err := tx.FindMessages(f); err != nil {
					return err
				}
			}
		}
		for range 7 {
			if _, err := tx.UserByEmail(1, "nobody@example.com"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("UserByEmail: %v, want ErrNotFound", err)
			}
		}
		if _, err := tx.Message(1); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Message(1): %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Pool().Query(ctx, `SELECT statement FROM pg_prepared_statements`)
	if err != nil {
		t.Fatal(err)
	}
	statements, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var message bool
	for _, st := range statements {
		if strings.Contains(st, "JOIN messages AS m") || strings.Contains(st, "JOIN user_messages AS um") {
			t.Errorf("a FindMessages statement is prepared: %s", st)
		}
		if strings.Contains(st, "email_key = $2") {
			t.Errorf("UserByEmail's statement is prepared: %s", st)
		}
		message = message || strings.Contains(st, "FROM messages AS m WHERE m.id = $1")
	}
	if !message {
		t.Errorf("the statement of Message is not among the session's prepared statements %q", statements)
	}
}

// TestMigrationSenderDirectIndex: a database without migration 23 gets the
// indexes of the sender and conversation narrows when the store opens it.
func TestMigrationSenderDirectIndex(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := open(t, dsn)
	ctx := context.Background()
	if _, err := s.Pool().Exec(ctx, `DROP INDEX messages_sender; DROP INDEX messages_direct;
		DELETE FROM schema_migrations WHERE version = 23`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dsn)
	defer s.Close()
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema()
		AND indexname IN ('messages_sender', 'messages_direct')`).Scan(&n); err != nil || n != 2 {
		t.Errorf("indexes after migration 23: %d of 2, %v", n, err)
	}
}

// TestMigrationSubscriptionsUserActive: a database without migration 25
// gets its subscriptions' user_active from the users' is_active when the
// store opens it, so that a deactivated subscriber receives nothing.
func TestMigrationSubscriptionsUserActive(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := open(t, dsn)
	ctx := context.Background()
	var realmID, channelID, active int64
	err := s.Update(ctx, func(tx storage.Tx) error {
		realm := storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		a := storage.UserRecord{RealmID: realm.ID, Email: "a@example.com", FullName: "A", IsActive: true, APIKey: "key-a"}
		b := storage.UserRecord{RealmID: realm.ID, Email: "b@example.com", FullName: "B", IsActive: true, APIKey: "key-b"}
		if err := tx.CreateUser(&a); err != nil {
			return err
		}
		if err := tx.CreateUser(&b); err != nil {
			return err
		}
		ch := storage.Channel{RealmID: realm.ID, Name: "general"}
		if err := tx.CreateChannels([]*storage.Channel{&ch}); err != nil {
			return err
		}
		if err := tx.CreateSubscriptions([]storage.Subscription{{UserID: a.ID, ChannelID: ch.ID, Color: "#000"},
			{UserID: b.ID, ChannelID: ch.ID, Color: "#000"}}); err != nil {
			return err
		}
		realmID, channelID, active = realm.ID, ch.ID, a.ID
		b.IsActive = false
		return tx.UpdateUser(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Migration 27's trigger reads the column.
	if _, err := s.Pool().Exec(ctx, `DROP TRIGGER subscriptions_changed ON subscriptions; DROP INDEX subscriptions_active;
		ALTER TABLE subscriptions DROP COLUMN user_active;
		DELETE FROM schema_migrations WHERE version = 25`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dsn)
	defer s.Close()
	err = s.View(ctx, func(tx storage.Tx) error {
		got, err := storage.ActiveSubscribers(tx, realmID, []int64{channelID})
		if err != nil {
			return err
		}
		if want := []int64{active}; len(got[channelID]) != 1 || got[channelID][0] != want[0] {
			t.Errorf("ActiveSubscribers after migration 25 = %v, want %v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrationUserMessagesByRead: a database of one user_messages table
// (migrations 6, 21 and 24) keeps every row and its flags when migration
// 26 splits the table by read state; each row is in its partition, and a
// row marked read moves to the other.
func TestMigrationUserMessagesByRead(t *testing.T) {
	dsn := pgtest.Schema(t)
	s := open(t, dsn)
	ctx := context.Background()
	var realmID int64
	var users, messages []int64
	err := s.Update(ctx, func(tx storage.Tx) error {
		realm := storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		realmID = realm.ID
		for _, name := range []string{"a", "b"} {
			u := storage.UserRecord{RealmID: realm.ID, Email: name + "@example.com", FullName: name, IsActive: true, APIKey: "key-" + name}
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			users = append(users, u.ID)
		}
		var ms []*storage.MessageRecord
		for range 2 {
			ms = append(ms, &storage.MessageRecord{RealmID: realm.ID, SenderID: users[0], RecipientType: storage.RecipientDirect,
				DirectUserIDs: users, Content: "hi", RenderedContent: "<p>hi</p>", DateSent: time.Unix(1, 0).UTC()})
		}
		if err := tx.CreateMessages(ms); err != nil {
			return err
		}
		for _, m := range ms {
			messages = append(messages, m.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `DROP TABLE user_messages;
		CREATE TABLE user_messages (
			user_id    BIGINT NOT NULL,
			message_id BIGINT NOT NULL,
			flags      BIGINT NOT NULL,
			PRIMARY KEY (user_id, message_id)
		);
		CREATE INDEX user_messages_message ON user_messages (message_id);
		CREATE INDEX user_messages_unread ON user_messages (user_id, message_id, flags) WHERE flags & 1 = 0;
		CREATE INDEX user_messages_starred ON user_messages (user_id, message_id, flags) WHERE flags & 2 != 0;
		DELETE FROM schema_migrations WHERE version = 26`); err != nil {
		t.Fatal(err)
	}
	old := []storage.UserMessage{
		{UserID: users[0], MessageID: messages[0], Flags: storage.FlagRead | storage.FlagStarred},
		{UserID: users[0], MessageID: messages[1], Flags: storage.FlagRead},
		{UserID: users[1], MessageID: messages[0], Flags: storage.FlagMentioned},
		{UserID: users[1], MessageID: messages[1]},
	}
	for _, r := range old {
		if _, err := s.Pool().Exec(ctx, `INSERT INTO user_messages (user_id, message_id, flags) VALUES ($1, $2, $3)`,
			r.UserID, r.MessageID, int64(r.Flags)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, dsn)
	defer s.Close()
	partitions := func() (unread, read int) {
		t.Helper()
		if err := s.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM user_messages_unread_rows),
			(SELECT count(*) FROM user_messages_read_rows)`).Scan(&unread, &read); err != nil {
			t.Fatal(err)
		}
		return unread, read
	}
	if unread, read := partitions(); unread != 2 || read != 2 {
		t.Errorf("after migration 26: %d unread rows and %d read, want 2 and 2", unread, read)
	}
	err = s.Update(ctx, func(tx storage.Tx) error {
		for _, want := range old {
			got, err := tx.(storage.UserMessageTx).UserMessage(want.UserID, want.MessageID)
			if err != nil || got != want {
				t.Errorf("UserMessage(%d, %d) after migration 26 = %+v, %v; want %+v", want.UserID, want.MessageID, got, err, want)
			}
		}
		unread, err := tx.FindMessages(storage.MessageFilter{RealmID: realmID, UserID: users[1], Unread: true})
		if err != nil || len(unread) != 2 {
			t.Errorf("unread of user %d after migration 26: %d messages, %v; want 2", users[1], len(unread), err)
		}
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: users[1], MessageID: messages[1], Flags: storage.FlagRead}}); !errors.Is(err, storage.ErrExists) {
			t.Errorf("a read row where an unread one is: %v, want ErrExists", err)
		}
		changed, err := tx.UpdateUserMessageFlags(users[1], messages, storage.FlagRead, 0)
		if err != nil || len(changed) != 2 {
			t.Errorf("marking user %d's rows read: %v, %v; want both", users[1], changed, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if unread, read := partitions(); unread != 0 || read != 4 {
		t.Errorf("after marking read: %d unread rows and %d read, want 0 and 4", unread, read)
	}
}
