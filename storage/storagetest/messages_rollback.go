package storagetest

import (
	"context"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

func (s *suite) testMessagesReadOnly(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var m storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		m = createMessages(t, tx, channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1))[0]
	})
	view(t, st, func(tx storage.Tx) {
		nm := channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2)
		checkErr(t, "CreateMessages in View", tx.CreateMessages([]*storage.MessageRecord{&nm}), storage.ErrReadOnly)
		checkErr(t, "UpdateMessage in View", tx.UpdateMessage(m), storage.ErrReadOnly)
		checkErr(t, "DeleteMessages in View", tx.DeleteMessages([]int64{m.ID}), storage.ErrReadOnly)
		checkErr(t, "CreateUserMessages in View",
			tx.CreateUserMessages([]storage.UserMessage{{UserID: f.a.ID, MessageID: m.ID}}), storage.ErrReadOnly)
		r := storage.Reaction{MessageID: m.ID, UserID: f.a.ID, EmojiName: "a", EmojiCode: "61", ReactionType: storage.UnicodeEmoji}
		checkErr(t, "CreateReaction in View", tx.CreateReaction(r), storage.ErrReadOnly)
		checkErr(t, "DeleteReaction in View", tx.DeleteReaction(r), storage.ErrReadOnly)
		checkDiff(t, "Message after refused writes", m, mustMessage(t, tx, m.ID))
	})
}

// testMessagesRollback checks that every message write of a failed
// transaction is undone, the search index included.
func (s *suite) testMessagesRollback(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	var r storage.Reaction
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "alpha", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "beta", 2))
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: f.a.ID, MessageID: ms[0].ID, Flags: storage.FlagRead},
			{UserID: f.a.ID, MessageID: ms[1].ID}}); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		r = storage.Reaction{MessageID: ms[0].ID, UserID: f.a.ID, EmojiName: "a", EmojiCode: "61", ReactionType: storage.UnicodeEmoji}
		if err := tx.CreateReaction(r); err != nil {
			t.Fatalf("CreateReaction: %v", err)
		}
	})
	type snapshot struct {
		Messages   []storage.MessageRecord
		Rows       []storage.MessageRow
		Recipients [][]storage.UserMessage
		Reactions  []storage.Reaction
		Topic      []int64
		Search     []int64
		Oldest     int64
	}
	take := func(tx storage.Tx) snapshot {
		var sn snapshot
		for _, m := range ms {
			if got, err := tx.Message(m.ID); err == nil {
				sn.Messages = append(sn.Messages, got)
			}
			sn.Recipients = append(sn.Recipients, mustRecipients(t, tx, m.ID))
		}
		sn.Rows = mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID, ChannelID: f.ch, ChannelHistory: true})
		sn.Reactions = mustReactions(t, tx, ms[0].ID, ms[1].ID, ms[1].ID+1, ms[1].ID+2)
		ids, err := tx.TopicMessageIDs(f.ch, storage.TopicKey("alpha"), 10)
		if err != nil {
			t.Fatalf("TopicMessageIDs: %v", err)
		}
		sn.Topic = ids
		sn.Search = rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID,
			Search: []string{"alpha"}}))
		if sn.Oldest, err = tx.OldestChannelMessageID(f.ch); err != nil {
			t.Fatalf("OldestChannelMessageID: %v", err)
		}
		return sn
	}
	var before snapshot
	view(t, st, func(tx storage.Tx) { before = take(tx) })
	writeAll := func(tx storage.Tx) error {
		more := []storage.MessageRecord{channelMessageN(f.r.ID, f.a.ID, f.ch, "alpha", 3),
			directMessageN(f.r.ID, f.b.ID, []int64{f.a.ID, f.b.ID}, 4)}
		if err := tx.CreateMessages([]*storage.MessageRecord{&more[0], &more[1]}); err != nil {
			return err
		}
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: f.a.ID, MessageID: more[0].ID},
			{UserID: f.b.ID, MessageID: ms[1].ID, Flags: storage.FlagMentioned}}); err != nil {
			return err
		}
		m := ms[1]
		m.Topic, m.Content = "alpha", "edited"
		if err := tx.UpdateMessage(m); err != nil {
			return err
		}
		if err := tx.DeleteReaction(r); err != nil {
			return err
		}
		r2 := r
		r2.MessageID = ms[1].ID
		if err := tx.CreateReaction(r2); err != nil {
			return err
		}
		if err := tx.CreateReaction(storage.Reaction{MessageID: more[0].ID, UserID: f.b.ID, EmojiName: "b",
			EmojiCode: "62", ReactionType: storage.UnicodeEmoji}); err != nil {
			return err
		}
		if err := tx.DeleteMessages([]int64{ms[0].ID}); err != nil {
			return err
		}
		if during := take(tx); gocmp.Equal(during, before) {
			t.Errorf("the writes changed nothing visible in their own transaction")
		}
		return nil
	}
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := writeAll(tx); err != nil {
			t.Fatalf("write: %v", err)
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	view(t, st, func(tx storage.Tx) { checkDiff(t, "after rollback on error", before, take(tx)) })
	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Errorf("Update did not re-panic")
			}
		}()
		_ = st.Update(context.Background(), func(tx storage.Tx) error {
			if err := writeAll(tx); err != nil {
				t.Fatalf("write: %v", err)
			}
			panic("storagetest: panic in fn")
		})
	}()
	view(t, st, func(tx storage.Tx) { checkDiff(t, "after rollback on panic", before, take(tx)) })
	// IDs stay increasing after the rollbacks.
	update(t, st, func(tx storage.Tx) {
		m := createMessages(t, tx, channelMessageN(f.r.ID, f.a.ID, f.ch, "gamma", 5))[0]
		if m.ID <= ms[1].ID {
			t.Errorf("ID after rollbacks %d, want > %d", m.ID, ms[1].ID)
		}
	})
}

