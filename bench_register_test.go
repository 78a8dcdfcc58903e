package chat_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// BenchmarkRegisterUnread measures, on SQLite, POST /register with every
// block for a member of an organization of 10 000 users, 1 000 channels
// and 100 000 unread messages (in 10 topics of each channel), against
// encoding/json encoding the same answer alone (register/json; goal: at
// most 2; the unread state lists the newest 50 000, the reference's cap); and marking the 100 000 messages read (MarkAllAsRead) against a
// raw UPDATE of the same rows in one transaction (raw/mark). The unread
// state is restored between rounds, untimed. It reports the medians of
// at least 5 rounds; one op is one round.
func BenchmarkRegisterUnread(b *testing.B) {
	const channels, messages = 1000, 100000
	f := newBenchOrg(b, 10000)
	me := f.org.UserID
	specs := make([]chat.ChannelSpec, channels)
	for i := range specs {
		specs[i] = chat.ChannelSpec{Name: fmt.Sprintf("channel %d", i)}
	}
	if _, err := f.svc.Subscribe(f.ctx, chat.AsUser(me), chat.SubscribeRequest{Subscriptions: specs}); err != nil {
		b.Fatal(err)
	}
	rows, err := f.db.Query(`SELECT id FROM channels`)
	if err != nil {
		b.Fatal(err)
	}
	var channelIDs []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		channelIDs = append(channelIDs, id)
	}
	rows.Close()
	sender := f.ids[1]
	err = f.st.Update(f.ctx, func(tx storage.Tx) error {
		ms := make([]*storage.MessageRecord, messages)
		for i := range ms {
			ms[i] = &storage.MessageRecord{RealmID: f.org.RealmID, SenderID: sender, RecipientType: storage.RecipientChannel,
				ChannelID: channelIDs[i%len(channelIDs)], Topic: fmt.Sprintf("topic %d", i%10),
				Content: "hello", RenderedContent: "<p>hello</p>", DateSent: time.Now().UTC(), Client: "API"}
		}
		if err := tx.CreateMessages(ms); err != nil {
			return err
		}
		um := make([]storage.UserMessage, len(ms))
		for i, m := range ms {
			um[i] = storage.UserMessage{UserID: me, MessageID: m.ID}
		}
		return tx.CreateUserMessages(um)
	})
	if err != nil {
		b.Fatal(err)
	}
	restore := func() { f.exec(`UPDATE user_messages SET flags = 0 WHERE user_id = ?`, me) }
	var regMs, jsonRatio, markMs, markRatio []float64
	round := func() {
		start := time.Now()
		state, err := f.svc.Register(f.ctx, chat.AsUser(me), chat.RegisterRequest{ClientGravatar: true})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		// The reference's cap: the newest 50 000, and old_unreads_missing.
		var unread struct {
			Count   int  `json:"count"`
			Missing bool `json:"old_unreads_missing"`
		}
		raw, _ := json.Marshal(state["unread_msgs"])
		if json.Unmarshal(raw, &unread); unread.Count != 50000 || !unread.Missing {
			b.Fatalf("unread state %+v, want the capped 50 000", unread)
		}
		start = time.Now()
		if _, err := json.Marshal(state); err != nil {
			b.Fatal(err)
		}
		encoded := time.Since(start)
		regMs, jsonRatio = append(regMs, float64(took)/1e6), append(jsonRatio, float64(took)/float64(encoded))

		start = time.Now()
		for done := false; !done; {
			if done, err = f.svc.MarkAllAsRead(f.ctx, chat.AsUser(me)); err != nil {
				b.Fatal(err)
			}
		}
		mark := time.Since(start)
		restore()
		start = time.Now()
		f.exec(`UPDATE user_messages SET flags = flags | 1 WHERE user_id = ?`, me)
		rawMark := time.Since(start)
		restore()
		markMs, markRatio = append(markMs, float64(mark)/1e6), append(markRatio, float64(rawMark)/float64(mark))
	}
	for b.Loop() {
		round()
	}
	b.StopTimer()
	for len(regMs) < 5 {
		round()
	}
	b.ReportMetric(median(regMs), "register-ms")
	b.ReportMetric(median(jsonRatio), "register/json")
	b.ReportMetric(median(markMs), "mark-all-ms")
	b.ReportMetric(median(markRatio), "raw/mark")
}
