package storagetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// Messages, the users' rows for them, and reactions (storage.MessageTx).

// channelMessageN returns a channel message with every field set, distinct
// for each i.
func channelMessageN(realmID, senderID, channelID int64, topic string, i int) storage.MessageRecord {
	return storage.MessageRecord{
		RealmID:         realmID,
		SenderID:        senderID,
		RecipientType:   chat.RecipientChannel,
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
		RecipientType:   chat.RecipientDirect,
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

func mustFind(t *testing.T, tx storage.Tx, f storage.MessageFilter) []storage.MessageRow {
	t.Helper()
	rows, err := tx.FindMessages(f)
	if err != nil {
		t.Fatalf("FindMessages(%+v): %v", f, err)
	}
	return rows
}

func mustRecipients(t *testing.T, tx storage.Tx, id int64) []storage.UserMessage {
	t.Helper()
	rows, err := tx.MessageRecipients(id)
	if err != nil {
		t.Fatalf("MessageRecipients(%d): %v", id, err)
	}
	return rows
}

func mustReactions(t *testing.T, tx storage.Tx, ids ...int64) []storage.Reaction {
	t.Helper()
	rs, err := tx.Reactions(ids)
	if err != nil {
		t.Fatalf("Reactions(%v): %v", ids, err)
	}
	return rs
}

func rowIDs(rows []storage.MessageRow) []int64 {
	out := []int64{}
	for _, r := range rows {
		out = append(out, r.Message.ID)
	}
	return out
}

func checkDiff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
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

func (s *suite) testFindMessages(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var (
		other storage.Realm
		x     storage.UserRecord
		ms    []storage.MessageRecord
	)
	update(t, st, func(tx storage.Tx) {
		other = createRealm(t, tx, realmN(2))
		x = createUser(t, tx, userN(other.ID, 9))
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "one", 0),                    // a, b
			channelMessageN(f.r.ID, f.a.ID, f.ch, "Two", 1),                    // b (a joined later)
			directMessageN(f.r.ID, f.a.ID, []int64{f.a.ID, f.b.ID}, 2),         // a, b
			channelMessageN(f.r.ID, f.a.ID, f.ch+1, "two", 3),                  // a
			channelMessageN(f.r.ID, f.a.ID, f.ch, "two", 4),                    // a, b
			channelMessageN(other.ID, x.ID, f.ch, "two", 5),                    // x, in another realm
			directMessageN(f.r.ID, f.c.ID, []int64{f.b.ID, f.c.ID}, 6),         // b, c
			channelMessageN(f.r.ID, f.a.ID, f.ch, "one", 7),                    // a
			channelMessageN(f.r.ID, f.a.ID, f.ch, "ONE", 8),                    // nobody
			directMessageN(f.r.ID, f.a.ID, []int64{f.a.ID, f.b.ID, f.c.ID}, 9)) // a
		rows := []storage.UserMessage{}
		add := func(u int64, i int, flags storage.MessageFlags) {
			rows = append(rows, storage.UserMessage{UserID: u, MessageID: ms[i].ID, Flags: flags})
		}
		add(f.a.ID, 0, storage.FlagRead)
		add(f.b.ID, 0, 0)
		add(f.b.ID, 1, storage.FlagMentioned)
		add(f.a.ID, 2, storage.FlagRead|storage.FlagStarred)
		add(f.b.ID, 2, 0)
		add(f.a.ID, 3, 0)
		add(f.a.ID, 4, allFlags)
		add(f.b.ID, 4, storage.FlagRead)
		add(x.ID, 5, 0)
		add(f.b.ID, 6, 0)
		add(f.c.ID, 6, storage.FlagRead)
		add(f.a.ID, 7, storage.FlagHasAlertWord)
		add(f.a.ID, 9, 0)
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	received := func(i int, flags storage.MessageFlags) storage.MessageRow {
		return storage.MessageRow{Message: ms[i], Flags: flags, Received: true}
	}
	history := func(i int) storage.MessageRow { return storage.MessageRow{Message: ms[i]} }
	one, two := storage.TopicKey("one"), storage.TopicKey("two")
	r := f.r.ID
	cases := []struct {
		name string
		f    storage.MessageFilter
		want []storage.MessageRow
	}{
		{"a's messages", storage.MessageFilter{RealmID: r, UserID: f.a.ID},
			[]storage.MessageRow{received(0, storage.FlagRead), received(2, storage.FlagRead|storage.FlagStarred), received(3, 0),
				received(4, allFlags), received(7, storage.FlagHasAlertWord), received(9, 0)}},
		{"descending with limit", storage.MessageFilter{RealmID: r, UserID: f.a.ID, Descending: true, Limit: 2},
			[]storage.MessageRow{received(9, 0), received(7, storage.FlagHasAlertWord)}},
		{"ascending with limit", storage.MessageFilter{RealmID: r, UserID: f.a.ID, Limit: 2},
			[]storage.MessageRow{received(0, storage.FlagRead), received(2, storage.FlagRead|storage.FlagStarred)}},
		{"ID bounds inclusive", storage.MessageFilter{RealmID: r, UserID: f.a.ID, MinID: ms[2].ID, MaxID: ms[7].ID},
			[]storage.MessageRow{received(2, storage.FlagRead|storage.FlagStarred), received(3, 0), received(4, allFlags),
				received(7, storage.FlagHasAlertWord)}},
		{"ID bounds descending", storage.MessageFilter{RealmID: r, UserID: f.a.ID, MinID: ms[2].ID, MaxID: ms[7].ID,
			Descending: true, Limit: 3},
			[]storage.MessageRow{received(7, storage.FlagHasAlertWord), received(4, allFlags), received(3, 0)}},
		{"channel", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch},
			[]storage.MessageRow{received(0, storage.FlagRead), received(4, allFlags), received(7, storage.FlagHasAlertWord)}},
		{"channel history", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch, ChannelHistory: true},
			[]storage.MessageRow{received(0, storage.FlagRead), history(1), received(4, allFlags),
				received(7, storage.FlagHasAlertWord), history(8)}},
		{"channel history descending from", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch,
			ChannelHistory: true, MaxID: ms[7].ID, Descending: true, Limit: 3},
			[]storage.MessageRow{received(7, storage.FlagHasAlertWord), received(4, allFlags), history(1)}},
		{"history of a user without rows", storage.MessageFilter{RealmID: r, UserID: f.c.ID, ChannelID: f.ch,
			ChannelHistory: true, MinID: ms[4].ID},
			[]storage.MessageRow{history(4), history(7), history(8)}},
		{"topic, any case", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch, TopicKey: &one,
			ChannelHistory: true},
			[]storage.MessageRow{received(0, storage.FlagRead), received(7, storage.FlagHasAlertWord), history(8)}},
		{"topic in every channel", storage.MessageFilter{RealmID: r, UserID: f.a.ID, TopicKey: &two},
			[]storage.MessageRow{received(3, 0), received(4, allFlags)}},
		{"IDs", storage.MessageFilter{RealmID: r, UserID: f.b.ID, IDs: []int64{ms[6].ID, ms[0].ID, ms[3].ID, ms[6].ID}},
			[]storage.MessageRow{received(0, 0), received(6, 0)}},
		{"IDs with history", storage.MessageFilter{RealmID: r, UserID: f.c.ID, ChannelID: f.ch, ChannelHistory: true,
			IDs: []int64{ms[8].ID, ms[1].ID, ms[3].ID}},
			[]storage.MessageRow{history(1), history(8)}},
		{"empty IDs", storage.MessageFilter{RealmID: r, UserID: f.b.ID, IDs: []int64{}}, []storage.MessageRow{}},
		{"other realm's reader", storage.MessageFilter{RealmID: r, UserID: x.ID}, []storage.MessageRow{}},
		{"other realm", storage.MessageFilter{RealmID: other.ID, UserID: x.ID}, []storage.MessageRow{received(5, 0)}},
		{"other realm's channel history", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch,
			ChannelHistory: true, MinID: ms[5].ID, MaxID: ms[5].ID}, []storage.MessageRow{}},
		{"c's messages", storage.MessageFilter{RealmID: r, UserID: f.c.ID},
			[]storage.MessageRow{received(6, storage.FlagRead)}},
		{"no such reader", storage.MessageFilter{RealmID: r, UserID: 9999}, []storage.MessageRow{}},
	}
	view(t, st, func(tx storage.Tx) {
		for _, c := range cases {
			got := mustFind(t, tx, c.f)
			if got == nil {
				t.Errorf("%s: FindMessages returned nil, want an empty slice", c.name)
			}
			checkDiff(t, c.name, c.want, got)
		}
	})
}

