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
	"bufio"
	"bytes"
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
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/teamchat/chat"
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
		messages: *messages, workers: *workers, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers + 4}}}
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
	chatdPID                                               int

	client     *http.Client
	base, host string
	owner      account
	ids        []int64
	queues     []queue
}

type account struct {
	id         int64
	email, key string
}

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
	port, err := freePort()
	if err != nil {
		return err
	}
	var pid int
	if l.inProcess {
		stop, err := l.serveHere(dir, port)
		if err != nil {
			return err
		}
		defer stop()
		pid = os.Getpid()
	} else {
		stop, err := l.startChatd(chatd, dir, port)
		if err != nil {
			return err
		}
		defer stop()
	}
	l.base = fmt.Sprintf("http://127.0.0.1:%d/api/v1", port)
	l.host = fmt.Sprintf("localhost:%d", port)
	var me struct {
		UserID int64 `json:"user_id"`
	}
	if err := l.call(l.owner, http.MethodGet, "/users/me", nil, &me); err != nil {
		return err
	}
	l.owner.id = me.UserID
	if pid == 0 {
		pid = l.chatdPID
	}

	time.Sleep(2 * time.Second)
	idleRSS, _, err := rss(pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle, fresh data directory: RSS %s\n", mib(idleRSS))

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
	_, peak, err := rss(pid)
	if err != nil {
		return err
	}
	time.Sleep(idle)
	rested, _, err := rss(pid)
	if err != nil {
		return err
	}
	fmt.Printf("after %v idle: RSS %s, peak %s\n", idle, mib(rested), mib(peak))
	if l.inProcess {
		fmt.Printf("after %v idle: live Go heap %s\n", idle, mib(liveHeap()))
		// What the Go runtime holds free but has not yet returned, against
		// what stays (the live heap, SQLite's caches, stacks, the binary).
		debug.FreeOSMemory()
		if freed, _, err := rss(pid); err == nil {
			fmt.Printf("after returning the Go heap's free memory to the system: RSS %s\n", mib(freed))
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
	line := "| " + mib(idleRSS)
	for _, a := range after {
		line += " | " + mib(a)
	}
	fmt.Printf("%s | %s | %s |\n", line, mib(peak), mib(rested))
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
		now, _, err := rss(pid)
		if err != nil {
			return 0, err
		}
		fmt.Printf("round %d: %s in %v: RSS %s\n", l.round, s.name, time.Since(t).Round(time.Millisecond), mib(now))
	}
	after, peak, err := rss(pid)
	if err != nil {
		return 0, err
	}
	fmt.Printf("after round %d (%v): RSS %s, peak %s\n", l.round, time.Since(start).Round(time.Second), mib(after), mib(peak))
	if l.inProcess {
		fmt.Printf("after round %d: live Go heap %s\n", l.round, mib(liveHeap()))
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
		err := l.call(l.owner, http.MethodPost, "/users", url.Values{"email": {l.email(i)}, "password": {password},
			"full_name": {fmt.Sprintf("Load User %d", i)}}, &res)
		l.ids[i] = res.UserID
		return err
	})
}

func (l *load) createChannels() error {
	return l.parallel(l.channels, func(c int) error {
		principals := []int64{l.owner.id}
		for k := range l.members {
			principals = append(principals, l.ids[(c*l.users/l.channels+k)%l.users])
		}
		subs, _ := json.Marshal([]map[string]string{{"name": l.channel(c)}})
		ps, _ := json.Marshal(principals)
		return l.call(l.owner, http.MethodPost, "/users/me/subscriptions", url.Values{"subscriptions": {string(subs)}, "principals": {string(ps)}}, nil)
	})
}

func (l *load) register() error {
	l.queues = make([]queue, l.registers)
	return l.parallel(l.registers, func(i int) error {
		var key struct {
			APIKey string `json:"api_key"`
		}
		if err := l.call(account{}, http.MethodPost, "/fetch_api_key", url.Values{"username": {l.email(i)}, "password": {password}}, &key); err != nil {
			return err
		}
		as := account{id: l.ids[i], email: l.email(i), key: key.APIKey}
		var reg struct {
			QueueID     string `json:"queue_id"`
			LastEventID int64  `json:"last_event_id"`
		}
		if err := l.call(as, http.MethodPost, "/register", url.Values{}, &reg); err != nil {
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
		return l.call(l.owner, http.MethodPost, "/messages", url.Values{"type": {"stream"}, "to": {string(to)},
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
			if err := l.call(q.as, http.MethodGet, "/events", url.Values{"queue_id": {q.id},
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

// call sends one API request, as the account when it has a key, and
// decodes the answer into out when out is not nil.
func (l *load) call(as account, method, path string, form url.Values, out any) error {
	var req *http.Request
	var err error
	if method == http.MethodGet {
		req, err = http.NewRequest(method, l.base+path+"?"+form.Encode(), nil)
	} else {
		req, err = http.NewRequest(method, l.base+path, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if err != nil {
		return err
	}
	req.Host = l.host
	if as.key != "" {
		req.SetBasicAuth(as.email, as.key)
	}
	res, err := l.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(body))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

// rss returns the process's resident set size and its peak, in bytes.
func rss(pid int) (now, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %q", name, value)
		}
		if name == "VmRSS" {
			now = kib * 1024
		} else {
			peak = kib * 1024
		}
	}
	return now, peak, nil
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startChatd starts chatd serve on a fresh data directory and reads the
// owner's credentials from what its first start prints; stop ends it.
func (l *load) startChatd(chatd, dir string, port int) (stop func(), err error) {
	cmd := exec.Command(chatd, "serve", "--data", dir, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--rate-limit", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "chatd.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		logFile.Close()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && (l.owner.email == "" || l.owner.key == "") {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "owner email:"); ok {
			l.owner.email = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "owner API key:"); ok {
			l.owner.key = strings.TrimSpace(v)
		}
	}
	go io.Copy(io.Discard, stdout)
	if l.owner.key == "" {
		stop()
		return nil, fmt.Errorf("chatd printed no owner credentials (log: %s)", logFile.Name())
	}
	l.chatdPID = cmd.Process.Pid
	return stop, nil
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
	l.owner = account{email: org.Email, key: org.APIKey}
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
