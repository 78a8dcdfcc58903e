package chat_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
	"github.com/teamchat/chat/storage/sqlite"
)

// BenchmarkSendFanout sends one channel message to a channel of 1, 100,
// 1 000 and 10 000 subscribers ("service") and, alternating with it in the
// same run, inserts the same rows (one message and one user-message row per
// subscriber) in one transaction of the same database ("raw"): on SQLite
// with prepared statements; on PostgreSQL, which runs when
// CHAT_TEST_POSTGRES_DSN names a database (see scripts/with-postgres.sh),
// with the message's statement and one INSERT ... SELECT FROM unnest of
// every row, as the backend itself batches them. It reports the medians
// over at least minPairs rounds: service-µs, raw-µs and raw/service (the
// goal for 1 000 members is at least 0.5). One op is one round.
func BenchmarkSendFanout(b *testing.B) {
	for _, members := range []int{1, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("members=%d", members), func(b *testing.B) { benchSendFanoutSQLite(b, members) })
	}
	if !pgtest.Available() {
		return
	}
	for _, members := range []int{1, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("postgres/members=%d", members), func(b *testing.B) { benchSendFanoutPostgres(b, members) })
	}
}

// fanoutContent is the message both sides send.
const fanoutContent = "Hello **everyone**, this is a message of ordinary length with a [link](https://example.com)."

