package httpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/sqlite"
)

// seedUsers adds n members to the realm in one transaction, straight
// through the store: benchmarks need large organizations fast, and the
// rules of ProvisionUser are not what they measure.
func seedUsers(tb testing.TB, store storage.Store, realmID int64, n int) []int64 {
	tb.Helper()
	ids := make([]int64, 0, n)
	now := time.Now().UTC().Round(0)
	err := store.Update(context.Background(), func(tx storage.Tx) error {
		for i := range n {
			u := storage.UserRecord{
				RealmID: realmID, Email: fmt.Sprintf("seed%07d@example.com", i), FullName: fmt.Sprintf("Seeded User %d", i),
				Role: chat.RoleMember, IsActive: true, DateJoined: now, Timezone: "Europe/Berlin",
				AvatarSource: chat.AvatarGravatar, AvatarVersion: 1, APIKey: fmt.Sprintf("seed%028d", i),
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
		tb.Fatal(err)
	}
	return ids
}

// backendsForBench opens each storage backend.
var backendsForBench = []struct {
	name string
	open func(tb testing.TB) storage.Store
}{
	{"memory", func(testing.TB) storage.Store { return memory.New() }},
	{"sqlite", func(tb testing.TB) storage.Store {
		s, err := sqlite.Open(filepath.Join(tb.TempDir(), "chat.db"))
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}},
}

// orgOf creates an organization of n users (its owner included) on store
// and returns a handler and the owner's credentials.
func orgOf(tb testing.TB, store storage.Store, n int) (http.Handler, account, []int64) {
	tb.Helper()
	svc := chat.New(store, chat.Config{})
	tb.Cleanup(func() { svc.Close() })
	org, err := svc.CreateOrg(context.Background(), chat.NewOrg{Name: "Bench", Host: host, OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		tb.Fatal(err)
	}
	ids := seedUsers(tb, store, org.RealmID, n-1)
	return httpserver.New(svc, httpserver.Options{}), account{org.UserID, org.Email, org.APIKey}, ids
}

// medianRatio runs a and b alternately n times and returns the median of
// the ratios of their times (a / b).
func medianRatio(n int, a, b func()) float64 {
	ratios := make([]float64, n)
	for i := range n {
		t0 := time.Now()
		a()
		t1 := time.Now()
		b()
		t2 := time.Now()
		ratios[i] = float64(t1.Sub(t0)) / float64(t2.Sub(t1))
	}
	slices.Sort(ratios)
	return ratios[n/2]
}

func serve(tb testing.TB, h http.Handler, method, path string, as account, form url.Values) {
	var body *strings.Reader
	target := "http://" + host + "/api/v1" + path
	if method == http.MethodGet {
		target += "?" + form.Encode()
		body = strings.NewReader("")
	} else {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if method != http.MethodGet {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.SetBasicAuth(as.email, as.key)
	w := &discardWriter{header: http.Header{}}
	h.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		tb.Fatalf("%s %s: status %d", method, path, w.code)
	}
}

// BenchmarkSingleUserScale measures one-user operations in an organization
// of 100 000 users against the same in one of 1 000, alternating, and
// reports the median ratio: the cost must not grow with the organization
// (goal: within 1.5x).
func BenchmarkSingleUserScale(b *testing.B) {
	for _, backend := range backendsForBench {
		b.Run(backend.name, func(b *testing.B) {
			smallH, smallOwner, smallIDs := orgOf(b, backend.open(b), 1000)
			largeH, largeOwner, largeIDs := orgOf(b, backend.open(b), 100000)
			for _, op := range []struct {
				name string
				run  func(h http.Handler, owner account, ids []int64, i int)
			}{
				{"lookup", func(h http.Handler, owner account, ids []int64, i int) {
					serve(b, h, http.MethodGet, "/users/"+itoa(ids[i%len(ids)]), owner, nil)
				}},
				{"status", func(h http.Handler, owner account, _ []int64, i int) {
					serve(b, h, http.MethodPost, "/users/me/status", owner, url.Values{"status_text": {"busy " + itoa(int64(i%7))}})
				}},
			} {
				b.Run(op.name, func(b *testing.B) {
					i := 0
					b.ResetTimer()
					ratio := medianRatio(max(b.N, 21),
						func() { op.run(largeH, largeOwner, largeIDs, i); i++ },
						func() { op.run(smallH, smallOwner, smallIDs, i); i++ })
					b.ReportMetric(ratio, "ratio-100k/1k")
				})
			}
		})
	}
}

// BenchmarkStoreMemory measures the in-memory store's heap per user and per
// subscription, against the size of the records themselves (the struct
// plus its strings): goals within 2x and 4x.
func BenchmarkStoreMemory(b *testing.B) {
	const users, channels = 20000, 10
	for range b.N {
		store := memory.New()
		var before, afterUsers, afterSubs runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := store.Update(context.Background(), func(tx storage.Tx) error {
			r := chat.Realm{Name: "Mem", Host: "mem.example.com", DefaultEmailVisibility: chat.EmailVisibleEveryone}
			return tx.CreateRealm(&r)
		})
		if err != nil {
			b.Fatal(err)
		}
		ids := seedUsers(b, store, 1, users)
		runtime.GC()
		runtime.ReadMemStats(&afterUsers)

		err = store.Update(context.Background(), func(tx storage.Tx) error {
			cs := make([]*storage.Channel, channels)
			for i := range cs {
				cs[i] = &storage.Channel{RealmID: 1, Name: fmt.Sprintf("channel %d", i), TopicsPolicy: chat.TopicsInherit}
			}
			if err := tx.CreateChannels(cs); err != nil {
				return err
			}
			subs := make([]storage.Subscription, 0, users*channels)
			for _, c := range cs {
				for _, id := range ids {
					subs = append(subs, storage.Subscription{UserID: id, ChannelID: c.ID, Color: "#76ce90"})
				}
			}
			return tx.CreateSubscriptions(subs)
		})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&afterSubs)

		var sample storage.UserRecord
		store.View(context.Background(), func(tx storage.Tx) error {
			sample, err = tx.User(ids[len(ids)/2])
			return err
		})
		rawUser := float64(unsafe.Sizeof(sample)) + float64(len(sample.Email)+len(sample.FullName)+len(sample.Timezone)+
			len(sample.AvatarSource)+len(sample.APIKey))
		rawSub := float64(unsafe.Sizeof(storage.Subscription{})) + float64(len("#76ce90"))
		perUser := float64(afterUsers.HeapAlloc-before.HeapAlloc) / users
		perSub := float64(afterSubs.HeapAlloc-afterUsers.HeapAlloc) / (users * channels)
		b.ReportMetric(perUser, "B/user")
		b.ReportMetric(perUser/rawUser, "user-ratio")
		b.ReportMetric(perSub, "B/subscription")
		b.ReportMetric(perSub/rawSub, "subscription-ratio")
		runtime.KeepAlive(store)
	}
}
