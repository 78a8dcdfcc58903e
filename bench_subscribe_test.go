package chat_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/sqlite"
)

// minPairs is the least number of service/raw pairs the subscribe
// benchmark measures before it reports their median ratio.
const minPairs = 20

// BenchmarkSubscribe1000x100 subscribes 1 000 users to 100 new channels in
// one request on SQLite ("service"), and next to it inserts the same
// 100 000 subscription rows into 100 channels created beforehand with a
// prepared statement in one SQLite transaction ("raw"). The request also
// writes the notification bot's message in each new channel, with one row
// per subscriber; a third side ("raw-rows") inserts those 100 messages and
// 100 000 rows as well, one prepared statement per row, so that the
// service is also compared with raw inserts of all the rows it writes. The
// three alternate, rotating which goes first, and after every round the
// rows are deleted, so each round starts from the same database. It
// reports the medians over at least minPairs rounds: service-ms, raw-ms,
// raw-rows-ms, service/raw (goal: at most 2) and service/raw-rows. One op
// is one round.
func BenchmarkSubscribe1000x100(b *testing.B) {
	f := newBenchOrg(b, 1000)
	sb := &subscribeBench{benchOrg: f}
	sb.exec(`DELETE FROM subscriptions`)
	if err := f.db.QueryRow(`SELECT coalesce(max(id), 0) + 1 FROM channels`).Scan(&sb.firstChannel); err != nil {
		b.Fatal(err)
	}
	var svcTimes, rawTimes, rowsTimes, ratios, rowsRatios []float64
	pair := func() {
		sb.round++
		// Rotate which side goes first, so none always runs on a cache
		// another warmed.
		var s, r, m time.Duration
		sides := []func(){
			func() { s = sb.service() },
			func() { r = sb.raw(false) },
			func() { m = sb.raw(true) },
		}
		for i := range sides {
			sides[(sb.round+i)%len(sides)]()
		}
		svcTimes = append(svcTimes, float64(s)/1e6)
		rawTimes = append(rawTimes, float64(r)/1e6)
		rowsTimes = append(rowsTimes, float64(m)/1e6)
		ratios = append(ratios, float64(s)/float64(r))
		rowsRatios = append(rowsRatios, float64(s)/float64(m))
	}
	for b.Loop() {
		pair()
		b.StopTimer()
		sb.reset()
		b.StartTimer()
	}
	b.StopTimer()
	for len(ratios) < minPairs {
		pair()
		sb.reset()
	}
	b.ReportMetric(median(svcTimes), "service-ms")
	b.ReportMetric(median(rawTimes), "raw-ms")
	b.ReportMetric(median(rowsTimes), "raw-rows-ms")
	b.ReportMetric(median(ratios), "service/raw")
	b.ReportMetric(median(rowsRatios), "service/raw-rows")
	b.ReportMetric(float64(len(ratios)), "pairs")
}

// benchOrg is an organization on SQLite for the benchmarks that compare
// the service with raw inserts: its owner and members, and a raw
// connection to the same database file.
type benchOrg struct {
	b   *testing.B
	ctx context.Context
	st  storage.Store
	svc *chat.Service
	org chat.NewOrgResult
	ids []int64
	db  *sql.DB
}

// newBenchOrg opens a SQLite store in a temporary directory with an
// organization of members users (the owner included), and a raw
// connection to its file; everything is closed when b ends.
func newBenchOrg(b *testing.B, members int) *benchOrg {
	path := filepath.Join(b.TempDir(), "bench.db")
	st, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	f := newBenchOrgOn(b, st, members)
	// The raw side's connection has the store's pragmas.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	f.db = db
	return f
}

