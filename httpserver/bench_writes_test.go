package httpserver_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/sqlite"
)

// BenchmarkHTTPWrites measures small writes per second over HTTP on
// loopback, with the SQLite store and writeWorkers concurrent clients, each
// one user: /reactions adds and then removes the same emoji reaction to one
// message that every worker received, alternately; /status sets the
// worker's status text. Each iteration is one round that measures, for
// writeWindow each, the chat server, a bare net/http handler that parses
// the form and answers the success envelope, and a handler that does one
// raw single-row SQLite upsert in its own transaction (same driver and
// pragmas as the store). It reports the medians over the rounds of the
// chat server's rate divided by each baseline's. Run at least 20 rounds:
//
//	go test -run '^$' -bench HTTPWrites -benchtime 20x ./httpserver
func BenchmarkHTTPWrites(b *testing.B) {
	b.Run("reactions", func(b *testing.B) {
		benchmarkWrites(b, func(w *writeBench) func(worker, n int) *http.Request {
			owner := account{w.org.UserID, w.org.Email, w.org.APIKey}
			ids := make([]string, len(w.users))
			for i, u := range w.users {
				ids[i] = itoa(u.id)
			}
			res := benchPost(b, w.client, http.MethodPost, w.url+"/api/v1/messages", &owner,
				url.Values{"type": {"direct"}, "to": {"[" + strings.Join(ids, ",") + "]"}, "content": {"React to me"}})
			var msgID int64
			if _, err := fmt.Sscanf(res[strings.Index(res, `"id":`):], `"id":%d`, &msgID); err != nil {
				b.Fatalf("no message ID in %s", res)
			}
			reactions := fmt.Sprintf("%s/api/v1/messages/%d/reactions", w.url, msgID)
			// Even requests add the reaction, odd ones remove it, so
			// every request succeeds and writes.
			return func(worker, n int) *http.Request {
				method := http.MethodPost
				if n%2 == 1 {
					method = http.MethodDelete
				}
				return w.request(method, reactions, worker, "emoji_name=octopus")
			}
		})
	})
	b.Run("status", func(b *testing.B) {
		benchmarkWrites(b, func(w *writeBench) func(worker, n int) *http.Request {
			status := w.url + "/api/v1/users/me/status"
			return func(worker, n int) *http.Request {
				return w.request(http.MethodPost, status, worker, "status_text=in+a+meeting+"+strconv.Itoa(n%2))
			}
		})
	})
}

// writeWorkers is the number of concurrent clients.
const writeWorkers = 8

// writeWindow is how long each of the three servers is measured in one
// round.
const writeWindow = 300 * time.Millisecond

// writeBench is the chat server that BenchmarkHTTPWrites measures.
type writeBench struct {
	svc    *chat.Service
	org    chat.NewOrgResult
	users  []account
	url    string
	client *http.Client
}

// request makes a form request from worker's user.
func (w *writeBench) request(method, target string, worker int, form string) *http.Request {
	r, _ := http.NewRequest(method, target, strings.NewReader(form))
	r.Host = host
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth(w.users[worker].email, w.users[worker].key)
	return r
}

