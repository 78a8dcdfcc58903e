package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/teamchat/chat/storage"
)

func mustRecipients(t *testing.T, tx storage.Tx, id int64) []storage.UserMessage {
	t.Helper()
	rows, err := tx.MessageRecipients(id)
	if err != nil {
		t.Fatalf("MessageRecipients(%d): %v", id, err)
	}
	return rows
}

func (s *suite) testUserMessages(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2))
		// Out of order on purpose: recipients come back ordered by user.
		rows := []storage.UserMessage{
			{UserID: f.c.ID, MessageID: ms[0].ID, Flags: storage.FlagMentioned | storage.FlagHasAlertWord},
			{UserID: f.a.ID, MessageID: ms[0].ID, Flags: allFlags},
			{UserID: f.b.ID, MessageID: ms[0].ID, Flags: 0},
			{UserID: f.b.ID, MessageID: ms[1].ID, Flags: storage.FlagStreamWildcardMentioned | storage.FlagStarred},
		}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		if err := tx.CreateUserMessages(nil); err != nil {
			t.Errorf("CreateUserMessages(nil): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "MessageRecipients", []storage.UserMessage{
			{UserID: f.a.ID, MessageID: ms[0].ID, Flags: allFlags},
			{UserID: f.b.ID, MessageID: ms[0].ID, Flags: 0},
			{UserID: f.c.ID, MessageID: ms[0].ID, Flags: storage.FlagMentioned | storage.FlagHasAlertWord},
		}, mustRecipients(t, tx, ms[0].ID))
		got, err := storage.UserMessageOf(tx, f.b.ID, ms[1].ID)
		if err != nil {
			t.Fatalf("UserMessage: %v", err)
		}
		checkDiff(t, "UserMessage", storage.UserMessage{UserID: f.b.ID, MessageID: ms[1].ID,
			Flags: storage.FlagStreamWildcardMentioned | storage.FlagStarred}, got)
		_, err = storage.UserMessageOf(tx, f.a.ID, ms[1].ID)
		checkErr(t, "UserMessage(no row)", err, storage.ErrNotFound)
		_, err = storage.UserMessageOf(tx, f.a.ID, ms[1].ID+100)
		checkErr(t, "UserMessage(unknown message)", err, storage.ErrNotFound)
		if rows := mustRecipients(t, tx, ms[1].ID+100); len(rows) != 0 {
			t.Errorf("MessageRecipients(unknown) = %v, want none", rows)
		}
		for _, c := range []struct {
			ids  []int64
			want []int64
		}{
			{[]int64{ms[1].ID, ms[0].ID, ms[1].ID + 100}, []int64{f.a.ID, f.b.ID, f.c.ID}},
			{[]int64{ms[1].ID}, []int64{f.b.ID}},
			{[]int64{ms[1].ID + 100}, []int64{}},
			{nil, []int64{}},
		} {
			got, err := storage.MessageReaders(tx, c.ids)
			if err != nil {
				t.Fatalf("MessageReaders(%v): %v", c.ids, err)
			}
			checkDiff(t, fmt.Sprintf("MessageReaders(%v)", c.ids), c.want, got)
		}
	})
	// A batch with a row that exists stores none of its rows.
	for _, batch := range [][]storage.UserMessage{
		{{UserID: f.c.ID, MessageID: ms[1].ID}, {UserID: f.a.ID, MessageID: ms[0].ID}},
		{{UserID: f.c.ID, MessageID: ms[1].ID}, {UserID: f.c.ID, MessageID: ms[1].ID, Flags: storage.FlagRead}},
	} {
		err := st.Update(context.Background(), func(tx storage.Tx) error { return tx.CreateUserMessages(batch) })
		checkErr(t, fmt.Sprintf("CreateUserMessages(%v)", batch), err, storage.ErrExists)
	}
	// The same holds for a batch larger than a backend's statement: its
	// existing row belongs to the last of 100 users, so a backend that
	// writes in the order of (user, message) in several statements finds
	// it after storing the others.
	var many []storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		for i := range 100 {
			many = append(many, createUser(t, tx, userN(f.a.RealmID, 100+i)))
		}
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: many[99].ID, MessageID: ms[1].ID}}); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	var big []storage.UserMessage
	for i := len(many) - 1; i >= 0; i-- {
		big = append(big, storage.UserMessage{UserID: many[i].ID, MessageID: ms[1].ID, Flags: storage.FlagRead})
	}
	err := st.Update(context.Background(), func(tx storage.Tx) error { return tx.CreateUserMessages(big) })
	checkErr(t, "CreateUserMessages(100 rows, the last existing)", err, storage.ErrExists)
	view(t, st, func(tx storage.Tx) {
		if rows := mustRecipients(t, tx, ms[1].ID); slices.ContainsFunc(rows, func(r storage.UserMessage) bool {
			return r.UserID >= many[0].ID && r.UserID < many[99].ID
		}) {
			t.Errorf("MessageRecipients after a refused batch of 100 = %v, want none of the batch's new users", rows)
		}
	})
	// Inside a transaction that goes on, too.
	update(t, st, func(tx storage.Tx) {
		checkErr(t, "CreateUserMessages(100 rows, the last existing) in a transaction", tx.CreateUserMessages(big), storage.ErrExists)
		if rows := mustRecipients(t, tx, ms[1].ID); slices.ContainsFunc(rows, func(r storage.UserMessage) bool {
			return r.UserID >= many[0].ID && r.UserID < many[99].ID
		}) {
			t.Errorf("MessageRecipients after a refused batch of 100 = %v, want none of the batch's new users", rows)
		}
		if err := tx.CreateUserMessages(big[1:]); err != nil {
			t.Fatalf("CreateUserMessages(99 new rows) after a refused batch: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		if rows := mustRecipients(t, tx, ms[1].ID); !slices.ContainsFunc(rows, func(r storage.UserMessage) bool {
			return r.UserID == many[0].ID && r.Flags == storage.FlagRead
		}) {
			t.Errorf("MessageRecipients = %v, want the rows written after the refused batch", rows)
		}
	})
	view(t, st, func(tx storage.Tx) {
		_, err := storage.UserMessageOf(tx, f.c.ID, ms[1].ID)
		checkErr(t, "UserMessage after refused batches", err, storage.ErrNotFound)
		got, err := storage.UserMessageOf(tx, f.a.ID, ms[0].ID)
		if err != nil || got.Flags != allFlags {
			t.Errorf("UserMessage after refused batch = %+v, %v; flags want %d", got, err, allFlags)
		}
	})
	// Deleting a message deletes its rows.
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{ms[0].ID}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		_, err := tx.Message(ms[0].ID)
		checkErr(t, "Message(deleted)", err, storage.ErrNotFound)
		_, err = storage.UserMessageOf(tx, f.a.ID, ms[0].ID)
		checkErr(t, "UserMessage(deleted message)", err, storage.ErrNotFound)
		if rows := mustRecipients(t, tx, ms[0].ID); len(rows) != 0 {
			t.Errorf("MessageRecipients(deleted) = %v, want none", rows)
		}
		checkDiff(t, "FindMessages(b) after delete", []int64{ms[1].ID},
			rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.b.ID})))
	})
}

