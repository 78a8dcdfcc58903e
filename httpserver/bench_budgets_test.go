package httpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage/postgres"
)

// BenchmarkSharedBudgets measures what the request budgets shared through
// PostgreSQL (postgres.RateBudgets, as chatd uses them on PostgreSQL) cost
// a request: GET /api/v1/users/me on PostgreSQL, through a server whose
// budgets are the process's own ("local") and through one whose budgets
// are shared ("shared"), alternating in blocks of 200 requests. It
// reports the median µs per request of each, their difference, and the
// ratio shared/local. It needs CHAT_TEST_POSTGRES_DSN
// (scripts/with-postgres.sh).
func BenchmarkSharedBudgets(b *testing.B) {
	store, err := postgres.Open(context.Background(), pgtest.Schema(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	e := newEnvWithStore(b, store)
	limits := httpserver.RateLimits{PerUser: 1 << 30, PerIP: 1 << 30, LoginAttempts: 5}
	servers := map[string]http.Handler{
		"local":  httpserver.New(e.svc, httpserver.Options{RateLimits: limits}),
		"shared": httpserver.New(e.svc, httpserver.Options{RateLimits: limits, SharedBudgets: store.RateBudgets()}),
	}
	const block = 200
	perRequest := map[string][]float64{}
	run := func(name string) {
		h := servers[name]
		start := time.Now()
		for range block {
			r := httptest.NewRequest(http.MethodGet, "http://"+host+httpserver.Prefix+"/users/me", nil)
			r.SetBasicAuth(e.member.email, e.member.key)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", name, w.Code, w.Body)
			}
		}
		perRequest[name] = append(perRequest[name], float64(time.Since(start).Microseconds())/block)
	}
	run("local") // warm both
	run("shared")
	clear(perRequest)
	rounds := max(b.N, 10)
	b.ResetTimer()
	for range rounds {
		run("local")
		run("shared")
	}
	b.StopTimer()
	median := func(xs []float64) float64 {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	local, shared := median(perRequest["local"]), median(perRequest["shared"])
	b.ReportMetric(local, "local-µs/req")
	b.ReportMetric(shared, "shared-µs/req")
	b.ReportMetric(shared-local, "cost-µs/req")
	b.ReportMetric(shared/local, "shared/local")
}