// benchmarkWrites sets up the chat server and the baselines, lets setup
// prepare the workload and return its requests, and measures rounds.
func benchmarkWrites(b *testing.B, setup func(w *writeBench) func(worker, n int) *http.Request) {
	ctx := context.Background()
	dir := b.TempDir()
	store, err := sqlite.Open(filepath.Join(dir, "chat.db"))
	if err != nil {
		b.Fatal(err)
	}
	svc := chat.New(store, chat.Config{})
	b.Cleanup(func() { svc.Close() })
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bench", Host: host, OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		b.Fatal(err)
	}
	w := &writeBench{svc: svc, org: org, users: make([]account, writeWorkers)}
	for i := range w.users {
		u, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{
			Email: fmt.Sprintf("user-%d@example.com", i), FullName: fmt.Sprintf("User %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		w.users[i] = account{u.UserID, u.Email, u.APIKey}
	}
	chatSrv := httptest.NewServer(httpserver.New(svc, httpserver.Options{}))
	b.Cleanup(chatSrv.Close)
	w.url = chatSrv.URL
	w.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: writeWorkers}}
	b.Cleanup(w.client.CloseIdleConnections)
	chatReq := newWriteTarget(setup(w))

	ok := []byte("{\"result\":\"success\",\"msg\":\"\"}\n")
	bareSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		w.Write(ok)
	}))
	b.Cleanup(bareSrv.Close)
	upsertSrv := httptest.NewServer(upsertHandler(b, filepath.Join(dir, "baseline.db"), ok))
	b.Cleanup(upsertSrv.Close)

	// measure runs the workers against one target for writeWindow and
	// returns the requests per second.
	measure := func(t *writeTarget) float64 {
		var count atomic.Int64
		var failed atomic.Value
		deadline := time.Now().Add(writeWindow)
		var wg sync.WaitGroup
		start := time.Now()
		for worker := range writeWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ; time.Now().Before(deadline); t.next[worker]++ {
					resp, err := w.client.Do(t.req(worker, t.next[worker]))
					if err != nil {
						failed.Store(err.Error())
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						failed.Store(fmt.Sprintf("status %d: %s", resp.StatusCode, body))
						return
					}
					count.Add(1)
				}
			}()
		}
		wg.Wait()
		if msg := failed.Load(); msg != nil {
			b.Fatalf("request failed: %s", msg)
		}
		return float64(count.Load()) / time.Since(start).Seconds()
	}
	formReq := func(target string) *writeTarget {
		return newWriteTarget(func(worker, n int) *http.Request {
			r, _ := http.NewRequest(http.MethodPost, target, strings.NewReader("emoji_name=octopus"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		})
	}
	bareReq, upsertReq := formReq(bareSrv.URL), formReq(upsertSrv.URL)
	measure(chatReq) // warm up connections, caches and the database files
	var bareRatios, upsertRatios, chatRates []float64
	var bareRates, upsertRates []float64
	b.ResetTimer()
	for range b.N {
		c := measure(chatReq)
		bare := measure(bareReq)
		up := measure(upsertReq)
		chatRates, bareRates, upsertRates = append(chatRates, c), append(bareRates, bare), append(upsertRates, up)
		bareRatios, upsertRatios = append(bareRatios, c/bare), append(upsertRatios, c/up)
	}
	b.StopTimer()
	b.ReportMetric(median(bareRatios), "ratio-vs-bare")
	b.ReportMetric(median(upsertRatios), "ratio-vs-upsert")
	b.ReportMetric(median(chatRates), "writes/s")
	b.ReportMetric(median(bareRates), "bare/s")
	b.ReportMetric(median(upsertRates), "upsert/s")
}

// writeTarget makes the requests of one measured server: req returns
// worker w's n-th request, n counting on from the worker's previous rounds
// (so that adds and removes keep alternating across rounds).
type writeTarget struct {
	req  func(w, n int) *http.Request
	next []int
}

func newWriteTarget(req func(w, n int) *http.Request) *writeTarget {
	return &writeTarget{req: req, next: make([]int, writeWorkers)}
}

// upsertHandler answers ok after one single-row upsert in its own
// transaction, on a SQLite database opened like the store's.
func upsertHandler(b *testing.B, path string, ok []byte) http.Handler {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE reactions (user_id INTEGER PRIMARY KEY, emoji_name TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	stmt, err := db.Prepare(`INSERT INTO reactions (user_id, emoji_name) VALUES (?, ?)
		ON CONFLICT (user_id) DO UPDATE SET emoji_name = excluded.emoji_name`)
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		tx, err := db.Begin()
		if err == nil {
			_, err = tx.Stmt(stmt).Exec(n.Add(1)%1000, r.Form.Get("emoji_name"))
			if err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(ok)
	})
}

func benchPost(b *testing.B, client *http.Client, method, target string, as *account, form url.Values) string {
	b.Helper()
	r, _ := http.NewRequest(method, target, strings.NewReader(form.Encode()))
	r.Host = host
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth(as.email, as.key)
	resp, err := client.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: status %d: %s", method, target, resp.StatusCode, body)
	}
	return string(body)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