// newBenchOrgOn makes an organization of members users on st, which it
// closes when b ends; it has no raw connection.
func newBenchOrgOn(b *testing.B, st storage.Store, members int) *benchOrg {
	svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
	b.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
	if err != nil {
		b.Fatal(err)
	}
	ids := []int64{org.UserID}
	for i := range members - 1 {
		res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: fmt.Sprintf("u%d@example.com", i), FullName: fmt.Sprintf("User %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, res.UserID)
	}
	return &benchOrg{b: b, ctx: ctx, st: st, svc: svc, org: org, ids: ids}
}

func (f *benchOrg) exec(q string, args ...any) {
	if _, err := f.db.Exec(q, args...); err != nil {
		f.b.Fatal(err)
	}
}

// subscribeBench is the state of BenchmarkSubscribe1000x100.
type subscribeBench struct {
	*benchOrg
	round        int
	firstChannel int64
}

// names are the channel names of the round for one side.
func (sb *subscribeBench) names(kind string) []string {
	out := make([]string, 100)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d-c%d", kind, sb.round, i)
	}
	return out
}

func (sb *subscribeBench) service() time.Duration {
	specs := make([]chat.ChannelSpec, 100)
	for i, n := range sb.names("s") {
		specs[i].Name = n
	}
	start := time.Now()
	res, err := sb.svc.Subscribe(sb.ctx, chat.AsUser(sb.org.UserID), chat.SubscribeRequest{Subscriptions: specs, Principals: &chat.Principals{IDs: sb.ids}})
	elapsed := time.Since(start)
	if err != nil || len(res.Subscribed) != len(sb.ids) {
		sb.b.Fatalf("service: %v", err)
	}
	return elapsed
}

// raw inserts the subscriptions, and with withMessages the notification
// bot's messages and their rows, into channels that exist without
// subscribers, as the service's request would have made them.
func (sb *subscribeBench) raw(withMessages bool) time.Duration {
	b := sb.b
	kind := "r"
	if withMessages {
		kind = "m"
	}
	chans := make([]*storage.Channel, 100)
	for i, n := range sb.names(kind) {
		chans[i] = &storage.Channel{RealmID: sb.org.RealmID, Name: n, DateCreated: time.Now().UTC().Round(0)}
	}
	if err := sb.st.Update(sb.ctx, func(tx storage.Tx) error { return tx.CreateChannels(chans) }); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	tx, err := sb.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	prepare := func(q string) *sql.Stmt {
		stmt, err := tx.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		return stmt
	}
	subs := prepare(`INSERT INTO subscriptions (user_id, channel_id, color, is_muted, pin_to_top) VALUES (?, ?, ?, 0, 0)`)
	for _, u := range sb.ids {
		for _, c := range chans {
			if _, err := subs.Exec(u, c.ID, "#76ce90"); err != nil {
				b.Fatal(err)
			}
		}
	}
	subs.Close()
	if withMessages {
		msgs := prepare(`INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic,
			topic_key, content, rendered_content, date_sent, client) VALUES (?, ?, 1, ?, '[]', ?, ?, ?, ?, ?, 'Internal')`)
		rows := prepare(`INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)`)
		content := "**Public** channel created by @_**Owen Owner|1**. **Description:**\n```` quote\n*No description.*\n````"
		for _, c := range chans {
			res, err := msgs.Exec(sb.org.RealmID, chat.NotificationBotID, c.ID, "channel events", "channel events",
				content, "<p>"+content+"</p>", time.Now().UnixNano())
			if err != nil {
				b.Fatal(err)
			}
			id, _ := res.LastInsertId()
			for _, u := range sb.ids {
				if _, err := rows.Exec(u, id); err != nil {
					b.Fatal(err)
				}
			}
		}
		msgs.Close()
		rows.Close()
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// reset deletes the pair's subscriptions and messages, so that users do
// not accumulate them from pair to pair.
func (sb *subscribeBench) reset() {
	sb.exec(`DELETE FROM subscriptions WHERE channel_id >= ?`, sb.firstChannel)
	sb.exec(`DELETE FROM messages WHERE channel_id >= ?`, sb.firstChannel)
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