// testDeleteUserMessages: the rows of the users for the messages go, the
// others stay, unknown pairs are skipped, and a rollback restores them.
func (s *suite) testDeleteUserMessages(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2))
		var rows []storage.UserMessage
		for _, m := range ms {
			for _, u := range []int64{f.a.ID, f.b.ID, f.c.ID} {
				rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID, Flags: storage.FlagRead})
			}
		}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	users := func(tx storage.Tx, id int64) []int64 {
		var out []int64
		for _, r := range mustRecipients(t, tx, id) {
			out = append(out, r.UserID)
		}
		return out
	}
	failed := fmt.Errorf("roll back")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.DeleteUserMessages([]int64{f.a.ID, f.b.ID}, []int64{ms[0].ID, ms[1].ID}); err != nil {
			t.Fatalf("DeleteUserMessages: %v", err)
		}
		checkDiff(t, "recipients inside the rolled-back update", users(tx, ms[0].ID), []int64{f.c.ID})
		return failed
	})
	checkErr(t, "Update", err, failed)
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "recipients after the rollback", users(tx, ms[0].ID), []int64{f.a.ID, f.b.ID, f.c.ID})
	})
	update(t, st, func(tx storage.Tx) {
		// b's row of the first message goes; 999 is nobody's.
		if err := tx.DeleteUserMessages([]int64{f.b.ID, 999}, []int64{ms[0].ID, 999}); err != nil {
			t.Fatalf("DeleteUserMessages: %v", err)
		}
		if err := tx.DeleteUserMessages(nil, []int64{ms[1].ID}); err != nil {
			t.Errorf("DeleteUserMessages of no users: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "recipients of the first message", users(tx, ms[0].ID), []int64{f.a.ID, f.c.ID})
		checkDiff(t, "recipients of the second message", users(tx, ms[1].ID), []int64{f.a.ID, f.b.ID, f.c.ID})
		if _, err := storage.UserMessageOf(tx, f.b.ID, ms[0].ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("b's deleted row: %v, want ErrNotFound", err)
		}
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: f.r.ID, UserID: f.b.ID})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "b's messages", rowIDs(rows), []int64{ms[1].ID})
		checkErr(t, "DeleteUserMessages in a View", tx.DeleteUserMessages([]int64{f.a.ID}, []int64{ms[1].ID}), storage.ErrReadOnly)
	})
}

