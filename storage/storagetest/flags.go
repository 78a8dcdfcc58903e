package storagetest

import (
	"context"
	"testing"

	"github.com/teamchat/chat/storage"
)

// testMessageFlags checks UpdateUserMessageFlags (set then clear, only
// the rows that change reported, other users' rows and missing rows left
// alone, rollback) and FindMessages' Unread filter.
func (s *suite) testMessageFlags(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 3))
		rows := []storage.UserMessage{
			{UserID: f.a.ID, MessageID: ms[0].ID, Flags: storage.FlagRead},
			{UserID: f.b.ID, MessageID: ms[0].ID, Flags: storage.FlagMentioned},
			{UserID: f.b.ID, MessageID: ms[1].ID, Flags: storage.FlagRead | storage.FlagStarred},
			{UserID: f.b.ID, MessageID: ms[2].ID, Flags: 0},
		}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	unread := func(tx storage.Tx, userID int64) []int64 {
		t.Helper()
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: f.r.ID, UserID: userID, Unread: true})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{}
		for _, r := range rows {
			ids = append(ids, r.Message.ID)
		}
		return ids
	}
	view(t, st, func(tx storage.Tx) {
		checkEqual(t, "unread of b", unread(tx, f.b.ID), []int64{ms[0].ID, ms[2].ID})
		checkEqual(t, "unread of a", unread(tx, f.a.ID), []int64{})
		// Unread applies to channel history too: rows only.
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: f.r.ID, UserID: f.c.ID, ChannelID: f.ch,
			ChannelHistory: true, Unread: true})
		if err != nil || len(rows) != 0 {
			t.Errorf("unread history without rows = %v, %v; want none", rows, err)
		}
		if _, err := tx.UpdateUserMessageFlags(f.b.ID, []int64{ms[0].ID}, storage.FlagRead, 0); err == nil {
			t.Error("UpdateUserMessageFlags in View succeeded")
		}
	})
	update(t, st, func(tx storage.Tx) {
		// ms[1] is read already; c has no row for ms[0]: neither changes.
		changed, err := tx.UpdateUserMessageFlags(f.b.ID, []int64{ms[2].ID, ms[1].ID, ms[0].ID, ms[2].ID, 999999},
			storage.FlagRead, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "changed by marking read", changed, []int64{ms[0].ID, ms[2].ID})
		changed, err = tx.UpdateUserMessageFlags(f.c.ID, []int64{ms[0].ID}, storage.FlagRead, 0)
		if err != nil || len(changed) != 0 {
			t.Errorf("flags of a missing row: %v, %v", changed, err)
		}
		// Set and clear in one call: clear wins for a flag in both.
		changed, err = tx.UpdateUserMessageFlags(f.b.ID, []int64{ms[1].ID}, storage.FlagCollapsed, storage.FlagStarred|storage.FlagRead)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "changed by set and clear", changed, []int64{ms[1].ID})
		changed, err = tx.UpdateUserMessageFlags(f.b.ID, nil, storage.FlagRead, 0)
		if err != nil || len(changed) != 0 {
			t.Errorf("no messages: %v, %v", changed, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "recipients of ms[0]", []storage.UserMessage{
			{UserID: f.a.ID, MessageID: ms[0].ID, Flags: storage.FlagRead},
			{UserID: f.b.ID, MessageID: ms[0].ID, Flags: storage.FlagMentioned | storage.FlagRead},
		}, mustRecipients(t, tx, ms[0].ID))
		got, err := storage.UserMessageOf(tx, f.b.ID, ms[1].ID)
		if err != nil || got.Flags != storage.FlagCollapsed {
			t.Errorf("flags after set and clear = %v, %v; want collapsed only", got.Flags, err)
		}
		checkEqual(t, "unread of b after", unread(tx, f.b.ID), []int64{ms[1].ID})
		starred, err := tx.FindMessages(storage.MessageFilter{RealmID: f.r.ID, UserID: f.b.ID, Starred: true})
		if err != nil || len(starred) != 0 {
			t.Errorf("starred of b after unstarring = %v, %v; want none", starred, err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		if _, err := tx.UpdateUserMessageFlags(f.b.ID, []int64{ms[2].ID, ms[0].ID}, storage.FlagStarred, 0); err != nil {
			t.Fatal(err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: f.r.ID, UserID: f.b.ID, Starred: true, Descending: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].Message.ID != ms[2].ID || rows[1].Message.ID != ms[0].ID {
			t.Errorf("starred of b = %v, want messages %d and %d", rows, ms[2].ID, ms[0].ID)
		}
	})
	// A failed Update changes no flag.
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if _, err := tx.UpdateUserMessageFlags(f.b.ID, []int64{ms[1].ID}, storage.FlagRead, 0); err != nil {
			return err
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	view(t, st, func(tx storage.Tx) {
		checkEqual(t, "unread after a rollback", unread(tx, f.b.ID), []int64{ms[1].ID})
	})
}
