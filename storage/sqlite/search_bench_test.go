package sqlite

import (
	"context"
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