// testMarkRead checks storage.MarkRead, a backend's own ReadMarkerTx or
// its derivation: a user's unread rows, lowest message IDs first, at most
// limit at a time, other users' rows untouched.
func (s *suite) testMarkRead(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		for i := range 5 {
			ms = append(ms, createMessages(t, tx, channelMessageN(f.r.ID, f.a.ID, f.ch, "t", i))...)
		}
		rows := []storage.UserMessage{{UserID: f.b.ID, MessageID: ms[0].ID}, {UserID: f.b.ID, MessageID: ms[1].ID, Flags: storage.FlagRead},
			{UserID: f.b.ID, MessageID: ms[2].ID, Flags: storage.FlagStarred}, {UserID: f.b.ID, MessageID: ms[4].ID},
			{UserID: f.c.ID, MessageID: ms[0].ID}}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatal(err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		got, err := storage.MarkRead(tx, f.r.ID, f.b.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "MarkRead(2)", got, []int64{ms[0].ID, ms[2].ID})
		got, err = storage.MarkRead(tx, f.r.ID, f.b.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "MarkRead again", got, []int64{ms[4].ID})
		got, err = storage.MarkRead(tx, f.r.ID, f.b.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "MarkRead with nothing unread", got, []int64{})
	})
	view(t, st, func(tx storage.Tx) {
		checkEqual(t, "the starred row keeps its star", mustRecipients(t, tx, ms[2].ID),
			[]storage.UserMessage{{UserID: f.b.ID, MessageID: ms[2].ID, Flags: storage.FlagStarred | storage.FlagRead}})
		checkEqual(t, "another user's row", mustRecipients(t, tx, ms[0].ID), []storage.UserMessage{
			{UserID: f.b.ID, MessageID: ms[0].ID, Flags: storage.FlagRead}, {UserID: f.c.ID, MessageID: ms[0].ID}})
	})
}

