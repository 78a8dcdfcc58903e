// Package testkit holds what the tests of several packages share: a
// settable clock and the assertions on errors and values.
package testkit

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
)

// T0 is where the tests' clocks start. It has sub-second digits so that
// backends must keep full precision, and is not in UTC so that the service
// must normalise it.
var T0 = time.Date(2025, 3, 30, 14, 34, 56, 789123456, time.FixedZone("CEST", 2*3600))

// Clock is a settable clock, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// Err fails the test unless err is target (errors.Is).
func Err(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

// NoErr fails the test at once when err is not nil.
func NoErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error %v", what, err)
	}
}

// CodeMsg fails the test unless err is a *chat.Error with the code and
// message.
func CodeMsg(t testing.TB, what string, err error, code chat.Code, msg string) {
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

// Diff fails the test when got and want differ.
func Diff(t testing.TB, what string, got, want any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}
