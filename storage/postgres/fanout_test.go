package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// TestFanoutDeferred sends a message to a channel of 100 users: its 99
// flagless rows wait as one pending row, which reads count in and the
// first write that needs the rows moves.
func TestFanoutDeferred(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	s, err := postgres.OpenDeferred(ctx, dsn, 64, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(table string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var users []int64
	var id, realmID int64
	if err := s.Update(ctx, func(tx storage.Tx) error {
		r := storage.Realm{Name: "R", Host: "r.example.com"}
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		for i := range 100 {
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
		m := &storage.MessageRecord{RealmID: r.ID, SenderID: users[0], RecipientType: storage.RecipientChannel,
			ChannelID: cs[0].ID, Topic: "t", Content: "hi", DateSent: time.Unix(1, 0)}
		if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
			return err
		}
		rows := []storage.UserMessage{{UserID: users[0], MessageID: m.ID, Flags: storage.FlagRead}}
		for _, u := range users[1:] {
			rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID})
		}
		id, realmID = m.ID, r.ID
		return tx.CreateUserMessages(rows)
	}); err != nil {
		t.Fatal(err)
	}
	if p, um := count("user_messages_pending"), count("user_messages"); p != 1 || um != 1 {
		t.Fatalf("after the send: %d pending, %d rows; want 1 and the sender's", p, um)
	}
	if err := s.View(ctx, func(tx storage.Tx) error {
		rows, err := tx.MessageRecipients(id)
		if err != nil || len(rows) != 100 || rows[0].Flags != storage.FlagRead || rows[99].Flags != 0 {
			t.Errorf("MessageRecipients while pending: %d rows, %v", len(rows), err)
		}
		found, err := tx.FindMessages(storage.MessageFilter{RealmID: realmID, UserID: users[5], Unread: true})
		if err != nil || len(found) != 1 || !found[0].Received {
			t.Errorf("unread of a recipient while pending: %+v, %v", found, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx storage.Tx) error {
		changed, err := tx.UpdateUserMessageFlags(users[5], []int64{id}, storage.FlagRead, 0)
		if err == nil && !slices.Equal(changed, []int64{id}) {
			t.Errorf("marking a pending row read changed %v", changed)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if p, um := count("user_messages_pending"), count("user_messages"); p != 0 || um != 100 {
		t.Fatalf("after a write: %d pending, %d rows; want none and 100", p, um)
	}
}
