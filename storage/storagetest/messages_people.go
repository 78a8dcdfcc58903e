package storagetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/teamchat/chat/storage"
)

// botSender is a sender that is no user of the store, as the notification
// bot is, and that sends in every realm.
const botSender = 2147483647

// testFindPeople checks MessageFilter.SenderID and DirectUserIDs: the
// visibility rule first, by hand, then every combination with the other
// conditions against the reference, FindMessages without them and a
// predicate over its rows.
func (s *suite) testFindPeople(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	a, b, c := f.a.ID, f.b.ID, f.c.ID
	var (
		other storage.Realm
		x     storage.UserRecord
		ms    []storage.MessageRecord
	)
	withWalrus := func(m storage.MessageRecord) storage.MessageRecord {
		m.Content += " walrus"
		m.RenderedContent = "<p>" + m.Content + "</p>"
		return m
	}
	update(t, st, func(tx storage.Tx) {
		other = createRealm(t, tx, realmN(2))
		x = createUser(t, tx, userN(other.ID, 9))
		r, o := f.r.ID, other.ID
		ms = createMessages(t, tx,
			channelMessageN(r, a, f.ch, "one", 0),                  // a, b
			channelMessageN(r, b, f.ch, "one", 1),                  // b
			directMessageN(r, a, []int64{a, b}, 2),                 // a, b
			withWalrus(directMessageN(r, b, []int64{a, b}, 3)),     // a, b
			directMessageN(r, c, []int64{a, b, c}, 4),              // a, b, c
			channelMessageN(r, b, f.ch+1, "two", 5),                // a
			directMessageN(r, b, []int64{b, c}, 6),                 // b, c
			withWalrus(channelMessageN(r, b, f.ch, "One", 7)),      // a, b
			channelMessageN(r, b, f.ch, "two", 8),                  // nobody
			channelMessageN(o, x.ID, f.ch, "one", 9),               // x
			directMessageN(r, a, []int64{a}, 10),                   // a
			channelMessageN(r, botSender, f.ch, "one", 11),         // a
			channelMessageN(o, botSender, f.ch, "one", 12),         // x
			withWalrus(directMessageN(r, a, []int64{a, b}, 13)),    // a, b
			withWalrus(channelMessageN(r, c, f.ch, "two", 14)),     // c
			directMessageN(o, x.ID, []int64{x.ID}, 15),             // x
			channelMessageN(r, b, f.ch, "one", 16),                 // b
			withWalrus(directMessageN(r, c, []int64{a, b, c}, 17))) // a, c (b's row deleted, say)
		rows := []storage.UserMessage{}
		add := func(u int64, flags storage.MessageFlags, is ...int) {
			for _, i := range is {
				rows = append(rows, storage.UserMessage{UserID: u, MessageID: ms[i].ID, Flags: flags})
			}
		}
		add(a, storage.FlagRead, 0, 2, 4, 10)
		add(a, storage.FlagStarred, 3, 7)
		add(a, 0, 5, 11, 13, 17)
		add(b, 0, 0, 1, 2, 3, 4, 6, 7, 13, 16)
		add(c, storage.FlagRead|storage.FlagStarred, 4, 6, 14, 17)
		add(x.ID, 0, 9, 12, 15)
		if err := tx.CreateUserMessages(rows); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
	})
	r := f.r.ID
	ids := func(is ...int) []int64 {
		out := []int64{}
		for _, i := range is {
			out = append(out, ms[i].ID)
		}
		return out
	}
	one, two := storage.TopicKey("one"), storage.TopicKey("two")

	// The reader sees only what they received, or the channel's history
	// when it is open to them.
	explicit := []struct {
		name string
		f    storage.MessageFilter
		want []int64
	}{
		{"b's messages a received", storage.MessageFilter{RealmID: r, UserID: a, SenderID: b}, ids(3, 5, 7)},
		{"b's messages in the channel's history", storage.MessageFilter{RealmID: r, UserID: a, SenderID: b,
			ChannelID: f.ch, ChannelHistory: true}, ids(1, 7, 8, 16)},
		{"b's messages in the channel, received", storage.MessageFilter{RealmID: r, UserID: a, SenderID: b,
			ChannelID: f.ch}, ids(7)},
		{"c's messages a received", storage.MessageFilter{RealmID: r, UserID: a, SenderID: c}, ids(4, 17)},
		{"the bot in this realm", storage.MessageFilter{RealmID: r, UserID: a, SenderID: botSender}, ids(11)},
		{"the bot in this realm's history", storage.MessageFilter{RealmID: r, UserID: c, SenderID: botSender,
			ChannelID: f.ch, ChannelHistory: true}, ids(11)},
		{"the bot in the other realm", storage.MessageFilter{RealmID: other.ID, UserID: x.ID, SenderID: botSender}, ids(12)},
		{"a sender without messages", storage.MessageFilter{RealmID: r, UserID: a, SenderID: 9999}, ids()},
		{"a and b", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{a, b}}, ids(2, 3, 13)},
		{"a and b in any order", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{b, a, b}}, ids(2, 3, 13)},
		{"a, b and c for a", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{c, b, a}}, ids(4, 17)},
		{"a, b and c for b", storage.MessageFilter{RealmID: r, UserID: b, DirectUserIDs: []int64{a, b, c}}, ids(4)},
		{"b and c, not a's", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{b, c}}, ids()},
		{"b and c for c", storage.MessageFilter{RealmID: r, UserID: c, DirectUserIDs: []int64{b, c}}, ids(6)},
		{"a alone", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{a}}, ids(10)},
		{"no history for a conversation", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{a, b},
			ChannelID: f.ch, ChannelHistory: true}, ids()},
		{"b in a and b", storage.MessageFilter{RealmID: r, UserID: a, SenderID: b, DirectUserIDs: []int64{a, b}}, ids(3)},
		{"the other realm's conversation", storage.MessageFilter{RealmID: r, UserID: x.ID, DirectUserIDs: []int64{x.ID}}, ids()},
		{"newest of a and b", storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{a, b},
			Descending: true, Limit: 2}, ids(13, 3)},
		{"b's walrus in the history", storage.MessageFilter{RealmID: r, UserID: c, SenderID: b, ChannelID: f.ch,
			ChannelHistory: true, Search: []string{"walrus"}}, ids(7)},
	}
	view(t, st, func(tx storage.Tx) {
		for _, e := range explicit {
			checkDiff(t, e.name, e.want, rowIDs(mustFind(t, tx, e.f)))
		}
	})

	// Every combination against the reference.
	bases := []storage.MessageFilter{
		{},
		{Descending: true, Limit: 2},
		{Limit: 1},
		{MinID: ms[2].ID, MaxID: ms[13].ID},
		{MinID: ms[2].ID, MaxID: ms[13].ID, Descending: true, Limit: 2},
		{ChannelID: f.ch},
		{ChannelID: f.ch, ChannelHistory: true},
		{ChannelID: f.ch, ChannelHistory: true, Descending: true, Limit: 2},
		{ChannelID: f.ch, ChannelHistory: true, MinID: ms[7].ID},
		{ChannelID: f.ch, TopicKey: &one},
		{ChannelID: f.ch, TopicKey: &one, ChannelHistory: true},
		{ChannelID: f.ch, TopicKey: &two, ChannelHistory: true, Descending: true, Limit: 1},
		{TopicKey: &two},
		{Search: []string{"walrus"}},
		{Search: []string{"walrus"}, Descending: true, Limit: 1},
		{Search: []string{"walrus"}, ChannelID: f.ch, ChannelHistory: true},
		{Unread: true},
		{Starred: true, Descending: true},
		{IDs: ids(1, 3, 6, 7, 8, 17)},
		{IDs: ids(1, 3, 6, 7, 8, 17), ChannelID: f.ch, ChannelHistory: true},
		{WithoutContent: true, Descending: true, Limit: 3},
	}
	type people struct {
		sender int64
		direct []int64
	}
	var peoples []people
	for _, id := range []int64{a, b, c, x.ID, botSender, 9999} {
		peoples = append(peoples, people{sender: id})
	}
	for _, d := range [][]int64{{a, b}, {b, a, a}, {a, b, c}, {b, c}, {a}, {c}, {x.ID}, {a, c}} {
		peoples = append(peoples, people{direct: d})
	}
	peoples = append(peoples, people{a, []int64{a, b}}, people{b, []int64{a, b}}, people{c, []int64{c, b, a}},
		people{c, []int64{a, b}})
	readers := []struct{ realm, user int64 }{{r, a}, {r, b}, {r, c}, {other.ID, x.ID}, {r, x.ID}}
	view(t, st, func(tx storage.Tx) {
		for _, rd := range readers {
			for _, base := range bases {
				all := base
				all.RealmID, all.UserID, all.Limit = rd.realm, rd.user, 0
				every := mustFind(t, tx, all)
				for _, p := range peoples {
					want := []storage.MessageRow{}
					set := storage.DirectUserSet(p.direct)
					for _, row := range every {
						m := &row.Message
						if p.sender != 0 && m.SenderID != p.sender {
							continue
						}
						if len(set) > 0 && (m.RecipientType != storage.RecipientDirect || !slices.Equal(m.DirectUserIDs, set)) {
							continue
						}
						if base.Limit > 0 && len(want) == base.Limit {
							break
						}
						want = append(want, row)
					}
					fl := base
					fl.RealmID, fl.UserID, fl.SenderID, fl.DirectUserIDs = rd.realm, rd.user, p.sender, p.direct
					checkDiff(t, fmt.Sprintf("%+v against the reference", fl), want, mustFind(t, tx, fl))
				}
			}
		}
	})

	// Deleted messages leave the narrows, and so does a rolled back
	// message (it never enters).
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages(ids(3, 4)); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
	})
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		created := createMessages(t, tx, directMessageN(r, b, []int64{a, b}, 18), channelMessageN(r, b, f.ch, "one", 19))
		if err := tx.CreateUserMessages([]storage.UserMessage{{UserID: a, MessageID: created[0].ID},
			{UserID: a, MessageID: created[1].ID}}); err != nil {
			t.Fatalf("CreateUserMessages: %v", err)
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	view(t, st, func(tx storage.Tx) {
		checkDiff(t, "b's messages after a deletion", ids(5, 7),
			rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: r, UserID: a, SenderID: b})))
		checkDiff(t, "a and b after a deletion", ids(2, 13),
			rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: r, UserID: a, DirectUserIDs: []int64{a, b}})))
		checkDiff(t, "a, b and c after a deletion", ids(17),
			rowIDs(mustFind(t, tx, storage.MessageFilter{RealmID: r, UserID: c, DirectUserIDs: []int64{a, b, c}})))
	})
}
