package storagetest

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

func (s *suite) testReactions(t *testing.T) {
	st := s.store(t)
	var m storage.MessageRecord
	var u1, u2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		m = storage.MessageRecord{RealmID: r.ID, SenderID: u1.ID, RecipientType: storage.RecipientChannel, ChannelID: 1,
			Topic: "t", Content: "c", RenderedContent: "<p>c</p>", DateSent: t0}
		if err := tx.CreateMessages([]*storage.MessageRecord{&m}); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: u1.ID, MessageID: m.ID}}); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		for _, r := range []storage.Reaction{
			{MessageID: m.ID, UserID: u2.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: storage.UnicodeEmoji},
			{MessageID: m.ID, UserID: u1.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: storage.UnicodeEmoji},
			{MessageID: m.ID, UserID: u1.ID, EmojiName: "tada", EmojiCode: "1f389", ReactionType: storage.UnicodeEmoji},
		} {
			if err := tx.CreateReaction(r); err != nil {
				t.Fatalf("CreateReaction: %v", err)
			}
		}
		// The same emoji under another name is the same reaction; the
		// transaction goes on after ErrExists.
		checkErr(t, "CreateReaction(again)", tx.CreateReaction(storage.Reaction{MessageID: m.ID, UserID: u1.ID,
			EmojiName: "happy", EmojiCode: "1f604", ReactionType: storage.UnicodeEmoji}), storage.ErrExists)
		if err := tx.DeleteReaction(storage.Reaction{MessageID: m.ID, UserID: u1.ID, EmojiCode: "1f604",
			ReactionType: storage.UnicodeEmoji}); err != nil {
			t.Fatalf("DeleteReaction: %v", err)
		}
		checkErr(t, "DeleteReaction(again)", tx.DeleteReaction(storage.Reaction{MessageID: m.ID, UserID: u1.ID,
			EmojiCode: "1f604", ReactionType: storage.UnicodeEmoji}), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.Reactions([]int64{m.ID, m.ID + 100})
		want := []storage.Reaction{
			{MessageID: m.ID, UserID: u2.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: storage.UnicodeEmoji},
			{MessageID: m.ID, UserID: u1.ID, EmojiName: "tada", EmojiCode: "1f389", ReactionType: storage.UnicodeEmoji},
		}
		if d := gocmp.Diff(want, got); err != nil || d != "" {
			t.Errorf("Reactions: %v (-want +got):\n%s", err, d)
		}
	})
	// Deleting the message takes its rows and reactions.
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{m.ID, m.ID + 100}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		_, err := tx.Message(m.ID)
		checkErr(t, "Message(deleted)", err, storage.ErrNotFound)
		_, err = storage.UserMessageOf(tx, u1.ID, m.ID)
		checkErr(t, "UserMessage(deleted)", err, storage.ErrNotFound)
		if got, err := tx.Reactions([]int64{m.ID}); err != nil || len(got) != 0 {
			t.Errorf("Reactions(deleted) = %v, %v; want none", got, err)
		}
	})
}

func mustReactions(t *testing.T, tx storage.Tx, ids ...int64) []storage.Reaction {
	t.Helper()
	rs, err := tx.Reactions(ids)
	if err != nil {
		t.Fatalf("Reactions(%v): %v", ids, err)
	}
	return rs
}

func (s *suite) testReactionsConformance(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	react := func(i int, u storage.UserRecord, name, code string, typ storage.ReactionType) storage.Reaction {
		return storage.Reaction{MessageID: ms[i].ID, UserID: u.ID, EmojiName: name, EmojiCode: code, ReactionType: typ}
	}
	var r0, r1, r2, r3, r4, r5 storage.Reaction
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 3))
		r0 = react(1, f.a, "thumbs_up", "1f44d", storage.UnicodeEmoji)
		r1 = react(0, f.b, "octopus", "1f419", storage.UnicodeEmoji)
		r2 = react(1, f.b, "thumbs_up", "1f44d", storage.UnicodeEmoji)
		r3 = react(0, f.a, "green_tick", "12", storage.RealmEmojiType)
		// Same code, other type: a different reaction.
		r4 = react(0, f.a, "zulip", "12", storage.ServiceExtraEmoji)
		r5 = react(0, f.c, "ünï", "1f468-200d-1f469", storage.UnicodeEmoji)
		for _, r := range []storage.Reaction{r0, r1, r2, r3, r4, r5} {
			if err := tx.CreateReaction(r); err != nil {
				t.Fatalf("CreateReaction(%+v): %v", r, err)
			}
		}
		// The same user, code and type is the same reaction, whatever its
		// name.
		dup := r0
		dup.EmojiName = "+1"
		checkErr(t, "CreateReaction(again, other name)", tx.CreateReaction(dup), storage.ErrExists)
	})
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "Reactions", []storage.Reaction{r1, r3, r4, r5, r0, r2},
			mustReactions(t, tx, ms[2].ID, ms[1].ID, ms[0].ID, ms[1].ID, ms[2].ID+100))
		checkDiff(t, "Reactions(one message)", []storage.Reaction{r0, r2}, mustReactions(t, tx, ms[1].ID))
		if got := mustReactions(t, tx); len(got) != 0 {
			t.Errorf("Reactions() = %v, want none", got)
		}
		if got := mustReactions(t, tx, ms[2].ID); len(got) != 0 {
			t.Errorf("Reactions(no reactions) = %v, want none", got)
		}
	})
	update(t, st, func(tx storage.Tx) {
		// Deletion matches user, code and type; the name does not matter.
		del := r3
		del.EmojiName = "other"
		if err := tx.DeleteReaction(del); err != nil {
			t.Fatalf("DeleteReaction: %v", err)
		}
		checkErr(t, "DeleteReaction(again)", tx.DeleteReaction(r3), storage.ErrNotFound)
		other := r4
		other.UserID = f.b.ID
		checkErr(t, "DeleteReaction(other user)", tx.DeleteReaction(other), storage.ErrNotFound)
		other = r4
		other.ReactionType = storage.UnicodeEmoji
		checkErr(t, "DeleteReaction(other type)", tx.DeleteReaction(other), storage.ErrNotFound)
		other = r4
		other.MessageID = ms[1].ID
		checkErr(t, "DeleteReaction(other message)", tx.DeleteReaction(other), storage.ErrNotFound)
		// Made again, it is the newest.
		if err := tx.CreateReaction(r3); err != nil {
			t.Fatalf("CreateReaction(again): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "Reactions after delete and re-create", []storage.Reaction{r1, r4, r5, r3},
			mustReactions(t, tx, ms[0].ID))
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{ms[1].ID}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		if got := mustReactions(t, tx, ms[1].ID); len(got) != 0 {
			t.Errorf("Reactions(deleted message) = %v, want none", got)
		}
	})
}
