package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// BenchmarkSearchNewest is storage/sqlite's BenchmarkSearchNewest on
// PostgreSQL: it fetches the newest 50 messages of a reader in a history
// of n messages spread over 10 channels of 100 topics each, all received
// by the reader, written through the store: without a narrow ("newest"),
// matching a word every message has ("common"), one in every hundredth
// ("rare"), in one channel and in one topic. It reports each as µs and
// common/newest; every one should stay flat in n. Each size runs after
// ANALYZE, as autovacuum leaves the tables, and without it, as they are
// right after the load. It runs when
// CHAT_TEST_POSTGRES_DSN names a database (scripts/with-postgres.sh).
func BenchmarkSearchNewest(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, analyze := range []bool{true, false} {
			b.Run(fmt.Sprintf("messages=%d/analyzed=%v", n, analyze), func(b *testing.B) { benchSearchNewest(b, n, analyze) })
		}
	}
}

func benchSearchNewest(b *testing.B, n int, analyze bool) {
	ctx := context.Background()
	dsn := pgtest.Schema(b)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var realmID, userID, channelID int64
	t0 := time.Unix(1, 0).UTC()
	err = s.Update(ctx, func(tx storage.Tx) error {
		r := storage.Realm{Name: "Bench", Host: "bench.example.com", URL: "https://bench.example.com", DateCreated: t0,
			DefaultEmailVisibility: storage.EmailVisibleAdmins}
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		u := storage.UserRecord{RealmID: r.ID, Email: "reader@example.com", FullName: "Reader", Role: storage.RoleMember,
			IsActive: true, DateJoined: t0, Timezone: "UTC", APIKey: "bench-reader-key", EmailVisibility: storage.EmailVisibleAdmins}
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		realmID, userID = r.ID, u.ID
		var cs []*storage.Channel
		for i := range 10 {
			cs = append(cs, &storage.Channel{RealmID: r.ID, Name: fmt.Sprintf("c%d", i), DateCreated: t0})
		}
		if err := tx.CreateChannels(cs); err != nil {
			return err
		}
		channelID = cs[0].ID
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for start := 0; start < n; start += 1000 {
		err := s.Update(ctx, func(tx storage.Tx) error {
			var ms []*storage.MessageRecord
			for i := start; i < start+1000 && i < n; i++ {
				text := fmt.Sprintf("common words of message %d", i)
				if i%100 == 0 {
					text += " walrus"
				}
				ms = append(ms, &storage.MessageRecord{RealmID: realmID, SenderID: userID, RecipientType: storage.RecipientChannel,
					ChannelID: channelID + int64(i%10), Topic: fmt.Sprintf("t%d", i/10%10), Content: text, RenderedContent: "<p>" + text + "</p>",
					DateSent: time.Unix(2, 0).UTC()})
			}
			if err := tx.CreateMessages(ms); err != nil {
				return err
			}
			rows := make([]storage.UserMessage, len(ms))
			for i, m := range ms {
				rows[i] = storage.UserMessage{UserID: userID, MessageID: m.ID}
			}
			return tx.CreateUserMessages(rows)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// The statistics autovacuum would gather within a minute of such a
	// load: without them the planner takes the freshly filled tables for
	// empty ones.
	if analyze {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		_, err = conn.Exec(ctx, "ANALYZE")
		conn.Close(ctx)
		if err != nil {
			b.Fatal(err)
		}
	}
	topic := storage.TopicKey("t0")
	find := func(f storage.MessageFilter) float64 {
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
		return float64(time.Since(start)) / 1e3
	}
	var common, rare, newest, channel, inTopic, ratios []float64
	for b.Loop() {
		newest = append(newest, find(storage.MessageFilter{}))
		common = append(common, find(storage.MessageFilter{Search: []string{"common"}}))
		rare = append(rare, find(storage.MessageFilter{Search: []string{"walrus"}}))
		channel = append(channel, find(storage.MessageFilter{ChannelID: channelID}))
		inTopic = append(inTopic, find(storage.MessageFilter{ChannelID: channelID, TopicKey: &topic}))
		ratios = append(ratios, common[len(common)-1]/newest[len(newest)-1])
	}
	b.ReportMetric(median(newest), "newest-µs")
	b.ReportMetric(median(channel), "channel-µs")
	b.ReportMetric(median(inTopic), "topic-µs")
	b.ReportMetric(median(common), "common-µs")
	b.ReportMetric(median(rare), "rare-µs")
	b.ReportMetric(median(ratios), "common/newest")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
