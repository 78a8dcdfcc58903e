package storagetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// Messages, the users' rows for them, reactions and search.

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
			m := &storage.MessageRecord{RealmID: r.ID, SenderID: u1.ID, RecipientType: storage.RecipientChannel,
				ChannelID: 5, Topic: "topic " + itoa(int64(i)), Content: text, RenderedContent: "<p>" + text + "</p>",
				DateSent: t0.Add(time.Duration(i) * time.Second), Client: "website"}
			if i == 1 {
				m.RecipientType, m.ChannelID, m.Topic = storage.RecipientDirect, 0, ""
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

// channelMessageN returns a channel message with every field set, distinct
// for each i.
func channelMessageN(realmID, senderID, channelID int64, topic string, i int) storage.MessageRecord {
	return storage.MessageRecord{
		RealmID:         realmID,
		SenderID:        senderID,
		RecipientType:   storage.RecipientChannel,
		ChannelID:       channelID,
		Topic:           topic,
		Content:         fmt.Sprintf("Message %d: ünïcödé ✓ 'quoted' \"text\" <b>", i),
		RenderedContent: fmt.Sprintf("<p>Message %d: ünïcödé ✓ 'quoted' \"text\" &lt;b&gt;</p>", i),
		DateSent:        t0.Add(time.Duration(i)*time.Minute + time.Duration(i)),
		Client:          fmt.Sprintf("client %d", i),
		EditedAt:        t0.Add(time.Duration(i)*time.Hour + 7),
		HasLink:         i%2 == 1,
		HasImage:        i%3 == 1,
		HasAttachment:   i%5 == 1,
	}
}

// directMessageN returns a direct message among users (sorted), never
// edited.
func directMessageN(realmID, senderID int64, users []int64, i int) storage.MessageRecord {
	return storage.MessageRecord{
		RealmID:         realmID,
		SenderID:        senderID,
		RecipientType:   storage.RecipientDirect,
		DirectUserIDs:   users,
		Content:         fmt.Sprintf("Direct %d", i),
		RenderedContent: fmt.Sprintf("<p>Direct %d</p>", i),
		DateSent:        t0.Add(time.Duration(i) * time.Second),
		Client:          "website",
	}
}

func createMessages(t *testing.T, tx storage.Tx, ms ...storage.MessageRecord) []storage.MessageRecord {
	t.Helper()
	ptrs := make([]*storage.MessageRecord, len(ms))
	for i := range ms {
		ptrs[i] = &ms[i]
	}
	if err := tx.CreateMessages(ptrs); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	return ms
}

func mustMessage(t *testing.T, tx storage.Tx, id int64) storage.MessageRecord {
	t.Helper()
	m, err := tx.Message(id)
	if err != nil {
		t.Fatalf("Message(%d): %v", id, err)
	}
	return m
}

// messageFixture is a realm with three users and a channel ID (messages
// refer to channels by ID only).
type messageFixture struct {
	r       storage.Realm
	a, b, c storage.UserRecord
	ch      int64
}

func newMessageFixture(t *testing.T, st storage.Store) *messageFixture {
	t.Helper()
	f := &messageFixture{ch: 7}
	update(t, st, func(tx storage.Tx) {
		f.r = createRealm(t, tx, realmN(1))
		f.a = createUser(t, tx, userN(f.r.ID, 1))
		f.b = createUser(t, tx, userN(f.r.ID, 2))
		f.c = createUser(t, tx, userN(f.r.ID, 3))
	})
	return f
}

func (s *suite) testMessageRoundTrip(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "Topic ünï", 1),
			directMessageN(f.r.ID, f.b.ID, []int64{f.a.ID, f.b.ID, f.c.ID}, 2),
			channelMessageN(f.r.ID, f.b.ID, f.ch, "", 3))
		ms[2].EditedAt = time.Time{}
		mustUpdateMessage(t, tx, ms[2])
		if ms[0].ID <= 0 || ms[1].ID <= ms[0].ID || ms[2].ID <= ms[1].ID {
			t.Errorf("message IDs %d, %d, %d: want positive and increasing", ms[0].ID, ms[1].ID, ms[2].ID)
		}
		for _, m := range ms {
			checkDiff(t, "Message in the creating Update", m, mustMessage(t, tx, m.ID))
		}
		more := createMessages(t, tx, directMessageN(f.r.ID, f.a.ID, []int64{f.a.ID}, 4))
		if more[0].ID <= ms[2].ID {
			t.Errorf("second batch ID %d, want > %d", more[0].ID, ms[2].ID)
		}
		ms = append(ms, more...)
	})
	view(t, st, func(tx storage.Tx) {
		for _, m := range ms {
			got := mustMessage(t, tx, m.ID)
			checkDiff(t, fmt.Sprintf("Message(%d)", m.ID), m, got)
			checkTime(t, "DateSent", got.DateSent)
		}
		_, err := tx.Message(ms[3].ID + 1)
		checkErr(t, "Message(unknown)", err, storage.ErrNotFound)
	})
	// UpdateMessage replaces the topic, the content and what is derived
	// from them; a second edit clears the flags the first set.
	update(t, st, func(tx storage.Tx) {
		m := ms[0]
		m.Topic, m.Content, m.RenderedContent = "New topic", "edited **text**", "<p>edited <strong>text</strong></p>"
		m.EditedAt = t0.Add(48*time.Hour + 3)
		m.HasLink, m.HasImage, m.HasAttachment = false, false, false
		mustUpdateMessage(t, tx, m)
		ms[0] = m
		m = ms[2]
		m.HasLink, m.HasImage, m.HasAttachment = true, true, true
		m.EditedAt = t0.Add(time.Nanosecond)
		mustUpdateMessage(t, tx, m)
		ms[2] = m
		unknown := ms[1]
		unknown.ID = ms[3].ID + 100
		checkErr(t, "UpdateMessage(unknown)", tx.UpdateMessage(unknown), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		for _, m := range ms {
			checkDiff(t, fmt.Sprintf("Message(%d) after UpdateMessage", m.ID), m, mustMessage(t, tx, m.ID))
		}
	})
}

