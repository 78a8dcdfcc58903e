package httpserver

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/teamchat/chat"
)

// RateLimits sets the request budgets per user and per address. A zero field
// turns that limit off; the zero value turns them all off.
type RateLimits struct {
	// PerUser is how many requests an authenticated user may make per
	// minute (the reference server's api_by_user: 200).
	PerUser int
	// PerIP is how many unauthenticated requests (and requests that fail
	// authentication) one IP address may make per minute (api_by_ip: 100).
	PerIP int
	// LoginAttempts is how many password logins may be tried for one
	// username per 30 minutes (5); a successful login clears the count.
	LoginAttempts int
}

// SharedBudgets keeps request budgets where every process of one
// deployment shares them (postgres.RateBudgets does, in the database), so
// that N processes allow a budget once, not N times. Take charges one
// request to key at now for a budget of burst requests refilled one per
// interval, and returns whether it is allowed and the key's theoretical
// arrival time (GCRA) after it, or before it when refused.
type SharedBudgets interface {
	Take(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (bool, time.Time, error)
	Clear(ctx context.Context, key string) error
}

// sharedBudgetTimeout bounds one charge of a shared budget; a store that
// does not answer in time lets the request through on the process's own
// budget.
const sharedBudgetTimeout = time.Second

// DefaultRateLimits are the reference server's limits.
var DefaultRateLimits = RateLimits{PerUser: 200, PerIP: 100, LoginAttempts: 5}

// errRateLimited is the RATE_LIMIT_HIT error; retry-after is added per
// answer.
func errRateLimited(retryAfter time.Duration) *chat.Error {
	secs := math.Ceil(retryAfter.Seconds()*1000) / 1000
	return &chat.Error{
		Code: chat.CodeRateLimitHit,
		Msg:  "API usage exceeded rate limit",
		Data: map[string]any{"retry-after": secs},
	}
}

// limiter is a set of token buckets, one per key, with capacity limit and a
// refill that makes limit tokens per window: a client may burst its whole
// budget, then goes at the average rate.
type limiter struct {
	limit  int
	window time.Duration
	now    func() time.Time
	// shared, when set, keeps the budgets under prefix+key; the buckets
	// below serve only when it fails.
	shared SharedBudgets
	prefix string

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	swept   time.Time
}

func newLimiter(limit int, window time.Duration) *limiter {
	if limit <= 0 {
		return nil
	}
	return &limiter{limit: limit, window: window, now: time.Now, buckets: map[string]*rate.Limiter{}}
}

// verdict is the outcome of charging one request.
type verdict struct {
	ok         bool
	limit      int
	remaining  int
	reset      time.Time
	retryAfter time.Duration
}

// take charges one request to key.
func (l *limiter) take(key string) verdict {
	if l.shared != nil {
		if v, err := l.takeShared(key); err == nil {
			return v
		}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(rate.Every(l.window/time.Duration(l.limit)), l.limit)
		l.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
	v := verdict{limit: l.limit}
	if delay := r.DelayFrom(now); delay > 0 {
		r.CancelAt(now)
		v.retryAfter = delay
	} else {
		v.ok = true
	}
	tokens := b.TokensAt(now)
	v.remaining = max(0, int(tokens))
	v.reset = now.Add(time.Duration((float64(l.limit) - tokens) / float64(b.Limit()) * float64(time.Second)))
	return v
}

// takeShared charges key in the shared budgets.
func (l *limiter) takeShared(key string) (verdict, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedBudgetTimeout)
	defer cancel()
	now := l.now()
	step := l.window / time.Duration(l.limit)
	ok, tat, err := l.shared.Take(ctx, l.prefix+key, now, step, l.limit)
	if err != nil {
		return verdict{}, err
	}
	used := tat.Sub(now) // the budget in use, as time to refill
	v := verdict{ok: ok, limit: l.limit, reset: tat}
	v.remaining = max(0, int((l.window-used)/step))
	if !ok {
		v.retryAfter = max(used+step-l.window, time.Millisecond)
	}
	return v, nil
}

// clear forgets key, as after a successful login.
func (l *limiter) clear(key string) {
	if l.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), sharedBudgetTimeout)
		defer cancel()
		_ = l.shared.Clear(ctx, l.prefix+key)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.buckets, key)
}

// sweepLocked drops full buckets once a window, so that memory follows the
// number of recent clients, not of all clients ever seen.
func (l *limiter) sweepLocked(now time.Time) {
	if now.Sub(l.swept) < l.window {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.limit) {
			delete(l.buckets, k)
		}
	}
}

// setHeaders adds the X-RateLimit headers of v.
func (v verdict) setHeaders(h http.Header) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(v.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(v.reset.Unix(), 10))
	if !v.ok {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(v.retryAfter.Seconds()))))
	}
}

// rateLimiters holds the limiters of a Server.
type rateLimiters struct {
	user, ip, login *limiter
}

func newRateLimiters(rl RateLimits, shared SharedBudgets) rateLimiters {
	out := rateLimiters{
		user:  newLimiter(rl.PerUser, time.Minute),
		ip:    newLimiter(rl.PerIP, time.Minute),
		login: newLimiter(rl.LoginAttempts, 30*time.Minute),
	}
	for prefix, l := range map[string]*limiter{"user:": out.user, "ip:": out.ip, "login:": out.login} {
		if l != nil && shared != nil {
			l.shared, l.prefix = shared, prefix
		}
	}
	return out
}

// charge takes one request from l for key, sets the headers, and returns
// the error to answer when the budget is spent. A nil limiter allows all.
func charge(l *limiter, key string, w http.ResponseWriter) error {
	if l == nil {
		return nil
	}
	v := l.take(key)
	v.setHeaders(w.Header())
	if !v.ok {
		return errRateLimited(v.retryAfter)
	}
	return nil
}

// clientIP is the address the request came from.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