// fanoutService returns a side that sends one message to the channel
// "fanout", to which it first subscribes ids. When the store is SQLite,
// which writes a big channel's rows after the send (storage/sqlite/fanout.go),
// the side's time includes writing them.
func fanoutService(b *testing.B, svc *chat.Service, st storage.Store, org chat.NewOrgResult, ids []int64) func() time.Duration {
	ctx := context.Background()
	if _, err := svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: "fanout"}}, Principals: &chat.Principals{IDs: ids},
	}); err != nil {
		b.Fatal(err)
	}
	topic := "bench"
	return func() time.Duration {
		start := time.Now()
		_, err := svc.SendMessage(ctx, chat.AsUser(org.UserID), chat.SendMessageRequest{
			Type: "stream", To: &chat.MessageTo{Names: []string{"fanout"}}, Topic: &topic, Content: fanoutContent,
		})
		if err != nil {
			b.Fatal(err)
		}
		if lite, ok := st.(*sqlite.Store); ok {
			if err := lite.Settle(ctx); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
}

func benchSendFanoutSQLite(b *testing.B, members int) {
	f := newBenchOrg(b, members)
	db, org, ids := f.db, f.org, f.ids
	service := fanoutService(b, f.svc, f.st, org, ids)
	var channelID int64
	if err := db.QueryRow(`SELECT id FROM channels WHERE name = 'fanout'`).Scan(&channelID); err != nil {
		b.Fatal(err)
	}
	topic := "bench"
	raw := func() time.Duration {
		start := time.Now()
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		res, err := tx.Exec(`INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic,
			topic_key, content, rendered_content, date_sent, client) VALUES (?, ?, 1, ?, '[]', ?, ?, ?, ?, ?, 'API')`,
			org.RealmID, org.UserID, channelID, topic, topic, fanoutContent, "<p>"+fanoutContent+"</p>", time.Now().UnixNano())
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
	runPairs(b, service, raw, time.Microsecond)
}

func benchSendFanoutPostgres(b *testing.B, members int) {
	ctx := context.Background()
	dsn := pgtest.Schema(b)
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
	b.Cleanup(func() { svc.Close() })
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(context.Background()) })
	// The members are inserted through the store in one transaction:
	// creating 10 000 users through the API is not what this measures.
	ids := []int64{org.UserID}
	now := time.Now().UTC().Round(0)
	err = st.Update(ctx, func(tx storage.Tx) error {
		for i := range members - 1 {
			u := storage.UserRecord{
				RealmID: org.RealmID, Email: fmt.Sprintf("u%d@example.com", i), FullName: fmt.Sprintf("User %d", i),
				Role: chat.RoleMember, IsActive: true, DateJoined: now, Timezone: "UTC",
				AvatarSource: chat.AvatarGravatar, AvatarVersion: 1, APIKey: fmt.Sprintf("key%029d", i),
				EmailVisibility: chat.EmailVisibleEveryone, PresenceEnabled: true,
			}
			if err := tx.CreateUser(&u); err != nil {
				return err
			}
			ids = append(ids, u.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	service := fanoutService(b, svc, st, org, ids)
	var channelID int64
	if err := conn.QueryRow(ctx, `SELECT id FROM channels WHERE name = 'fanout'`).Scan(&channelID); err != nil {
		b.Fatal(err)
	}
	topic := "bench"
	words := strings.Fields("bench hello everyone this is a message of ordinary length with link https example com")
	zeros := make([]int64, len(ids))
	raw := func() time.Duration {
		start := time.Now()
		tx, err := conn.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var id int64
		err = tx.QueryRow(ctx, `INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic,
			topic_key, content, rendered_content, date_sent, client, search_words)
			VALUES ($1, $2, 1, $3, '{}', $4, $4, $5, $6, $7, 'API', $8) RETURNING id`,
			org.RealmID, org.UserID, channelID, topic, fanoutContent, "<p>"+fanoutContent+"</p>", time.Now().UnixNano(), words).Scan(&id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO user_messages (user_id, message_id, flags)
			SELECT u, $2, f FROM unnest($1::bigint[], $3::bigint[]) AS r (u, f)`, ids, id, zeros); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	runPairs(b, service, raw, time.Microsecond)
}

// runPairs runs service and raw alternately, which goes first
// alternating too, for b.N rounds and at least minPairs, and reports the
// medians of their times in unit (time.Millisecond or time.Microsecond)
// and of raw/service.
func runPairs(b *testing.B, service, raw func() time.Duration, unit time.Duration) {
	name := map[time.Duration]string{time.Millisecond: "ms", time.Microsecond: "µs"}[unit]
	var svcTimes, rawTimes, ratios []float64
	pair := func() {
		var s, r time.Duration
		if len(ratios)%2 == 0 {
			s, r = service(), raw()
		} else {
			r, s = raw(), service()
		}
		svcTimes = append(svcTimes, float64(s)/float64(unit))
		rawTimes = append(rawTimes, float64(r)/float64(unit))
		ratios = append(ratios, float64(r)/float64(s))
	}
	for b.Loop() {
		pair()
	}
	b.StopTimer()
	for len(ratios) < minPairs {
		pair()
	}
	b.ReportMetric(median(svcTimes), "service-"+name)
	b.ReportMetric(median(rawTimes), "raw-"+name)
	b.ReportMetric(median(ratios), "raw/service")
	b.ReportMetric(float64(len(ratios)), "pairs")
}

// BenchmarkSendSenders sends b.N messages (rounded down to a multiple of
// 8) from 8 goroutines at once to a channel of 1 000 subscribers on SQLite,
// as the peer benchmark's big channel does (bench/peer), through the
// service with the store's settler on (storage/sqlite/fanout.go). It
// reports msg/s over the whole run, and over its first and last quarters
// (the rate falls as the rows pile up), and the sends' p99 in ms. There is
// no baseline in the run: it compares builds, run one after the other.
//
//	go test -run '^$' -bench SendSenders -benchtime 3200x .
func BenchmarkSendSenders(b *testing.B) {
	const senders = 8
	f := newBenchOrg(b, 1000)
	fanoutService(b, f.svc, f.st, f.org, f.ids) // subscribes them
	topic := "bench"
	per := b.N / senders
	var sent atomic.Int64
	latencies := make([][]float64, senders)
	var firstQuarter, lastQuarterStart time.Duration
	quarter := int64(per * senders / 4)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for range per {
				sendStart := time.Now()
				if _, err := f.svc.SendMessage(f.ctx, chat.AsUser(f.org.UserID), chat.SendMessageRequest{
					Type: "stream", To: &chat.MessageTo{Names: []string{"fanout"}}, Topic: &topic, Content: fanoutContent,
				}); err != nil {
					b.Error(err)
					return
				}
				latencies[g] = append(latencies[g], float64(time.Since(sendStart))/float64(time.Millisecond))
				switch sent.Add(1) {
				case quarter:
					firstQuarter = time.Since(start)
				case 3 * quarter:
					lastQuarterStart = time.Since(start)
				}
			}
		})
	}
	wg.Wait()
	total := time.Since(start)
	b.StopTimer()
	if quarter == 0 {
		return
	}
	b.ReportMetric(float64(per*senders)/total.Seconds(), "msg/s")
	b.ReportMetric(float64(quarter)/firstQuarter.Seconds(), "first-quarter-msg/s")
	b.ReportMetric(float64(quarter)/(total-lastQuarterStart).Seconds(), "last-quarter-msg/s")
	all := slices.Concat(latencies...)
	slices.Sort(all)
	b.ReportMetric(all[len(all)*99/100], "p99-ms")
}
