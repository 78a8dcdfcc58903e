package gcpace

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{0, 64 * mib, 1600},        // no collection yet: the heap's minimum is the headroom
		{2 * mib, 64 * mib, 1600},  // 3 200 would put the minimum at 128 MiB
		{4 * mib, 64 * mib, 1600},  // grows by 64 MiB
		{16 * mib, 64 * mib, 400},  // grows by 64 MiB
		{48 * mib, 64 * mib, 133},  // by 63.8 MiB
		{64 * mib, 64 * mib, 100},  // Go's default from there
		{1 << 30, 64 * mib, 100},   //
		{1 * mib, 2 * mib, 100},    // a headroom under Go's own minimum changes nothing
		{0, 1 << 30, 25_600},       //
		{512 * mib, 1 << 30, 200},  //
		{100 * mib, 1 << 30, 1024}, //
	} {
		if got := Percent(c.live, c.headroom); got != c.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", c.live/mib, c.headroom/mib, got, c.want)
		}
	}
}

// fakeHeap stands in for the live heap and the collector's setting.
type fakeHeap struct {
	mu    sync.Mutex
	live  uint64
	reads int // one per adjustment
	sets  []int
}

func (h *fakeHeap) setLive(v uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.live = v
}

func (h *fakeHeap) get() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads++
	return h.live
}

func (h *fakeHeap) readsSoFar() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reads
}

func (h *fakeHeap) set(p int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sets = append(h.sets, p)
}

func (h *fakeHeap) setsSoFar() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sets)
}

// collectUntil runs collections until cond holds (a finalizer runs on its
// own goroutine after the collection), or fails after 5 s.
func collectUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s of collections: not %s", what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestPacerFollowsCollections(t *testing.T) {
	h := &fakeHeap{live: 16 * mib}
	p := start(64*mib, h.get, h.set)
	if got, want := h.setsSoFar(), []int{400}; !slices.Equal(got, want) {
		t.Fatalf("at start: set %v, want %v", got, want)
	}
	// A change of less than a tenth is left as it is.
	h.setLive(17 * mib) // 376
	before := h.readsSoFar()
	collectUntil(t, "adjusted after the change", func() bool { return h.readsSoFar() > before })
	h.setLive(32 * mib) // 200
	collectUntil(t, "set to 200", func() bool { return slices.Contains(h.setsSoFar(), 200) })
	if got, want := h.setsSoFar(), []int{400, 200}; !slices.Equal(got, want) {
		t.Fatalf("after the heap grew: set %v, want %v", got, want)
	}
	h.setLive(1 << 30)
	collectUntil(t, "set to 100", func() bool { return slices.Contains(h.setsSoFar(), 100) })
	p.Stop()
	p.Stop()
	want := []int{400, 200, 100, 100} // Stop gives Go's default back, once
	h.setLive(8 * mib)
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := h.setsSoFar(); !slices.Equal(got, want) {
		t.Fatalf("after Stop: set %v, want %v", got, want)
	}
}

func TestStartSetsTheRuntime(t *testing.T) {
	p := Start(256 * mib)
	if got := Current(); got <= 100 {
		t.Errorf("GOGC after Start with a live heap of %d MiB: %d, want more than 100", liveHeap()/mib, got)
	}
	p.Stop()
	if got := Current(); got != 100 {
		t.Errorf("GOGC after Stop: %d, want 100", got)
	}
}