func mustUpdateMessage(t *testing.T, tx storage.Tx, m storage.MessageRecord) {
	t.Helper()
	if err := tx.UpdateMessage(m); err != nil {
		t.Fatalf("UpdateMessage(%d): %v", m.ID, err)
	}
}

func (s *suite) testMessageTopics(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		oldest, err := tx.OldestChannelMessageID(f.ch)
		if err != nil || oldest != 0 {
			t.Errorf("OldestChannelMessageID(empty channel) = %d, %v; want 0", oldest, err)
		}
		ms = createMessages(t, tx,
			directMessageN(f.r.ID, f.a.ID, []int64{f.a.ID, f.b.ID}, 0),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "Lunch", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch+1, "lunch", 2),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "LUNCH", 3),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "dinner", 4),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "lunch", 5))
	})
	key := storage.TopicKey("Lunch")
	view(t, st, func(tx storage.Tx) {
		for _, c := range []struct {
			channel int64
			key     string
			limit   int
			want    []int64
		}{
			{f.ch, key, 10, []int64{ms[5].ID, ms[3].ID, ms[1].ID}},
			{f.ch, key, 2, []int64{ms[5].ID, ms[3].ID}},
			{f.ch + 1, key, 10, []int64{ms[2].ID}},
			{f.ch, storage.TopicKey("dinner"), 10, []int64{ms[4].ID}},
			{f.ch, storage.TopicKey("breakfast"), 10, []int64{}},
			// A direct message's empty topic is no channel topic.
			{0, storage.TopicKey(""), 10, []int64{}},
		} {
			got, err := tx.TopicMessageIDs(c.channel, c.key, c.limit)
			if err != nil {
				t.Fatalf("TopicMessageIDs: %v", err)
			}
			checkDiff(t, fmt.Sprintf("TopicMessageIDs(%d, %q, %d)", c.channel, c.key, c.limit), c.want, got)
		}
		oldest, err := tx.OldestChannelMessageID(f.ch)
		if err != nil || oldest != ms[1].ID {
			t.Errorf("OldestChannelMessageID = %d, %v; want %d", oldest, err, ms[1].ID)
		}
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{ms[1].ID, ms[3].ID, ms[5].ID + 1000, ms[1].ID}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
		got, err := tx.TopicMessageIDs(f.ch, key, 10)
		if err != nil {
			t.Fatalf("TopicMessageIDs: %v", err)
		}
		checkDiff(t, "TopicMessageIDs after DeleteMessages", []int64{ms[5].ID}, got)
		oldest, err := tx.OldestChannelMessageID(f.ch)
		if err != nil || oldest != ms[4].ID {
			t.Errorf("OldestChannelMessageID after DeleteMessages = %d, %v; want %d", oldest, err, ms[4].ID)
		}
		if err := tx.DeleteMessages(nil); err != nil {
			t.Errorf("DeleteMessages(nil): %v", err)
		}
	})
}

