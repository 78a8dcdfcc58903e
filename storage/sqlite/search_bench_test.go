package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// BenchmarkSearchNewest fetches the newest 50 messages of a reader in a
// history of n messages spread over 10 channels of 100 topics each, all
// received by the reader: without a narrow ("newest"), matching a word
// every message has ("common"), one in every hundredth ("rare"), in one
// channel and in one topic. It reports each as µs and common/newest, the
// cost of a common word over a plain fetch; every one should stay flat in
// n.
func BenchmarkSearchNewest(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { benchSearchNewest(b, n) })
	}
}

func benchSearchNewest(b *testing.B, n int) {
	s, err := Open(filepath.Join(b.TempDir(), "chat.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var realmID, userID, channelID int64
	err = s.Update(ctx, func(tx storage.Tx) error {
		r := testRealm(1)
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		u := testUser(r.ID, 1)
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		realmID, userID = r.ID, u.ID
		var cs []*storage.Channel
		for i := range 10 {
			cs = append(cs, &storage.Channel{RealmID: r.ID, Name: fmt.Sprintf("c%d", i), DateCreated: time.Unix(1, 0).UTC()})
		}
		if err := tx.CreateChannels(cs); err != nil {
			return err
		}
		channelID = cs[0].ID
		for start := 0; start < n; start += 1000 {
			var ms []*storage.MessageRecord
			for i := start; i < start+1000 && i < n; i++ {
				text := fmt.Sprintf("common words of message %d", i)
				if i%100 == 0 {
					text += " walrus"
				}
				ms = append(ms, &storage.MessageRecord{RealmID: r.ID, SenderID: u.ID, RecipientType: storage.RecipientChannel,
					ChannelID: cs[i%10].ID, Topic: fmt.Sprintf("t%d", i/10%10), Content: text, RenderedContent: "<p>" + text + "</p>", DateSent: time.Unix(2, 0).UTC()})
			}
			if err := tx.CreateMessages(ms); err != nil {
				return err
			}
			rows := make([]storage.UserMessage, len(ms))
			for i, m := range ms {
				rows[i] = storage.UserMessage{UserID: u.ID, MessageID: m.ID}
			}
			if err := tx.CreateUserMessages(rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	topic := storage.TopicKey("t0")
	find := func(f storage.MessageFilter) time.Duration {
		f.RealmID, f.UserID, f.Descending, f.Limit = realmID, userID, true, 50
		start := time.Now()
		var got []storage.MessageRow
		err := s.View(ctx, func(tx storage.Tx) (err error) {
			got, err = tx.FindMessages(f)
			return err
		})
		if err != nil || len(got) != 50 {
			b.Fatalf("FindMessages %+v: %d rows, %v", f, len(got), err)
		}
		return time.Since(start)
	}
	var common, rare, newest, channel, inTopic []float64
	for b.Loop() {
		newest = append(newest, float64(find(storage.MessageFilter{}))/1e3)
		common = append(common, float64(find(storage.MessageFilter{Search: []string{"common"}}))/1e3)
		rare = append(rare, float64(find(storage.MessageFilter{Search: []string{"walrus"}}))/1e3)
		channel = append(channel, float64(find(storage.MessageFilter{ChannelID: channelID}))/1e3)
		inTopic = append(inTopic, float64(find(storage.MessageFilter{ChannelID: channelID, TopicKey: &topic}))/1e3)
	}
	b.ReportMetric(median(newest), "newest-µs")
	b.ReportMetric(median(channel), "channel-µs")
	b.ReportMetric(median(inTopic), "topic-µs")
	b.ReportMetric(median(common), "common-µs")
	b.ReportMetric(median(rare), "rare-µs")
	ratios := make([]float64, len(common))
	for i := range common {
		ratios[i] = common[i] / newest[i]
	}
	b.ReportMetric(median(ratios), "common/newest")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// BenchmarkSearchScale compares the reads of BenchmarkSearchNewest in a
// history of 1 000 000 messages with the same in one of 10 000, alternating
// the two stores in every round, and reports for each read the medians in
// µs at both sizes and the median of the ratios large/small (goal: at most
// 1.5). Both histories are written the same way, with raw SQL in one
// transaction per table (the full-text triggers fire for every row): one
// reader who received every message, 10 channels, 10 topics in each.
// Filling the large store takes minutes; one op is one round of every
// read on both stores.
func BenchmarkSearchScale(b *testing.B) {
	const small, large = 10000, 1000000
	ctx := context.Background()
	type history struct {
		s                          *Store
		realmID, userID, channelID int64
	}
	open := func(n int) history {
		path := filepath.Join(b.TempDir(), "chat.db")
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		var h history
		h.s = s
		var cs []*storage.Channel
		err = s.Update(ctx, func(tx storage.Tx) error {
			r := testRealm(1)
			if err := tx.CreateRealm(&r); err != nil {
				return err
			}
			u := testUser(r.ID, 1)
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			h.realmID, h.userID = r.ID, u.ID
			for i := range 10 {
				cs = append(cs, &storage.Channel{RealmID: r.ID, Name: fmt.Sprintf("c%d", i), DateCreated: time.Unix(1, 0).UTC()})
			}
			return tx.CreateChannels(cs)
		})
		if err != nil {
			b.Fatal(err)
		}
		h.channelID = cs[0].ID
		for i, c := range cs {
			if c.ID != h.channelID+int64(i) {
				b.Fatalf("channel IDs not consecutive: %d, %d", h.channelID, c.ID)
			}
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		// The same texts, channels and topics as BenchmarkSearchNewest's.
		if _, err := tx.Exec(`WITH RECURSIVE g (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i + 1 < ?)
			INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic, topic_key,
				content, rendered_content, date_sent, client)
			SELECT ?, ?, ?, ? + i % 10, '[]', 't' || (i / 10 % 10), 't' || (i / 10 % 10), t, '<p>' || t || '</p>', ?, ''
			FROM (SELECT i, 'common words of message ' || i || iif(i % 100 = 0, ' walrus', '') AS t FROM g)`,
			n, h.realmID, h.userID, storage.RecipientChannel, h.channelID, time.Unix(2, 0).UnixNano()); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO user_messages (user_id, message_id, flags) SELECT ?, id, 0 FROM messages ORDER BY id`, h.userID); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			b.Fatal(err)
		}
		return h
	}
	start := time.Now()
	hs := []history{open(small), open(large)}
	b.Logf("filled %d and %d messages in %v", small, large, time.Since(start).Round(time.Second))
	topic := storage.TopicKey("t0")
	find := func(h history, f storage.MessageFilter) float64 {
		f.RealmID, f.UserID, f.Descending, f.Limit = h.realmID, h.userID, true, 50
		if f.ChannelID != 0 {
			f.ChannelID = h.channelID
		}
		start := time.Now()
		var got []storage.MessageRow
		err := h.s.View(ctx, func(tx storage.Tx) (err error) {
			got, err = tx.FindMessages(f)
			return err
		})
		if err != nil || len(got) != 50 {
			b.Fatalf("FindMessages %+v: %d rows, %v", f, len(got), err)
		}
		return float64(time.Since(start)) / 1e3
	}
	reads := []struct {
		name string
		f    storage.MessageFilter
	}{
		{"newest", storage.MessageFilter{}},
		{"common", storage.MessageFilter{Search: []string{"common"}}},
		{"rare", storage.MessageFilter{Search: []string{"walrus"}}},
		{"channel", storage.MessageFilter{ChannelID: 1}},
		{"topic", storage.MessageFilter{ChannelID: 1, TopicKey: &topic}},
	}
	times := make([][2][]float64, len(reads))
	ratios := make([][]float64, len(reads))
	round := 0
	pass := func() {
		round++
		for k, r := range reads {
			var t [2]float64
			for j := range 2 {
				side := (round + j) % 2
				t[side] = find(hs[side], r.f)
			}
			times[k][0] = append(times[k][0], t[0])
			times[k][1] = append(times[k][1], t[1])
			ratios[k] = append(ratios[k], t[1]/t[0])
		}
	}
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	for round < 20 {
		pass()
	}
	for k, r := range reads {
		b.ReportMetric(median(times[k][0]), r.name+"-10k-µs")
		b.ReportMetric(median(times[k][1]), r.name+"-1M-µs")
		b.ReportMetric(median(ratios[k]), r.name+"-1M/10k")
	}
}
