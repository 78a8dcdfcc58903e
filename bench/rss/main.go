// Command rss measures the resident memory of chatd on SQLite around a
// fixed load: it starts the given chatd binary on a fresh data directory,
// records its RSS (VmRSS of /proc/PID/status) once idle, runs the load over
// HTTP, and records the RSS right after it and after a pause with no
// requests. bench/rss.sh builds chatd and runs it.
//
// The load, by default: 1 000 users created with POST /users (passwords,
// hence bcrypt, included), 200 channels of 50 members each (and the owner)
// created with POST /users/me/subscriptions, 200 of the users registering a
// queue for every event type with POST /register (the full initial state),
// 20 000 messages sent by the owner with POST /messages, 8 at a time,
// spread over the channels and ten topics in each; then every queue is
// read and acknowledged once, as clients that keep up do. The queues stay
// registered. With -rounds, the load runs again with new users, channels
// and queues, and the RSS is recorded after each round: RSS that keeps
// growing from round to round is memory that the load leaves behind.
//
// With -inprocess, the server runs in this process instead (the store,
// service and HTTP handler as chatd serve wires them, without its rate
// limits), so that the Go heap can be told apart from the RSS: after each
// round it also reports the live heap after a collection, and
// -heapprofile writes a heap profile at the end (-cpuprofile, a CPU
// profile of the load).
//
//	go run ./bench/rss -chatd /path/to/chatd
//	go run ./bench/rss -inprocess -heapprofile /tmp/heap.prof
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/bench/internal/chatdproc"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/sqlite"
)

func main() {
	chatd := flag.String("chatd", "", "path of the chatd binary (required)")
	users := flag.Int("users", 1000, "users to create")
	channels := flag.Int("channels", 200, "channels to create")
	members := flag.Int("members", 50, "members of each channel besides the owner")
	registers := flag.Int("registers", 200, "users that register an event queue")
	messages := flag.Int("messages", 20000, "channel messages to send")
	workers := flag.Int("workers", 8, "concurrent requests")
	idle := flag.Duration("idle", time.Minute, "pause with no requests before the last measure")
	rounds := flag.Int("rounds", 1, "times to run the load, each with new users, channels and queues")
	inProcess := flag.Bool("inprocess", false, "serve from this process instead of chatd, and report the live Go heap")
	heapProfile := flag.String("heapprofile", "", "with -inprocess, write a heap profile to this file at the end")
	cpuProfile := flag.String("cpuprofile", "", "with -inprocess, write a CPU profile of the load (not the idle pause) to this file")
	flag.Parse()
	if *chatd == "" && !*inProcess {
		flag.Usage()
		os.Exit(2)
	}
	l := &load{users: *users, channels: *channels, members: min(*members, *users), registers: min(*registers, *users),
		messages: *messages, workers: *workers}
	l.inProcess, l.heapProfile, l.cpuProfile = *inProcess, *heapProfile, *cpuProfile
	if err := l.run(*chatd, *idle, *rounds); err != nil {
		log.Fatal(err)
	}
}

// load is the state of one run.
type load struct {
	users, channels, members, registers, messages, workers int
	round                                                  int
	inProcess                                              bool
	heapProfile, cpuProfile                                string

	api    *chatdproc.Client
	owner  account
	ids    []int64
	queues []queue
}

// account is the credentials of a request.
type account = chatdproc.Account

type queue struct {
	as   account
	id   string
	last int64
}

const password = "rss-bench-password"