// allFlags is every stored flag.
const allFlags = storage.FlagRead | storage.FlagStarred | storage.FlagMentioned | storage.FlagStreamWildcardMentioned |
	storage.FlagTopicWildcardMentioned | storage.FlagHasAlertWord

// testMessageChangesChannel: UpdateMessage moves a channel message to
// another channel (the channel's fetches follow), and leaves a direct
// message's recipients as they are.
func (s *suite) testMessageChangesChannel(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2),
			directMessageN(f.r.ID, f.a.ID, []int64{f.a.ID, f.b.ID}, 3))
		moved := ms[0]
		moved.ChannelID, moved.Topic = f.ch+1, "elsewhere"
		mustUpdateMessage(t, tx, moved)
		direct := ms[2]
		direct.ChannelID, direct.Content = f.ch, "edited"
		mustUpdateMessage(t, tx, direct)
	})
	view(t, st, func(tx storage.Tx) {
		got := mustMessage(t, tx, ms[0].ID)
		if got.ChannelID != f.ch+1 || got.Topic != "elsewhere" {
			t.Errorf("moved message: channel %d, topic %q", got.ChannelID, got.Topic)
		}
		for ch, want := range map[int64][]int64{f.ch: {ms[1].ID}, f.ch + 1: {ms[0].ID}} {
			rows := mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, ChannelHistory: true, ChannelID: ch})
			checkDiff(t, fmt.Sprintf("messages of channel %d", ch), rowIDs(rows), want)
		}
		d := mustMessage(t, tx, ms[2].ID)
		if d.RecipientType != storage.RecipientDirect || d.Content != "edited" || !slices.Equal(d.DirectUserIDs, []int64{f.a.ID, f.b.ID}) {
			t.Errorf("direct message after an update naming a channel: %+v", d)
		}
	})
}

// testMoveMessages checks storage.MoveMessages, a backend's own
// MessageMoverTx or its derivation: channel messages take the channel,
// topic and edit time, their topic index and search follow, and direct
// messages and unknown IDs are skipped.
func (s *suite) testMoveMessages(t *testing.T) {
	st := s.store(t)
	var ms []storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u := createUser(t, tx, userN(r.ID, 1))
		ms = createMessages(t, tx,
			channelMessageN(r.ID, u.ID, 5, "old", 1), channelMessageN(r.ID, u.ID, 5, "old", 2),
			channelMessageN(r.ID, u.ID, 5, "old", 3), directMessageN(r.ID, u.ID, []int64{u.ID}, 4))
	})
	edited := t0.Add(time.Hour)
	update(t, st, func(tx storage.Tx) {
		if err := storage.MoveMessages(tx, []int64{ms[0].ID, ms[2].ID, ms[3].ID, ms[3].ID + 100}, 7, "New Topic", edited); err != nil {
			t.Fatalf("MoveMessages: %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		for i, want := range []storage.MessageRecord{ms[0], ms[1], ms[2], ms[3]} {
			if i == 0 || i == 2 {
				want.ChannelID, want.Topic, want.EditedAt = 7, "New Topic", edited
			}
			checkEqual(t, "moved message", mustMessage(t, tx, want.ID), want)
		}
		ids, err := tx.TopicMessageIDs(7, storage.TopicKey("new topic"), 10)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "TopicMessageIDs of the new topic", ids, []int64{ms[2].ID, ms[0].ID})
		left, err := tx.TopicMessageIDs(5, storage.TopicKey("old"), 10)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "TopicMessageIDs of the old topic", left, []int64{ms[1].ID})
	})
}
