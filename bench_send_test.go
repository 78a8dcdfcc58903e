package chat_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/teamchat/chat"
)

// BenchmarkSendFanout sends one channel message to a channel of 1, 100,
// 1 000 and 10 000 subscribers on SQLite ("service") and, alternating with it in the
// same run, inserts the same rows (one message and one user-message row per
// subscriber) with prepared statements in one SQLite transaction ("raw").
// It reports the medians over at least minPairs rounds: service-µs, raw-µs
// and raw/service (the goal for 1 000 members is at least 0.5). One op is
// one round.
func BenchmarkSendFanout(b *testing.B) {
	for _, members := range []int{1, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("members=%d", members), func(b *testing.B) { benchSendFanout(b, members) })
	}
}

func benchSendFanout(b *testing.B, members int) {
	f := newBenchOrg(b, members)
	svc, db, ctx, org, ids := f.svc, f.db, f.ctx, f.org, f.ids
	if _, err := svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "fanout"}}, Principals: &chat.Principals{IDs: ids},
	}); err != nil {
		b.Fatal(err)
	}
	var channelID int64
	if err := db.QueryRow(`SELECT id FROM channels WHERE name = 'fanout'`).Scan(&channelID); err != nil {
		b.Fatal(err)
	}
	topic := "bench"
	content := "Hello **everyone**, this is a message of ordinary length with a [link](https://example.com)."
	service := func() time.Duration {
		start := time.Now()
		_, err := svc.SendMessage(ctx, chat.AsUser(org.UserID), chat.SendMessageRequest{
			Type: "stream", To: &chat.MessageTo{IDs: []int64{channelID}}, Topic: &topic, Content: content,
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	raw := func() time.Duration {
		start := time.Now()
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		res, err := tx.Exec(`INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic,
			topic_key, content, rendered_content, date_sent, client) VALUES (?, ?, 1, ?, '[]', ?, ?, ?, ?, ?, 'API')`,
			org.RealmID, org.UserID, channelID, topic, topic, content, "<p>"+content+"</p>", time.Now().UnixNano())
		if err != nil {
			b.Fatal(err)
		}
		id, _ := res.LastInsertId()
		rows, err := tx.Prepare(`INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)`)
		if err != nil {
			b.Fatal(err)
		}
		for _, u := range ids {
			if _, err := rows.Exec(u, id); err != nil {
				b.Fatal(err)
			}
		}
		rows.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var svcTimes, rawTimes, ratios []float64
	round := 0
	pair := func() {
		round++
		var s, r time.Duration
		if round%2 == 0 {
			s, r = service(), raw()
		} else {
			r, s = raw(), service()
		}
		svcTimes = append(svcTimes, float64(s)/1e3)
		rawTimes = append(rawTimes, float64(r)/1e3)
		ratios = append(ratios, float64(r)/float64(s))
	}
	for b.Loop() {
		pair()
	}
	b.StopTimer()
	for len(ratios) < minPairs {
		pair()
	}
	b.ReportMetric(median(svcTimes), "service-µs")
	b.ReportMetric(median(rawTimes), "raw-µs")
	b.ReportMetric(median(ratios), "raw/service")
	b.ReportMetric(float64(len(ratios)), "pairs")
}
