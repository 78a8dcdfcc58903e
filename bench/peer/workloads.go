package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// target is one server under test, driven through its own HTTP API. Users
// are numbered from 0 in the order Setup created them; user -1 is the
// administrator.
type target interface {
	Name() string
	// Setup creates the data shape.
	Setup(s shape) error
	// Post sends text to channel c as user u and returns the message's ID.
	Post(u int, c channel, text string) (string, error)
	// React adds the reaction "smile" of user u to the message.
	React(u int, message string) error
	// ListUsers reads the list of the users, as the administrator.
	ListUsers() error
	// Newest50 reads the newest 50 messages of the big channel, as the
	// administrator.
	Newest50() error
	// Listen connects users 0 … n-1 as clients that wait for events, and
	// returns once each is connected. Every message event a listener
	// receives is passed to got with the listener's number and the
	// message's text, from the listener's goroutine; stop disconnects them.
	Listen(n int, got func(listener int, text string)) (stop func(), err error)
	// CreateUser creates user i (i ≥ the users Setup created).
	CreateUser(i int) error
	// CPU returns the CPU time used so far by the server's process and by
	// its database server's (zero when it has none here).
	CPU() (server, database time.Duration)
	// PID is the server's process ID.
	PID() int
	// Stop ends the server.
	Stop()
}

// shape is the data every server gets: users; a big channel of big
// members, a small channel of smallMembers, and a listening channel of the
// administrator and listeners users, the administrator a member of each and
// the others the first users; and sessions for the first sessions users.
type shape struct {
	users, big, listeners, sessions int
}

// smallMembers is the size of the small channel.
const smallMembers = 10

// channelUsers returns how many of the first users each channel has
// besides the administrator.
func (s shape) channelUsers() map[channel]int {
	return map[channel]int{bigChannel: s.big - 1, smallChannel: smallMembers - 1, listenChannel: s.listeners}
}

// channel is one of the shape's channels.
type channel int

const (
	bigChannel channel = iota
	smallChannel
	listenChannel
)

func (c channel) name() string { return [...]string{"big", "small", "listen"}[c] }

// Metric names of a result.
const (
	bigRate      = "big msg/s"
	bigP99       = "big p99 ms"
	bigCPU       = "big cpu ms"
	bigDBCPU     = "big db cpu ms"
	smallRate    = "small msg/s"
	smallCPU     = "small cpu ms"
	smallDBCPU   = "small db cpu ms"
	reactRate    = "reactions/s"
	listenP50    = "listen p50 ms"
	listenP99    = "listen p99 ms"
	listenMissed = "listen missed"
	listenCPU    = "listen cpu ms"
	listenDBCPU  = "listen db cpu ms"
	listenOwnCPU = "listen client cpu ms"
	usersMillis  = "users ms"
	newestMillis = "newest50 ms"
	growSeconds  = "grow s"
)

// result is one round's measurements of one server, by metric name.
type result map[string]float64