// testMessagesNoAliasing checks that messages, rows and reactions passed
// to and returned by the store are copies.
func (s *suite) testMessagesNoAliasing(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	users := []int64{f.a.ID, f.b.ID}
	var want storage.MessageRecord
	var wantR storage.Reaction
	update(t, st, func(tx storage.Tx) {
		m := directMessageN(f.r.ID, f.a.ID, users, 1)
		if err := tx.CreateMessages([]*storage.MessageRecord{&m}); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		want = m
		want.DirectUserIDs = slices.Clone(users)
		users[0] = 999 // the caller's slice after CreateMessages
		checkDiff(t, "Message after the caller's change", want, mustMessage(t, tx, m.ID))
		upd := want
		upd.DirectUserIDs = slices.Clone(want.DirectUserIDs)
		upd.Content = "edited"
		mustUpdateMessage(t, tx, upd)
		want.Content = "edited"
		upd.DirectUserIDs[1] = 999 // the caller's slice after UpdateMessage
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: f.a.ID, MessageID: m.ID}}); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		wantR = storage.Reaction{MessageID: m.ID, UserID: f.a.ID, EmojiName: "a", EmojiCode: "61", ReactionType: storage.UnicodeEmoji}
		if err := tx.CreateReaction(wantR); err != nil {
			t.Fatalf("CreateReaction: %v", err)
		}
	})
	mutate := func(tx storage.Tx) {
		got := mustMessage(t, tx, want.ID)
		got.DirectUserIDs[0] = 999
		for _, r := range mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID}) {
			r.Message.DirectUserIDs[0] = 999
		}
		rs := mustReactions(t, tx, want.ID)
		rs[0].EmojiName = "mutated"
		_ = append(rs[:0], storage.Reaction{})
		rows := mustRecipients(t, tx, want.ID)
		rows[0].Flags = allFlags
	}
	check := func(tx storage.Tx, when string) {
		t.Helper()
		checkDiff(t, when+": Message", want, mustMessage(t, tx, want.ID))
		checkDiff(t, when+": FindMessages", []storage.MessageRow{{Message: want, Received: true}},
			mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID}))
		checkDiff(t, when+": Reactions", []storage.Reaction{wantR}, mustReactions(t, tx, want.ID))
		checkDiff(t, when+": MessageRecipients", []storage.UserMessage{{UserID: f.a.ID, MessageID: want.ID}},
			mustRecipients(t, tx, want.ID))
	}
	view(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same View")
	})
	update(t, st, func(tx storage.Tx) {
		mutate(tx)
		check(tx, "same Update")
	})
	view(t, st, func(tx storage.Tx) { check(tx, "next View") })
}