func (l *load) run(chatd string, idle time.Duration, rounds int) error {
	dir, err := os.MkdirTemp("", "chatd-rss-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var pid, port int
	if l.inProcess {
		if port, err = chatdproc.FreePort(); err != nil {
			return err
		}
		stop, err := l.serveHere(dir, port)
		if err != nil {
			return err
		}
		defer stop()
		pid = os.Getpid()
	} else {
		p, err := chatdproc.Start(chatd, dir, "--rate-limit", "0")
		if err != nil {
			return err
		}
		defer p.Stop()
		pid, port, l.owner = p.PID, p.Port, p.Owner
	}
	l.api = chatdproc.NewClient(port, l.workers+4)
	var me struct {
		UserID int64 `json:"user_id"`
	}
	if err := l.api.Call(l.owner, http.MethodGet, "/users/me", nil, &me); err != nil {
		return err
	}
	l.owner.ID = me.UserID

	time.Sleep(2 * time.Second)
	idleRSS, _, err := chatdproc.Memory(pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle, fresh data directory: RSS %s\n", chatdproc.MiB(idleRSS))

	if l.inProcess && l.cpuProfile != "" {
		f, err := os.Create(l.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	var after []int64
	for l.round = 1; l.round <= rounds; l.round++ {
		now, err := l.runRound(pid)
		if err != nil {
			pprof.StopCPUProfile()
			return err
		}
		after = append(after, now)
	}
	pprof.StopCPUProfile()
	_, peak, err := chatdproc.Memory(pid)
	if err != nil {
		return err
	}
	time.Sleep(idle)
	rested, _, err := chatdproc.Memory(pid)
	if err != nil {
		return err
	}
	fmt.Printf("after %v idle: RSS %s, peak %s\n", idle, chatdproc.MiB(rested), chatdproc.MiB(peak))
	if l.inProcess {
		fmt.Printf("after %v idle: live Go heap %s\n", idle, chatdproc.MiB(liveHeap()))
		// What the Go runtime holds free but has not yet returned, against
		// what stays (the live heap, SQLite's caches, stacks, the binary).
		debug.FreeOSMemory()
		if freed, _, err := chatdproc.Memory(pid); err == nil {
			fmt.Printf("after returning the Go heap's free memory to the system: RSS %s\n", chatdproc.MiB(freed))
		}
		if l.heapProfile != "" {
			f, err := os.Create(l.heapProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.WriteHeapProfile(f); err != nil {
				return err
			}
		}
	}
	line := "| " + chatdproc.MiB(idleRSS)
	for _, a := range after {
		line += " | " + chatdproc.MiB(a)
	}
	fmt.Printf("%s | %s | %s |\n", line, chatdproc.MiB(peak), chatdproc.MiB(rested))
	return nil
}

// runRound runs the load once and returns the RSS after it.
func (l *load) runRound(pid int) (int64, error) {
	start := time.Now()
	steps := []struct {
		name string
		run  func() error
	}{
		{fmt.Sprintf("created %d users", l.users), l.createUsers},
		{fmt.Sprintf("created %d channels of %d members", l.channels, l.members+1), l.createChannels},
		{fmt.Sprintf("registered %d queues", l.registers), l.register},
		{fmt.Sprintf("sent %d messages", l.messages), l.send},
		{"read and acknowledged every queue", l.drain},
	}
	for _, s := range steps {
		t := time.Now()
		if err := s.run(); err != nil {
			return 0, fmt.Errorf("round %d: %s: %w", l.round, s.name, err)
		}
		now, _, err := chatdproc.Memory(pid)
		if err != nil {
			return 0, err
		}
		fmt.Printf("round %d: %s in %v: RSS %s\n", l.round, s.name, time.Since(t).Round(time.Millisecond), chatdproc.MiB(now))
	}
	after, peak, err := chatdproc.Memory(pid)
	if err != nil {
		return 0, err
	}
	fmt.Printf("after round %d (%v): RSS %s, peak %s\n", l.round, time.Since(start).Round(time.Second), chatdproc.MiB(after), chatdproc.MiB(peak))
	if l.inProcess {
		fmt.Printf("after round %d: live Go heap %s\n", l.round, chatdproc.MiB(liveHeap()))
	}
	return after, nil
}

// parallel runs fn(0) … fn(n-1) on l.workers goroutines and returns the
// first error.
func (l *load) parallel(n int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func (l *load) email(i int) string { return fmt.Sprintf("load%d-%05d@example.com", l.round, i) }

func (l *load) channel(c int) string { return fmt.Sprintf("round %d channel %d", l.round, c) }

func (l *load) createUsers() error {
	l.ids = make([]int64, l.users)
	return l.parallel(l.users, func(i int) error {
		var res struct {
			UserID int64 `json:"user_id"`
		}
		err := l.api.Call(l.owner, http.MethodPost, "/users", url.Values{"email": {l.email(i)}, "password": {password},
			"full_name": {fmt.Sprintf("Load User %d", i)}}, &res)
		l.ids[i] = res.UserID
		return err
	})
}

func (l *load) createChannels() error {
	return l.parallel(l.channels, func(c int) error {
		principals := []int64{l.owner.ID}
		for k := range l.members {
			principals = append(principals, l.ids[(c*l.users/l.channels+k)%l.users])
		}
		subs, _ := json.Marshal([]map[string]string{{"name": l.channel(c)}})
		ps, _ := json.Marshal(principals)
		return l.api.Call(l.owner, http.MethodPost, "/users/me/subscriptions", url.Values{"subscriptions": {string(subs)}, "principals": {string(ps)}}, nil)
	})
}

func (l *load) register() error {
	l.queues = make([]queue, l.registers)
	return l.parallel(l.registers, func(i int) error {
		var key struct {
			APIKey string `json:"api_key"`
		}
		if err := l.api.Call(account{}, http.MethodPost, "/fetch_api_key", url.Values{"username": {l.email(i)}, "password": {password}}, &key); err != nil {
			return err
		}
		as := account{ID: l.ids[i], Email: l.email(i), Key: key.APIKey}
		var reg struct {
			QueueID     string `json:"queue_id"`
			LastEventID int64  `json:"last_event_id"`
		}
		if err := l.api.Call(as, http.MethodPost, "/register", url.Values{}, &reg); err != nil {
			return err
		}
		l.queues[i] = queue{as: as, id: reg.QueueID, last: reg.LastEventID}
		return nil
	})
}

func (l *load) send() error {
	return l.parallel(l.messages, func(i int) error {
		c := i % l.channels
		to, _ := json.Marshal(l.channel(c))
		return l.api.Call(l.owner, http.MethodPost, "/messages", url.Values{"type": {"stream"}, "to": {string(to)},
			"topic":   {fmt.Sprintf("topic %d", i/l.channels%10)},
			"content": {fmt.Sprintf("Message **%d** of the memory benchmark, of an ordinary length, with a [link](https://example.com/%d).", i, i)}}, nil)
	})
}

// drain reads every queue's events without waiting, then acknowledges
// them with a second read.
func (l *load) drain() error {
	return l.parallel(len(l.queues), func(i int) error {
		q := &l.queues[i]
		for range 2 {
			var res struct {
				Events []struct {
					ID int64 `json:"id"`
				} `json:"events"`
			}
			if err := l.api.Call(q.as, http.MethodGet, "/events", url.Values{"queue_id": {q.id},
				"last_event_id": {strconv.FormatInt(q.last, 10)}, "dont_block": {"true"}}, &res); err != nil {
				return err
			}
			if n := len(res.Events); n > 0 {
				q.last = res.Events[n-1].ID
			}
		}
		return nil
	})
}

// serveHere serves the API from this process on SQLite in dir, as chatd
// serve would, and creates the organization; stop ends it.
func (l *load) serveHere(dir string, port int) (stop func(), err error) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(dir, "chat.db"))
	if err != nil {
		return nil, err
	}
	svc := chat.New(store, chat.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Chat", Host: fmt.Sprintf("localhost:%d", port),
		URL: fmt.Sprintf("http://localhost:%d", port), OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		svc.Close()
		store.Close()
		return nil, err
	}
	l.owner = account{Email: org.Email, Key: org.APIKey}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		svc.Close()
		store.Close()
		return nil, err
	}
	srv := &http.Server{Handler: httpserver.New(svc, httpserver.Options{})}
	go srv.Serve(ln)
	return func() {
		srv.Close()
		svc.Close()
		store.Close()
	}, nil
}

// liveHeap collects garbage and returns the bytes of live Go heap objects.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
