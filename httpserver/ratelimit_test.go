package httpserver_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
)

func newLimitedEnv(t *testing.T, rl httpserver.RateLimits) *env {
	t.Helper()
	e := newEnv(t)
	e.h = validated(t, httpserver.New(e.svc, httpserver.Options{RateLimits: rl}))
	return e
}

func checkLimitHeaders(t *testing.T, res response, limit, remaining int) {
	t.Helper()
	if got := res.header.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
		t.Errorf("X-RateLimit-Limit = %q, want %d", got, limit)
	}
	if got := res.header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
		t.Errorf("X-RateLimit-Remaining = %q, want %d", got, remaining)
	}
	reset, err := strconv.ParseInt(res.header.Get("X-RateLimit-Reset"), 10, 64)
	if now := time.Now().Unix(); err != nil || reset < now || reset > now+61 {
		t.Errorf("X-RateLimit-Reset = %q, want a time within the next minute", res.header.Get("X-RateLimit-Reset"))
	}
}

// expectRateLimited checks a 429 answer whose retry-after is at most
// maxRetry seconds.
func expectRateLimited(t *testing.T, res response, maxRetry float64) {
	t.Helper()
	if res.status != http.StatusTooManyRequests || res.body["code"] != string(chat.CodeRateLimitHit) ||
		res.body["msg"] != "API usage exceeded rate limit" || res.body["result"] != "error" {
		t.Fatalf("want a 429 RATE_LIMIT_HIT, got %d %s", res.status, res.raw)
	}
	retry, ok := res.body["retry-after"].(float64)
	if !ok || retry <= 0 || retry > maxRetry {
		t.Errorf("retry-after = %v", res.body["retry-after"])
	}
	if h, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || h < 1 || float64(h) > maxRetry+1 {
		t.Errorf("Retry-After header = %q", res.header.Get("Retry-After"))
	}
	if len(res.body) != 4 {
		t.Errorf("unexpected fields: %s", res.raw)
	}
}

func TestRateLimitPerUser(t *testing.T) {
	e := newLimitedEnv(t, httpserver.RateLimits{PerUser: 3})
	for i := range 3 {
		res := e.call(http.MethodGet, "/users/me", &e.member, nil)
		if res.status != http.StatusOK {
			t.Fatalf("request %d: %s", i, res.raw)
		}
		checkLimitHeaders(t, res, 3, 2-i)
	}
	res := e.call(http.MethodGet, "/users/me", &e.member, nil)
	expectRateLimited(t, res, 60)
	checkLimitHeaders(t, res, 3, 0)
	// Another user has a budget of their own.
	if res := e.call(http.MethodGet, "/users/me", &e.guest, nil); res.status != http.StatusOK {
		t.Errorf("another user: %s", res.raw)
	}
	// No limit is set for unauthenticated requests here.
	if res := e.call(http.MethodGet, "/server_settings", nil, nil); res.header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("unlimited route carries rate-limit headers")
	}
}

func TestRateLimitPerIP(t *testing.T) {
	e := newLimitedEnv(t, httpserver.RateLimits{PerIP: 2})
	for range 2 {
		if res := e.call(http.MethodGet, "/server_settings", nil, nil); res.status != http.StatusOK {
			t.Fatalf("%s", res.raw)
		}
	}
	expectRateLimited(t, e.call(http.MethodGet, "/server_settings", nil, nil), 60)
	// Failed authentications spend the same budget.
	bad := account{e.member.id, e.member.email, "0123456789abcdef0123456789abcdef"}
	expectRateLimited(t, e.call(http.MethodGet, "/users/me", &bad, nil), 60)
	// Authenticated users are not held to the address's budget.
	if res := e.call(http.MethodGet, "/users/me", &e.member, nil); res.status != http.StatusOK {
		t.Errorf("authenticated request: %s", res.raw)
	}
}

