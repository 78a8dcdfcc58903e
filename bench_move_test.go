package chat_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// BenchmarkMoveTopic renames a topic of 10 000 messages in a channel of 10
// members (propagate_mode change_all) on SQLite ("service"), and,
// alternating with it in the same run, updates the same columns of the same
// number of rows of another topic with one prepared statement per row in
// one transaction ("raw"). It reports the medians over at least minPairs
// rounds: service-ms, raw-ms and raw/service. One op is one round.
func BenchmarkMoveTopic(b *testing.B) {
	const messages, members = 10000, 10
	f := newBenchOrg(b, members)
	svc, ctx, org := f.svc, f.ctx, f.org
	if _, err := svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "moves"}, {Name: "raw"}}, Principals: &chat.Principals{IDs: f.ids},
	}); err != nil {
		b.Fatal(err)
	}
	channel := func(name string) int64 {
		var id int64
		if err := f.db.QueryRow(`SELECT id FROM channels WHERE name = ?`, name).Scan(&id); err != nil {
			b.Fatal(err)
		}
		return id
	}
	moves, raw := channel("moves"), channel("raw")
	fill := func(channelID int64) []int64 {
		var ids []int64
		err := f.st.Update(ctx, func(tx storage.Tx) error {
			ms := make([]*storage.MessageRecord, messages)
			for i := range ms {
				ms[i] = &storage.MessageRecord{RealmID: org.RealmID, SenderID: f.ids[i%members], RecipientType: storage.RecipientChannel,
					ChannelID: channelID, Topic: "a", Content: fmt.Sprintf("message %d", i),
					RenderedContent: fmt.Sprintf("<p>message %d</p>", i), DateSent: time.Now().UTC(), Client: "API"}
			}
			if err := tx.CreateMessages(ms); err != nil {
				return err
			}
			rows := make([]storage.UserMessage, 0, messages*members)
			for _, m := range ms {
				ids = append(ids, m.ID)
				for _, u := range f.ids {
					rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID})
				}
			}
			return tx.CreateUserMessages(rows)
		})
		if err != nil {
			b.Fatal(err)
		}
		return ids
	}
	moveIDs, rawIDs := fill(moves), fill(raw)
	topics := [2]string{"a", "b"}
	serviceRounds, rawRounds := 0, 0
	service := func() time.Duration {
		serviceRounds++
		to := topics[serviceRounds%2]
		start := time.Now()
		_, err := svc.UpdateMessage(ctx, chat.AsUser(org.UserID), moveIDs[0], chat.MessageEdit{Topic: &to,
			PropagateMode: chat.PropagateChangeAll, SendNotificationToNewThread: new(bool)})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	rawMove := func() time.Duration {
		rawRounds++
		to := topics[rawRounds%2]
		start := time.Now()
		tx, err := f.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		stmt, err := tx.Prepare(`UPDATE messages SET topic = ?, topic_key = ?, edited_at = ? WHERE id = ?`)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now().UnixNano()
		for _, id := range rawIDs {
			if _, err := stmt.Exec(to, to, now, id); err != nil {
				b.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	runPairs(b, service, rawMove, time.Millisecond)
}
