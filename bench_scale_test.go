package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage/postgres"
)

// BenchmarkOrgScale compares an organization of 1 000 users with one of
// 10 000 (each with a default channel of all its users, withGeneral) on
// SQLite, and on PostgreSQL when CHAT_TEST_POSTGRES_DSN names a database
// (scripts/with-postgres.sh), alternating, for the operations that must
// stay flat in the organization's size: creating a user (without a
// password, so that bcrypt is not measured) and POST /register with every
// block. It reports the medians of create-1k-µs, create-10k-µs and
// create-10k/1k (goal: at most 1.2); register-1k-ms, register-10k-ms and,
// since the register answer lists every user, register-10k per user
// against 1k per user; and register/json, the register call at 10 000
// users against encoding/json encoding its answer alone (goal: at most
// 2). One op is one round: ten creations on each side, then one register
// on each.
func BenchmarkOrgScale(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchOrgScale(b, withGeneral(newBenchOrg(b, 1000)), withGeneral(newBenchOrg(b, 10000)))
	})
	if pgtest.Available() {
		b.Run("postgres", func(b *testing.B) {
			open := func(members int) *benchOrg {
				st, err := postgres.Open(context.Background(), pgtest.Schema(b))
				if err != nil {
					b.Fatal(err)
				}
				return newBenchOrgOn(b, st, members)
			}
			benchOrgScale(b, withGeneral(open(1000)), withGeneral(open(10000)))
		})
	}
}

// withGeneral gives the organization what every real one has, and what a
// new user's creation works with: a default channel of all its users, as
// chatd's first start makes, with 50 messages.
func withGeneral(f *benchOrg) *benchOrg {
	owner := chat.AsUser(f.org.UserID)
	for start := 0; start < len(f.ids); start += 1000 {
		_, err := f.svc.Subscribe(f.ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "general"}},
			IsDefaultStream: true, Principals: &chat.Principals{IDs: f.ids[start:min(start+1000, len(f.ids))]}})
		if err != nil {
			f.b.Fatal(err)
		}
	}
	general, err := f.svc.ChannelIDByName(f.ctx, owner, "general")
	if err != nil {
		f.b.Fatal(err)
	}
	for i := range 50 {
		if _, err := f.svc.PostChannelMessage(f.ctx, owner, general, "news", fmt.Sprintf("news %d", i)); err != nil {
			f.b.Fatal(err)
		}
	}
	return f
}

// createsPerRound is the number of users each side creates in a round.
const createsPerRound = 10

func benchOrgScale(b *testing.B, small, large *benchOrg) {
	round := 0
	// create adds createsPerRound users, one at a time, and returns their
	// mean time: a single creation (a few hundred microseconds) is at the
	// mercy of the machine's other work.
	create := func(f *benchOrg) time.Duration {
		start := time.Now()
		for i := range createsPerRound {
			_, err := f.svc.ProvisionUser(f.ctx, f.org.RealmID, chat.NewUser{
				Email: fmt.Sprintf("scale%d-%d@example.com", round, i), FullName: fmt.Sprintf("Scale %d %d", round, i)})
			if err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start) / createsPerRound
	}
	var encoded time.Duration
	register := func(f *benchOrg) time.Duration {
		runtime.GC()
		start := time.Now()
		state, err := f.svc.Register(f.ctx, chat.AsUser(f.org.UserID), chat.RegisterRequest{ClientGravatar: true})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if f == large {
			runtime.GC()
			start = time.Now()
			if _, err := json.Marshal(state); err != nil {
				b.Fatal(err)
			}
			encoded = time.Since(start)
		}
		return took
	}
	var c1, c10, cr, r1, r10, rPerUser, rJSON []float64
	pair := func() {
		round++
		a, z := small, large
		if round%2 == 0 {
			a, z = large, small
		}
		// Each measure starts with the garbage of the last collected
		// (here and in register), so that register's garbage (the 10 000
		// users' list and answer, megabytes) is not collected during, and
		// charged to, the creations or the encoding that follow it.
		runtime.GC()
		ca, cz := create(a), create(z)
		ra, rz := register(a), register(z)
		if a == large {
			ca, cz, ra, rz = cz, ca, rz, ra
		}
		c1, c10, cr = append(c1, float64(ca)/1e3), append(c10, float64(cz)/1e3), append(cr, float64(cz)/float64(ca))
		r1, r10 = append(r1, float64(ra)/1e6), append(r10, float64(rz)/1e6)
		rPerUser = append(rPerUser, (float64(rz)/10000)/(float64(ra)/1000))
		rJSON = append(rJSON, float64(rz)/float64(encoded))
	}
	for b.Loop() {
		pair()
	}
	b.StopTimer()
	for len(cr) < minPairs {
		pair()
	}
	b.ReportMetric(median(c1), "create-1k-µs")
	b.ReportMetric(median(c10), "create-10k-µs")
	b.ReportMetric(median(cr), "create-10k/1k")
	b.ReportMetric(median(r1), "register-1k-ms")
	b.ReportMetric(median(r10), "register-10k-ms")
	b.ReportMetric(median(rPerUser), "register-per-user-10k/1k")
	b.ReportMetric(median(rJSON), "register/json")
}
