package chat_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/sqlite"
)

// BenchmarkSubscribe1000x100 subscribes 1 000 users to 100 new channels in
// one request on SQLite ("service"), next to inserting the same 100 000
// subscription rows with a prepared statement in one SQLite transaction
// ("raw").
func BenchmarkSubscribe1000x100(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db")
	st, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	svc := chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
	defer svc.Close()
	ctx := b.Context()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
	if err != nil {
		b.Fatal(err)
	}
	ids := []int64{org.UserID}
	for i := range 999 {
		res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: fmt.Sprintf("u%d@example.com", i), FullName: fmt.Sprintf("User %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, res.UserID)
	}
	round := 0
	specs := func() []chat.ChannelSpec {
		round++
		out := make([]chat.ChannelSpec, 100)
		for i := range out {
			out[i].Name = fmt.Sprintf("r%d-c%d", round, i)
		}
		return out
	}
	b.Run("service", func(b *testing.B) {
		for b.Loop() {
			res, err := svc.Subscribe(ctx, org.UserID, chat.SubscribeRequest{Subscriptions: specs(), Principals: &chat.Principals{IDs: ids}})
			if err != nil || len(res.Subscribed) != 1000 {
				b.Fatal(err)
			}
		}
	})
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			// The channels exist, without subscribers, as the service's
			// request would have made them.
			b.StopTimer()
			_, err := svc.Subscribe(ctx, org.UserID, chat.SubscribeRequest{Subscriptions: specs()})
			if err != nil {
				b.Fatal(err)
			}
			var chans []int64
			rows, err := db.Query(`SELECT id FROM channels ORDER BY id DESC LIMIT 100`)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				chans = append(chans, id)
			}
			rows.Close()
			b.StartTimer()
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			stmt, err := tx.Prepare(`INSERT INTO subscriptions (user_id, channel_id, color, is_muted, pin_to_top) VALUES (?, ?, ?, 0, 0)`)
			if err != nil {
				b.Fatal(err)
			}
			for _, u := range ids[1:] {
				for _, c := range chans {
					if _, err := stmt.Exec(u, c, "#76ce90"); err != nil {
						b.Fatal(err)
					}
				}
			}
			stmt.Close()
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
