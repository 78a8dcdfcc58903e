package sqlite

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRealmCacheReadsOnce: transactions that miss the same version at
// once wait for one read and share its list; another version reads again;
// a failed read leaves each waiter to read for itself.
func TestRealmCacheReadsOnce(t *testing.T) {
	c := &realmCache[int]{clone: slices.Clone[[]int]}
	var reads atomic.Int32
	release := make(chan struct{})
	read := func() ([]int, error) {
		reads.Add(1)
		<-release
		return []int{1, 2, 3}, nil
	}
	var wg sync.WaitGroup
	got := make([][]int, 8)
	for i := range got {
		wg.Go(func() {
			list, err := c.load(7, 1, read)
			if err != nil {
				t.Error(err)
			}
			got[i] = list
		})
	}
	// Let every loader reach the cache before the read ends.
	for deadline := time.Now().Add(5 * time.Second); reads.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads of one version by 8 transactions at once, want 1", n)
	}
	for i, list := range got {
		if !slices.Equal(list, []int{1, 2, 3}) {
			t.Errorf("loader %d got %v", i, list)
		}
	}
	if list, ok := c.get(7, 1); !ok || !slices.Equal(list, []int{1, 2, 3}) {
		t.Errorf("get after the load = %v, %v", list, ok)
	}
	if _, ok := c.get(7, 2); ok {
		t.Errorf("get of another version hit the cache")
	}

	// A failed read: the waiters read for themselves, and nothing is cached.
	boom := errors.New("boom")
	started, failNow := make(chan struct{}), make(chan struct{})
	var failing atomic.Int32
	go func() {
		c.load(8, 1, func() ([]int, error) {
			failing.Add(1)
			close(started)
			<-failNow
			return nil, boom
		})
	}()
	<-started
	done := make(chan []int)
	go func() {
		list, _ := c.load(8, 1, func() ([]int, error) { return []int{9}, nil })
		done <- list
	}()
	time.Sleep(20 * time.Millisecond)
	close(failNow)
	if list := <-done; !slices.Equal(list, []int{9}) {
		t.Errorf("a waiter after a failed read got %v, want its own read", list)
	}
	if _, ok := c.get(8, 1); ok {
		t.Errorf("a failed read filled the cache")
	}
}

// TestRealmCachePatchBounded: changes committed with no read between them
// pile up only to maxPending; past it the list is dropped, to be read
// again, and the cache holds nothing of them.
func TestRealmCachePatchBounded(t *testing.T) {
	c := &realmCache[int]{clone: slices.Clone[[]int], merge: func(list, changes []int) []int {
		return append(slices.Clone(list), changes...)
	}}
	if _, err := c.load(1, 1, func() ([]int, error) { return []int{1}, nil }); err != nil {
		t.Fatal(err)
	}
	v := int64(1)
	for i := range maxPending(1) {
		c.patch(1, v, v+1, []int{100 + i})
		v++
	}
	if list, ok := c.get(1, v); !ok || len(list) != 1+maxPending(1) {
		t.Fatalf("after %d patches: %d elements, %v; want the list merged", maxPending(1), len(list), ok)
	}
	for i := range maxPending(1) + 1 {
		c.patch(1, v, v+1, []int{200 + i})
		v++
	}
	if c.holds(1) {
		t.Errorf("the cache holds the list after %d changes with no read, past its bound %d", maxPending(1)+1, maxPending(1))
	}
}
