package storagetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// Messages, the users' rows for them, reactions and search.

// searchTexts are message contents whose words backends could cut
// differently: host names, hyphens, decimals, underscores, apostrophes,
// accented and non-Latin letters in both cases, emoji, and a word longer
// than any index entry a backend might keep whole.
var searchTexts = []string{
	"Meet at example.com/path?q=1 tomorrow",
	"foo-bar baz_qux don't 3.14",
	"CAFÉ Naïve ΣΟΦΙΑ Москва",
	"café naive σοφια москва 😀walrus",
	strings.Repeat("long", 40) + " end",
	"Walrus, walrus; WALRUS!",
}

// searchQueries are the word lists searched, each as storage.SearchWords
// gives them.
var searchQueries = []string{
	"example", "example.com", "com path", "foo", "bar", "foo-bar", "baz", "qux", "don", "t", "3", "14", "3.14",
	"café", "CAFE", "cafe", "naïve", "naive", "σοφια", "ΣΟΦΙΑ", "москва", "walrus", "😀walrus",
	strings.Repeat("long", 40), strings.Repeat("long", 39), "end long", "meet tomorrow", "meet walrus",
}

func (s *suite) testMessages(t *testing.T) {
	st := s.store(t)
	var (
		u1, u2 storage.UserRecord
		ms     []*storage.MessageRecord
	)
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		for i, text := range searchTexts {
			m := &storage.MessageRecord{RealmID: r.ID, SenderID: u1.ID, RecipientType: chat.RecipientChannel,
				ChannelID: 5, Topic: "topic " + itoa(int64(i)), Content: text, RenderedContent: "<p>" + text + "</p>",
				DateSent: t0.Add(time.Duration(i) * time.Second), Client: "website"}
			if i == 1 {
				m.RecipientType, m.ChannelID, m.Topic = chat.RecipientDirect, 0, ""
				m.DirectUserIDs = []int64{u1.ID, u2.ID}
				m.EditedAt, m.HasLink, m.HasImage, m.HasAttachment = t0.Add(time.Hour), true, true, true
			}
			ms = append(ms, m)
		}
		if err := tx.CreateMessages(ms); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		for i := 1; i < len(ms); i++ {
			if ms[i].ID <= ms[i-1].ID {
				t.Fatalf("message IDs %d, %d: want increasing", ms[i-1].ID, ms[i].ID)
			}
		}
		var rows []storage.UserMessage
		for _, m := range ms {
			rows = append(rows, storage.UserMessage{UserID: u1.ID, MessageID: m.ID, Flags: storage.FlagRead})
		}
		rows = append(rows, storage.UserMessage{UserID: u2.ID, MessageID: ms[1].ID, Flags: storage.FlagStarred | storage.FlagMentioned})
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		// A batch with one existing row stores none, and the transaction
		// goes on.
		checkErr(t, "CreateUserMessages(existing)", tx.CreateUserMessages([]storage.UserMessage{
			{UserID: u2.ID, MessageID: ms[0].ID}, {UserID: u1.ID, MessageID: ms[0].ID}}), storage.ErrExists)
		_, err := storage.UserMessageOf(tx, u2.ID, ms[0].ID)
		checkErr(t, "UserMessage(not stored)", err, storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		for _, m := range ms {
			got, err := tx.Message(m.ID)
			if err != nil {
				t.Fatalf("Message(%d): %v", m.ID, err)
			}
			if d := gocmp.Diff(*m, got); d != "" {
				t.Errorf("Message round trip (-want +got):\n%s", d)
			}
		}
		got, err := tx.MessageRecipients(ms[1].ID)
		want := []storage.UserMessage{{UserID: u1.ID, MessageID: ms[1].ID, Flags: storage.FlagRead},
			{UserID: u2.ID, MessageID: ms[1].ID, Flags: storage.FlagStarred | storage.FlagMentioned}}
		if d := gocmp.Diff(want, got); err != nil || d != "" {
			t.Errorf("MessageRecipients: %v (-want +got):\n%s", err, d)
		}
		// Search matches as storage.SearchMatches decides.
		for _, q := range searchQueries {
			words := storage.SearchWords(q)
			want := []int64{}
			for _, m := range ms {
				if storage.SearchMatches(words, m) {
					want = append(want, m.ID)
				}
			}
			rows, err := tx.FindMessages(storage.MessageFilter{RealmID: ms[0].RealmID, UserID: u1.ID, Search: words})
			if err != nil {
				t.Fatalf("FindMessages(search %q): %v", q, err)
			}
			got := []int64{}
			for _, r := range rows {
				got = append(got, r.Message.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("search %q (words %q): messages %v, want %v", q, words, got, want)
			}
		}
	})
	// An edit changes what search finds.
	update(t, st, func(tx storage.Tx) {
		m := *ms[0]
		m.Content, m.EditedAt = "walrus only", t0.Add(2*time.Hour)
		if err := tx.UpdateMessage(m); err != nil {
			t.Fatalf("UpdateMessage: %v", err)
		}
		*ms[0] = m
	})
	view(t, st, func(tx storage.Tx) {
		for q, want := range map[string]int{"walrus only": 1, "tomorrow": 0} {
			rows, err := tx.FindMessages(storage.MessageFilter{RealmID: ms[0].RealmID, UserID: u1.ID,
				Search: storage.SearchWords(q)})
			if err != nil || len(rows) != want {
				t.Errorf("search %q after the edit: %d messages, %v; want %d", q, len(rows), err, want)
			}
		}
	})
}

func (s *suite) testReactions(t *testing.T) {
	st := s.store(t)
	var m storage.MessageRecord
	var u1, u2 storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		m = storage.MessageRecord{RealmID: r.ID, SenderID: u1.ID, RecipientType: chat.RecipientChannel, ChannelID: 1,
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
