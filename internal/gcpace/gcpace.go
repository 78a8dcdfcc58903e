// Package gcpace paces Go's garbage collector for a server whose live heap
// is small: it lets the heap grow by a fixed headroom between collections
// where Go's default (GOGC=100) would collect once the heap doubled.
//
// chatd's live heap is a few MiB, so at GOGC=100 Go collected every 7–13
// MiB of allocation: 216 collections and 1.7 s of CPU in one run of
// bench/peer's quick workloads, whose long-polls to 200 listeners allocate
// that much in a few milliseconds of each message. With 32 MiB of headroom,
// 25 collections and 0.21 s, and the server's CPU per message to the
// listeners 7 % lower (BENCHMARKS.md, tenth session); the price is about
// the headroom in resident memory. A fixed GOGC would do as much for a
// small heap but multiply a large one; the headroom adds at most its own
// size, and once the live heap is larger than it, Go paces as by default.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Percent returns the GOGC percentage that makes the next collection start
// once the heap has grown by max(live, headroom) over the live heap: Go's
// default, 100, once live is at least headroom, and more below it. Go
// never collects a heap under 4 MiB × GOGC/100, so the percentage stays at
// most headroom / 4 MiB × 100: the heap of a process just started (a live
// heap of a few MiB, or none yet) is collected at the headroom too.
func Percent(live, headroom uint64) int {
	const defaultPercent, heapMinimum = 100, 4 << 20
	if live >= headroom {
		return defaultPercent
	}
	most := max(headroom*100/heapMinimum, defaultPercent)
	if live == 0 || headroom*100/live > most {
		return int(most)
	}
	return int(headroom * 100 / live)
}

// Pacer sets the collector's percentage after every collection, from the
// live heap that collection found. The zero Pacer is not usable; see Start.
type Pacer struct {
	headroom uint64
	set      func(percent int) // debug.SetGCPercent, or a test's
	live     func() uint64

	mu      sync.Mutex
	percent int
	stopped bool
}

// Start paces the collector of this process with the headroom (in bytes)
// until Stop, starting with the percentage for the live heap of the last
// collection. A process whose operator set GOGC keeps it: Start is not
// called then (chatd's --gc-headroom-mib documents it).
func Start(headroom uint64) *Pacer {
	return start(headroom, liveHeap, func(percent int) { debug.SetGCPercent(percent) })
}

func start(headroom uint64, live func() uint64, set func(int)) *Pacer {
	p := &Pacer{headroom: headroom, live: live, set: set}
	p.adjust()
	p.arm()
	return p
}

// Stop stops adjusting and gives the collector Go's default percentage
// back.
func (p *Pacer) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.stopped = true
		p.set(100)
	}
}

// adjust sets the percentage for the live heap now, when it changed by
// more than a tenth (each call of SetGCPercent recomputes the heap's goal;
// the first call always sets it), and reports whether the pacer still
// runs.
func (p *Pacer) adjust() (running bool) {
	want := Percent(p.live(), p.headroom)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return false
	}
	if diff := want - p.percent; diff*10 > p.percent || -diff*10 > p.percent {
		p.percent = want
		p.set(want)
	}
	return true
}

// cycle is an object whose finalizer runs after each collection: it is
// unreachable from its creation, and each run of its finalizer sets the
// finalizer again, which keeps it until the next collection. It holds a
// pointer so that it is never combined with other small objects (the
// finalizers of those may never run).
type cycle struct {
	p *Pacer
}

func (p *Pacer) arm() {
	runtime.SetFinalizer(&cycle{p: p}, collected)
}

func collected(c *cycle) {
	if c.p.adjust() {
		runtime.SetFinalizer(c, collected)
	}
}

// Current returns the collector's percentage as the runtime reports it
// (GOGC, or what a Pacer set).
func Current() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// liveHeap is the heap that the last collection marked live (zero before
// the first).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
