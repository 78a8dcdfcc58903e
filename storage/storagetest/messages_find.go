package storagetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teamchat/chat/storage"
)

func mustFind(t *testing.T, tx storage.Tx, f storage.MessageFilter) []storage.MessageRow {
	t.Helper()
	rows, err := tx.FindMessages(f)
	if err != nil {
		t.Fatalf("FindMessages(%+v): %v", f, err)
	}
	return rows
}

func rowIDs(rows []storage.MessageRow) []int64 {
	out := []int64{}
	for _, r := range rows {
		out = append(out, r.Message.ID)
	}
	return out
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
	// bare is a row as MessageFilter.WithoutContent reads it.
	bare := func(r storage.MessageRow) storage.MessageRow {
		r.Message.Content, r.Message.RenderedContent = "", ""
		return r
	}
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
		{"unread without content", storage.MessageFilter{RealmID: r, UserID: f.a.ID, Unread: true, Descending: true,
			WithoutContent: true},
			[]storage.MessageRow{bare(received(9, 0)), bare(received(7, storage.FlagHasAlertWord)), bare(received(3, 0))}},
		{"channel without content", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch, WithoutContent: true},
			[]storage.MessageRow{bare(received(0, storage.FlagRead)), bare(received(4, allFlags)),
				bare(received(7, storage.FlagHasAlertWord))}},
		{"channel history without content", storage.MessageFilter{RealmID: r, UserID: f.a.ID, ChannelID: f.ch,
			ChannelHistory: true, MinID: ms[4].ID, WithoutContent: true},
			[]storage.MessageRow{bare(received(4, allFlags)), bare(received(7, storage.FlagHasAlertWord)), bare(history(8))}},
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