func (s *suite) testSearchMessages(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	msg := func(topic, content string) storage.MessageRecord {
		m := channelMessageN(f.r.ID, f.a.ID, f.ch, topic, 0)
		m.Content, m.RenderedContent = content, "<p>"+content+"</p>"
		return m
	}
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			msg("pets", "The cat sat on the mat."),               // 0
			msg("categories", "Cats and dogs; CATEGORY theory"),  // 1
			msg("Café", "meet at the café at 10:30"),             // 2
			msg("cafe", "a plain cafe, crème brûlée"),            // 3
			msg("Ünïcödé", "ÉCOLE and straße, user@example.com"), // 4
			msg("misc", "don't DOG-ear 42 pages"))                // 5
		rows := []storage.UserMessage{}
		for _, m := range ms {
			rows = append(rows, storage.UserMessage{UserID: f.a.ID, MessageID: m.ID})
		}
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	search := func(tx storage.Tx, q string) []int64 {
		t.Helper()
		return rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID, Search: storage.SearchWords(q)}))
	}
	ids := func(is ...int) []int64 {
		out := []int64{}
		for _, i := range is {
			out = append(out, ms[i].ID)
		}
		return out
	}
	cases := []struct {
		q    string
		want []int64
	}{
		{"cat", ids(0)},            // whole words: not "cats", "categories", "category"
		{"CAT", ids(0)},            // case-insensitive
		{"cats", ids(1)},           //
		{"category", ids(1)},       // content, any case
		{"categories", ids(1)},     // topic
		{"café", ids(2)},           // diacritics kept: not "cafe"
		{"CAFÉ", ids(2)},           // non-ASCII case folding
		{"cafe", ids(3)},           //
		{"brûlée crème", ids(3)},   // every word, any order
		{"cat dog", ids()},         // every word must match
		{"école", ids(4)},          //
		{"ünïcödé", ids(4)},        //
		{"straße", ids(4)},         //
		{"example", ids(4)},        // punctuation separates words
		{"dog", ids(5)},            //
		{"don", ids(5)},            //
		{"42", ids(5)},             // numbers are words
		{"the sat", ids(0)},        //
		{"meet 30", ids(2)},        //
		{"mat.", ids(0)},           // the query's punctuation is dropped
		{"nothing matches", ids()}, //
	}
	view(t, st, func(tx storage.Tx) {
		for _, c := range cases {
			checkDiff(t, fmt.Sprintf("search %q", c.q), c.want, search(tx, c.q))
			// The backend agrees with the domain's reference matcher.
			want := []int64{}
			for _, m := range ms {
				if storage.SearchMatches(storage.SearchWords(c.q), &m) {
					want = append(want, m.ID)
				}
			}
			checkDiff(t, fmt.Sprintf("search %q against SearchMatches", c.q), want, search(tx, c.q))
		}
		// Search combines with the other conditions.
		got := rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: f.r.ID, UserID: f.a.ID, Search: []string{"the"},
			Descending: true, Limit: 1}))
		checkDiff(t, "search with limit", ids(2), got)
	})
	// Edits and deletions reach the index, and so does a rolled back edit
	// (it does not).
	update(t, st, func(tx storage.Tx) {
		m := ms[0]
		m.Content = "The dog sat on the mat."
		mustUpdateMessage(t, tx, m)
		m = ms[5]
		m.Topic = "cat pictures"
		mustUpdateMessage(t, tx, m)
		if err := tx.DeleteMessages([]int64{ms[2].ID}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
	})
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		m := ms[3]
		m.Content = "cat"
		if err := tx.UpdateMessage(m); err != nil {
			return err
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "search cat after edits", ids(5), search(tx, "cat"))
		checkDiff(t, "search dog after edits", ids(0, 5), search(tx, "dog"))
		checkDiff(t, "search café after delete", ids(), search(tx, "café"))
		checkDiff(t, "search misc after topic edit", ids(), search(tx, "misc"))
	})
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
