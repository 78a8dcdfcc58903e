package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/teamchat/chat/internal/pgtest"
)

// TestRateBudgets: a budget of three allows three requests at once, then
// refuses until one interval has passed, for every process of the
// database (two stores here); Clear and Sweep restore it.
func TestRateBudgets(t *testing.T) {
	pgtest.Required(t)
	dsn := pgtest.Schema(t)
	a, b := open(t, dsn).RateBudgets(), open(t, dsn).RateBudgets()
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	step := 20 * time.Second
	for i, budgets := range []interface {
		Take(context.Context, string, time.Time, time.Duration, int) (bool, time.Time, error)
	}{a, b, a} {
		ok, tat, err := budgets.Take(ctx, "user:7", now, step, 3)
		if err != nil || !ok {
			t.Fatalf("request %d: %v, %v", i, ok, err)
		}
		if want := now.Add(time.Duration(i+1) * step); !tat.Equal(want) {
			t.Errorf("request %d: tat %v, want %v", i, tat, want)
		}
	}
	ok, tat, err := b.Take(ctx, "user:7", now, step, 3)
	if err != nil || ok || !tat.Equal(now.Add(3*step)) {
		t.Errorf("fourth request: %v, %v, %v; want refused at tat %v", ok, tat, err, now.Add(3*step))
	}
	if ok, _, _ := a.Take(ctx, "user:8", now, step, 3); !ok {
		t.Error("another key was refused")
	}
	if ok, _, _ := a.Take(ctx, "user:7", now.Add(step), step, 3); !ok {
		t.Error("refused after one interval")
	}
	if err := a.Clear(ctx, "user:7"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if ok, _, _ := b.Take(ctx, "user:7", now.Add(step), step, 3); !ok {
			t.Errorf("request %d after Clear refused", i)
		}
	}
	if err := a.Sweep(ctx, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRateBudgetTake measures one charge of a shared budget, the cost
// a request pays on a PostgreSQL deployment for rate limits that hold
// across processes.
func BenchmarkRateBudgetTake(b *testing.B) {
	pgtest.Required(b)
	budgets := open(b, pgtest.Schema(b)).RateBudgets()
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := budgets.Take(ctx, "user:1", time.Now(), time.Millisecond, 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLocks: a named lock held by one store (process) makes another wait
// until it is released; other names do not wait; a cancelled wait fails.
func TestLocks(t *testing.T) {
	pgtest.Required(t)
	dsn := pgtest.Schema(t)
	a, b := open(t, dsn).Locks(), open(t, dsn).Locks()
	ctx := context.Background()
	unlock, err := a.Lock(ctx, "tus/1")
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.Lock(ctx, "tus/2")
	if err != nil {
		t.Fatalf("another name: %v", err)
	}
	other()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(short, "tus/1"); err == nil {
		t.Fatal("a held lock was taken by another process")
	}
	got := make(chan func(), 1)
	go func() {
		u, err := b.Lock(ctx, "tus/1")
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- u
	}()
	select {
	case <-got:
		t.Fatal("the lock was taken while held")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case u := <-got:
		if u != nil {
			u()
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the released lock was not taken")
	}
}