func (r result) String() string {
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range r {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%s %.3g; ", k, r[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// runRound runs every workload once on t.
func runRound(c *config, t target, round int) (result, error) {
	res := result{}
	// profiled runs f under perf record when it is the workload to profile.
	profiled := func(workload string, f func() error) error {
		if c.perf == "" || round != 0 || c.perfWorkload != workload {
			return f()
		}
		stop, err := startPerf(c.perf, t)
		if err != nil {
			return err
		}
		defer stop()
		return f()
	}
	if _, ok := t.(*floorTarget); ok {
		if err := profiled("listen", func() error { return listenLoad(c, t, round, res) }); err != nil {
			return nil, fmt.Errorf("send→delivery: %w", err)
		}
		return res, nil
	}
	err := profiled("big", func() error {
		_, err := postLoad(c, t, round, bigChannel, res)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("posting to the big channel: %w", err)
	}
	ids, err := postLoad(c, t, round, smallChannel, res)
	if err != nil {
		return nil, fmt.Errorf("posting to the small channel: %w", err)
	}
	if err := reactLoad(c, t, ids, res); err != nil {
		return nil, fmt.Errorf("reactions: %w", err)
	}
	if err := profiled("listen", func() error { return listenLoad(c, t, round, res) }); err != nil {
		return nil, fmt.Errorf("send→delivery: %w", err)
	}
	if res[usersMillis], err = timeReads(c.reads, t.ListUsers); err != nil {
		return nil, fmt.Errorf("listing users: %w", err)
	}
	if res[newestMillis], err = timeReads(c.reads, t.Newest50); err != nil {
		return nil, fmt.Errorf("newest 50: %w", err)
	}
	return res, nil
}

// postLoad has c.senders members post c.posts messages to ch, each sender
// one message at a time, and records the rate, the 99th percentile latency
// (big channel) and the CPU time per post. It returns the messages' IDs,
// sender by sender: ids[s] are sender s's.
func postLoad(c *config, t target, round int, ch channel, res result) ([][]string, error) {
	per := c.posts / c.senders
	ids := make([][]string, c.senders)
	lat := make([][]time.Duration, c.senders)
	srv0, db0 := t.CPU()
	start := time.Now()
	err := parallel(c.senders, func(s int) error {
		for k := range per {
			t0 := time.Now()
			id, err := t.Post(s, ch, fmt.Sprintf("Round %d, message %d of sender %d to the %s channel: an ordinary message of a few words.", round+1, k, s, ch.name()))
			if err != nil {
				return err
			}
			lat[s] = append(lat[s], time.Since(t0))
			ids[s] = append(ids[s], id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A server may finish a post's work after answering it (chatd on
	// SQLite writes a big channel's recipient rows a moment later): the
	// rate and the CPU run until it is idle again.
	srv1, db1, end := untilIdle(t)
	elapsed := end.Sub(start)
	n := float64(per * c.senders)
	cpuPer := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	if ch == bigChannel {
		res[bigRate] = n / elapsed.Seconds()
		res[bigP99] = millis(percentile(slices.Concat(lat...), 99))
		res[bigCPU], res[bigDBCPU] = cpuPer(srv1-srv0), cpuPer(db1-db0)
	} else {
		res[smallRate] = n / elapsed.Seconds()
		res[smallCPU], res[smallDBCPU] = cpuPer(srv1-srv0), cpuPer(db1-db0)
	}
	return ids, nil
}

// untilIdle waits until the server and its database spent less than a
// fifth of a core over 100 ms, and returns their CPU times and the time
// at the start of that quiet interval (at most 10 s from now).
func untilIdle(t target) (server, database time.Duration, at time.Time) {
	server, database = t.CPU()
	at = time.Now()
	for deadline := at.Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		s, d := t.CPU()
		if s-server+d-database < 20*time.Millisecond {
			break
		}
		server, database, at = s, d, time.Now()
	}
	return server, database, at
}

// reactLoad has each sender react to as many of the round's small-channel
// messages, c.reactions in all, each sender one reaction at a time: every
// (user, message) pair is new.
func reactLoad(c *config, t target, ids [][]string, res result) error {
	per := c.reactions / c.senders
	var all []string
	for _, s := range ids {
		all = append(all, s...)
	}
	start := time.Now()
	err := parallel(c.senders, func(s int) error {
		for k := range per {
			if err := t.React(s, all[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	res[reactRate] = float64(per*c.senders) / time.Since(start).Seconds()
	return nil
}

// listenTag finds the sequence number in a listening workload's message.
var listenTag = regexp.MustCompile(`listen-(\d+)-(\d+)`)

// listenLoad connects c.listeners members of the listening channel and
// sends them c.listenMessages messages, one at a time, and records the
// percentiles of the deliveries' latencies. A first message, not measured,
// makes sure that every listener is receiving before the clock starts.
func listenLoad(c *config, t target, round int, res result) error {
	n := c.listeners
	var mu sync.Mutex
	got := make(map[int]int) // message → listeners that have it
	arrived := make(map[int][]time.Time)
	signal := make(chan struct{}, 1)
	stop, err := t.Listen(n, func(_ int, text string) {
		m := listenTag.FindStringSubmatch(text)
		if m == nil || m[1] != strconv.Itoa(round+1) {
			return
		}
		at := time.Now()
		seq, _ := strconv.Atoi(m[2])
		mu.Lock()
		got[seq]++
		arrived[seq] = append(arrived[seq], at)
		mu.Unlock()
		select {
		case signal <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer stop()
	// wait waits until every listener has message seq, or 10 s.
	wait := func(seq int) bool {
		deadline := time.After(10 * time.Second)
		for {
			mu.Lock()
			done := got[seq] >= n
			mu.Unlock()
			if done {
				return true
			}
			select {
			case <-signal:
			case <-deadline:
				return false
			}
		}
	}
	var lats []time.Duration
	missed := 0
	var srv0, db0, own0 time.Duration
	for seq := 0; seq <= c.listenMessages; seq++ {
		if seq == 1 {
			// After the first message, which is not measured.
			srv0, db0 = t.CPU()
			own0 = ownCPU()
		}
		t0 := time.Now()
		if _, err := t.Post(-1, listenChannel, fmt.Sprintf("Message listen-%d-%d to every listener.", round+1, seq)); err != nil {
			return err
		}
		ok := wait(seq)
		if seq == 0 {
			if !ok {
				return fmt.Errorf("the listeners did not all receive the first message")
			}
		} else {
			mu.Lock()
			for _, at := range arrived[seq] {
				lats = append(lats, at.Sub(t0))
			}
			missed += n - len(arrived[seq])
			mu.Unlock()
		}
		time.Sleep(c.listenGap)
	}
	// Where the deliveries' CPU goes: the server's process (and its
	// database's), and this program's, which is the listeners' clients
	// (and the sender's), until the server is idle again (as postLoad).
	srv1, db1, _ := untilIdle(t)
	msgs := float64(c.listenMessages)
	res[listenCPU] = millis(srv1-srv0) / msgs
	res[listenDBCPU] = millis(db1-db0) / msgs
	res[listenOwnCPU] = millis(ownCPU()-own0) / msgs
	res[listenP50] = millis(percentile(lats, 50))
	res[listenP99] = millis(percentile(lats, 99))
	res[listenMissed] = float64(missed)
	return nil
}

// timeReads runs read n times, one after the other, and returns the
// median time in milliseconds.
func timeReads(n int, read func() error) (float64, error) {
	var ds []time.Duration
	for range n {
		t0 := time.Now()
		if err := read(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t0))
	}
	return millis(percentile(ds, 50)), nil
}

// grow creates users from c.users to c.growTo on every target, in ten
// steps, the targets taking turns after each step, and returns each
// target's total time in seconds.
func grow(c *config, targets []target) ([]float64, error) {
	total := make([]time.Duration, len(targets))
	const steps = 10
	for step := range steps {
		from := c.users + (c.growTo-c.users)*step/steps
		to := c.users + (c.growTo-c.users)*(step+1)/steps
		for k := range targets {
			i := (k + step) % len(targets)
			start := time.Now()
			err := each(to-from, 8, func(k int) error { return targets[i].CreateUser(from + k) })
			if err != nil {
				return nil, fmt.Errorf("%s: growing to %d users: %w", targets[i].Name(), to, err)
			}
			total[i] += time.Since(start)
			logf("%s: %d users (%v so far)", targets[i].Name(), to, total[i].Round(time.Second))
		}
	}
	secs := make([]float64, len(total))
	for i, d := range total {
		secs[i] = d.Seconds()
	}
	return secs, nil
}

// parallel runs fn(0) … fn(n-1) at once and returns the first error.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// each runs fn(0) … fn(n-1) on workers goroutines and returns the first
// error; the rest of the calls are skipped after one.
func each(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	return parallel(workers, func(int) error {
		for !failed.Load() {
			i := int(next.Add(1)) - 1
			if i >= n {
				return nil
			}
			if err := fn(i); err != nil {
				failed.Store(true)
				return err
			}
		}
		return nil
	})
}

// percentile returns the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(k, len(s)-1))]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
