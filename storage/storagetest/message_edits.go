package storagetest

import (
	"testing"

	"github.com/teamchat/chat/storage"
)

// testMessageEdits: edit records round-trip with every field, come back
// by message in the order they were added, go with their message, and a
// View cannot add any.
func (s *suite) testMessageEdits(t *testing.T) {
	st := s.store(t)
	f := newMessageFixture(t, st)
	var ms []storage.MessageRecord
	str := func(v string) *string { return &v }
	var edits []storage.MessageEditRecord
	update(t, st, func(tx storage.Tx) {
		ms = createMessages(t, tx,
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 1),
			channelMessageN(f.r.ID, f.a.ID, f.ch, "t", 2))
		edits = []storage.MessageEditRecord{
			{MessageID: ms[1].ID, UserID: f.a.ID, Time: t0, PrevContent: str("before"), PrevRenderedContent: str("<p>before</p>")},
			{MessageID: ms[0].ID, UserID: f.b.ID, Time: t0.Add(1), PrevTopic: str("t"), Topic: str("")},
			{MessageID: ms[1].ID, UserID: f.b.ID, Time: t0.Add(2), PrevTopic: str("t"), Topic: str("u"),
				PrevChannelID: f.ch, ChannelID: f.ch + 1},
		}
		if err := tx.AddMessageEdits(edits); err != nil {
			t.Fatalf("AddMessageEdits: %v", err)
		}
		if err := tx.AddMessageEdits(nil); err != nil {
			t.Errorf("AddMessageEdits(nil): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.MessageEdits([]int64{ms[1].ID, ms[0].ID, ms[1].ID, 999})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "edits", got, []storage.MessageEditRecord{edits[1], edits[0], edits[2]})
		none, err := tx.MessageEdits(nil)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("MessageEdits(nil) = %v, %v; want empty", none, err)
		}
		checkErr(t, "AddMessageEdits in a View", tx.AddMessageEdits(edits[:1]), storage.ErrReadOnly)
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{ms[1].ID}); err != nil {
			t.Fatal(err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.MessageEdits([]int64{ms[0].ID, ms[1].ID})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "edits after deleting a message", got, []storage.MessageEditRecord{edits[1]})
	})
}