func TestRateLimitLoginAttempts(t *testing.T) {
	e := newLimitedEnv(t, httpserver.RateLimits{LoginAttempts: 2})
	login := func(username, password string) response {
		return e.call(http.MethodPost, "/fetch_api_key", nil, form("username", username, "password", password))
	}
	if res := login(e.member.email, "member-password"); res.status != http.StatusOK {
		t.Fatalf("login: %s", res.raw)
	}
	// A success cleared the count: two more failures are allowed.
	for range 2 {
		e.expectError(login("MEMBER@example.com", "wrong"), http.StatusUnauthorized, chat.CodeAuthenticationFailed,
			"Your username or password is incorrect")
	}
	expectRateLimited(t, login(e.member.email, "member-password"), 900)
	// Another username is not affected.
	if res := login(e.owner.email, "owner-password"); res.status != http.StatusOK {
		t.Errorf("other user's login: %s", res.raw)
	}
}

// TestRateLimitSparesTusChunks: the PATCHes and HEADs of a resumable
// upload do not spend the user's budget, so a file in many chunks
// finishes; creating uploads does.
func TestRateLimitSparesTusChunks(t *testing.T) {
	e := newLimitedEnv(t, httpserver.RateLimits{PerUser: 2})
	serve := func(r *http.Request) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		return w
	}
	w := serve(rawRequest(http.MethodPost, httpserver.Prefix+"/tus/", &e.member, nil, "Tus-Resumable", "1.0.0",
		"Upload-Length", "10", "Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("chunks.txt"))))
	if w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	loc := w.Header().Get("Location")
	for i := range 10 {
		w := serve(rawRequest(http.MethodPatch, loc, &e.member, strings.NewReader("x"), "Tus-Resumable", "1.0.0",
			"Upload-Offset", strconv.Itoa(i), "Content-Type", "application/offset+octet-stream"))
		if w.Code != http.StatusNoContent && w.Code != http.StatusOK {
			t.Fatalf("chunk %d: %d %s", i, w.Code, w.Body)
		}
		if h := serve(rawRequest(http.MethodHead, loc, &e.member, nil, "Tus-Resumable", "1.0.0")); h.Code != http.StatusOK {
			t.Fatalf("HEAD after chunk %d: %d", i, h.Code)
		}
	}
	// One creation was spent: one more is left, then 429.
	if w := serve(rawRequest(http.MethodPost, httpserver.Prefix+"/tus/", &e.member, nil, "Tus-Resumable", "1.0.0", "Upload-Length", "1")); w.Code != http.StatusCreated {
		t.Fatalf("second create: %d %s", w.Code, w.Body)
	}
	if w := serve(rawRequest(http.MethodPost, httpserver.Prefix+"/tus/", &e.member, nil, "Tus-Resumable", "1.0.0", "Upload-Length", "1")); w.Code != http.StatusTooManyRequests {
		t.Errorf("third create: %d, want 429", w.Code)
	}
}

// gcraBudgets is a SharedBudgets in memory, as the database keeps them.
type gcraBudgets struct {
	mu  sync.Mutex
	tat map[string]time.Time
}

func (g *gcraBudgets) Take(_ context.Context, key string, now time.Time, interval time.Duration, burst int) (bool, time.Time, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	next := g.tat[key]
	if next.Before(now) {
		next = now
	}
	next = next.Add(interval)
	if next.Sub(now) > time.Duration(burst)*interval {
		return false, g.tat[key], nil
	}
	g.tat[key] = next
	return true, next, nil
}

func (g *gcraBudgets) Clear(_ context.Context, key string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.tat, key)
	return nil
}

// TestRateLimitShared: two servers (two processes) over shared budgets
// allow a user's budget once between them, not once each.
func TestRateLimitShared(t *testing.T) {
	e := newEnv(t)
	shared := &gcraBudgets{tat: map[string]time.Time{}}
	one := httpserver.New(e.svc, httpserver.Options{RateLimits: httpserver.RateLimits{PerUser: 3}, SharedBudgets: shared})
	two := httpserver.New(e.svc, httpserver.Options{RateLimits: httpserver.RateLimits{PerUser: 3}, SharedBudgets: shared})
	for i, h := range []http.Handler{one, two, one, two} {
		e.h = h
		res := e.call(http.MethodGet, "/users/me", &e.member, nil)
		if i < 3 && res.status != http.StatusOK {
			t.Fatalf("request %d: %s", i, res.raw)
		}
		if i == 3 {
			expectRateLimited(t, res, 20)
			checkLimitHeaders(t, res, 3, 0)
		}
	}
}
