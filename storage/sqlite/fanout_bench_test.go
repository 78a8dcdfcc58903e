package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// BenchmarkFanoutSenders sends messages to a channel of 1 000 users from 8
// goroutines at once, each message's transaction writing the message and
// its 1 000 flagless rows, with the rows deferred (fanout.go) and written
// in the send's transaction, alternating; it reports messages a second,
// the settling included (the store is settled before the clock stops).
//
//	go test -run '^$' -bench FanoutSenders -benchtime 400x ./storage/sqlite
func BenchmarkFanoutSenders(b *testing.B) {
	const users, senders = 1000, 8
	type side struct {
		name           string
		s              *Store
		ids            []int64
		rate           []float64
		realm, channel int64
	}
	var sides []*side
	for _, deferMin := range []int{defaultDeferMin, 1 << 30} {
		s, err := openStore(filepath.Join(b.TempDir(), "chat.db"), deferMin, true)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		sd := &side{name: map[bool]string{true: "deferred", false: "in the send"}[deferMin == defaultDeferMin], s: s}
		sd.realm, sd.channel, sd.ids = bigChannel(b, s, users)
		sides = append(sides, sd)
	}
	send := func(sd *side, n int) {
		var wg sync.WaitGroup
		for g := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n / senders {
					err := sd.s.Update(context.Background(), func(tx storage.Tx) error {
						m := &storage.MessageRecord{RealmID: sd.realm, SenderID: sd.ids[g], RecipientType: storage.RecipientChannel,
							ChannelID: sd.channel, Topic: "t", Content: "hello", DateSent: time.Unix(1, 0)}
						if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
							return err
						}
						rows := make([]storage.UserMessage, 0, users)
						for _, u := range sd.ids {
							rows = append(rows, storage.UserMessage{UserID: u, MessageID: m.ID})
						}
						return tx.CreateUserMessages(rows)
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		// The rows are written before the clock stops.
		if err := sd.s.Update(context.Background(), func(st storage.Tx) error { return st.(*tx).settle() }); err != nil {
			b.Fatal(err)
		}
	}
	const perRound = 80
	b.ResetTimer()
	for round := 0; round*perRound < b.N; round++ {
		for _, sd := range sides {
			start := time.Now()
			send(sd, perRound)
			sd.rate = append(sd.rate, perRound/time.Since(start).Seconds())
		}
	}
	b.StopTimer()
	for _, sd := range sides {
		b.ReportMetric(median(sd.rate), "msg/s-"+map[string]string{"deferred": "deferred", "in the send": "insend"}[sd.name])
	}
	b.ReportMetric(median(sides[0].rate)/median(sides[1].rate), "deferred/insend")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
