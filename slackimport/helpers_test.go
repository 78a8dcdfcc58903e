package slackimport_test

import (
	"errors"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // time zones validate as in chatd, whatever the machine has

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/backends"
	"github.com/teamchat/chat/storage"
)

// forEachStore runs fn once per storage backend (see backends.ForEach).
func forEachStore(t *testing.T, fn func(t *testing.T, newStore func(t *testing.T) storage.Store)) {
	t.Helper()
	backends.ForEach(t, fn)
}

// t0 is the fake clock's starting time, not in UTC so that the service
// must normalise it.
var t0 = time.Date(2025, 3, 30, 14, 34, 56, 789123456, time.FixedZone("CEST", 2*3600))

// fakeClock is a settable clock, safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newService is a service on a new store of newStore whose clock starts at
// t0 and whose passwords hash fast.
func newService(t *testing.T, newStore func(t *testing.T) storage.Store, cfg chat.Config) (*chat.Service, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: t0}
	cfg.Now = clock.Now
	cfg.PasswordCost = bcrypt.MinCost
	return chat.New(newStore(t), cfg), clock
}

func ptr[T any](v T) *T { return &v }

// wantNoErr fails the test at once when err is not nil.
func wantNoErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error %v", what, err)
	}
}

// wantCodeMsg fails the test unless err is a *chat.Error with the code and
// message.
func wantCodeMsg(t *testing.T, what string, err error, code chat.Code, msg string) {
	t.Helper()
	var e *chat.Error
	if !errors.As(err, &e) {
		t.Errorf("%s: got error %v (%T), want *chat.Error %s %q", what, err, err, code, msg)
		return
	}
	if e.Code != code || e.Msg != msg {
		t.Errorf("%s: got %s %q, want %s %q", what, e.Code, e.Msg, code, msg)
	}
}

// diff fails the test when got and want differ.
func diff(t *testing.T, what string, got, want any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}