// testUnreadMessages checks storage.UnreadMessages, a backend's own
// UnreadMessagesTx or its derivation: a user's rows without FlagRead,
// highest message IDs first, at most limit, each with the user's flags
// and its conversation (channel and topic as sent, or the participants),
// and the same answer as the derivation from FindMessages. The unread
// messages are both close together and far apart among the others.
func (s *suite) testUnreadMessages(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	pair, group := []int64{f.a.ID, f.b.ID}, []int64{f.a.ID, f.b.ID, f.c.ID}
	var ms, others []storage.MessageRecord
	var last storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx, channelMessageN(f.r.ID, f.a.ID, f.ch, "Lunch", 0), directMessageN(f.r.ID, f.a.ID, pair, 1),
			directMessageN(f.r.ID, f.a.ID, group, 2), channelMessageN(f.r.ID, f.a.ID, f.ch, "lunch", 3),
			channelMessageN(f.r.ID, f.a.ID, f.ch+1, "Topic \"quoted\" ✓ \\ ,", 4))
		for i := range 30 {
			others = append(others, channelMessageN(f.r.ID, f.a.ID, f.ch+2, "others", 5+i))
		}
		others = createMessages(t, tx, others...)
		last = createMessages(t, tx, directMessageN(f.r.ID, f.c.ID, group, 35))[0]
		rows := []storage.UserMessage{{UserID: f.b.ID, MessageID: ms[0].ID}, {UserID: f.b.ID, MessageID: ms[1].ID, Flags: storage.FlagMentioned},
			{UserID: f.b.ID, MessageID: ms[2].ID, Flags: storage.FlagStarred}, {UserID: f.b.ID, MessageID: ms[3].ID, Flags: storage.FlagRead},
			{UserID: f.b.ID, MessageID: ms[4].ID, Flags: storage.FlagStreamWildcardMentioned | storage.FlagHasAlertWord},
			{UserID: f.b.ID, MessageID: last.ID},
			{UserID: f.c.ID, MessageID: ms[0].ID, Flags: storage.FlagRead}, {UserID: f.c.ID, MessageID: ms[2].ID},
			{UserID: f.a.ID, MessageID: ms[1].ID}, {UserID: f.a.ID, MessageID: ms[2].ID}}
		for _, m := range others {
			rows = append(rows, storage.UserMessage{UserID: f.c.ID, MessageID: m.ID, Flags: storage.FlagRead})
		}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatal(err)
		}
	})
	unreadOf := func(tx storage.Tx, user int64, limit int) []storage.UnreadMessage {
		t.Helper()
		got, err := storage.UnreadMessages(tx, f.r.ID, user, limit)
		if err != nil {
			t.Fatal(err)
		}
		derived, err := storage.UnreadMessages(requiredTx{tx}, f.r.ID, user, limit)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UnreadMessages against its derivation", got, derived)
		return got
	}
	view(t, st, func(tx storage.Tx) {
		all := []storage.UnreadMessage{
			{ID: last.ID, RecipientType: storage.RecipientDirect, DirectUserIDs: group},
			{ID: ms[4].ID, Flags: storage.FlagStreamWildcardMentioned | storage.FlagHasAlertWord, RecipientType: storage.RecipientChannel,
				ChannelID: f.ch + 1, Topic: "Topic \"quoted\" ✓ \\ ,"},
			{ID: ms[2].ID, Flags: storage.FlagStarred, RecipientType: storage.RecipientDirect, DirectUserIDs: group},
			{ID: ms[1].ID, Flags: storage.FlagMentioned, RecipientType: storage.RecipientDirect, DirectUserIDs: pair},
			{ID: ms[0].ID, RecipientType: storage.RecipientChannel, ChannelID: f.ch, Topic: "Lunch"},
		}
		checkEqual(t, "b's unread messages", unreadOf(tx, f.b.ID, 0), all)
		checkEqual(t, "b's newest", unreadOf(tx, f.b.ID, 1), all[:1])
		checkEqual(t, "b's newest 2", unreadOf(tx, f.b.ID, 2), all[:2])
		checkEqual(t, "b's newest 4", unreadOf(tx, f.b.ID, 4), all[:4])
		checkEqual(t, "c's unread messages", unreadOf(tx, f.c.ID, 10),
			[]storage.UnreadMessage{{ID: ms[2].ID, RecipientType: storage.RecipientDirect, DirectUserIDs: group}})
		checkEqual(t, "a's unread messages", unreadOf(tx, f.a.ID, 0), []storage.UnreadMessage{
			{ID: ms[2].ID, RecipientType: storage.RecipientDirect, DirectUserIDs: group},
			{ID: ms[1].ID, RecipientType: storage.RecipientDirect, DirectUserIDs: pair}})
		got := unreadOf(tx, f.b.ID, 0)
		got[0].DirectUserIDs[0] = -1
		checkEqual(t, "a message's participants, after those of another of its conversation were changed",
			got[2].DirectUserIDs, []int64{f.a.ID, f.b.ID, f.c.ID})
	})
	update(t, st, func(tx storage.Tx) {
		for _, u := range []int64{f.a.ID, f.b.ID, f.c.ID} {
			if _, err := storage.MarkRead(tx, f.r.ID, u, 100); err != nil {
				t.Fatal(err)
			}
		}
	})
	view(t, st, func(tx storage.Tx) {
		for _, u := range []int64{f.a.ID, f.b.ID, f.c.ID} {
			checkEqual(t, "unread messages once read", unreadOf(tx, u, 0), []storage.UnreadMessage{})
		}
	})
}
