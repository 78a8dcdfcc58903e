package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// process is a chatd child process.
type process struct {
	cmd  *exec.Cmd
	addr string
	out  string // stdout up to the address line
}

// startProcess runs the chatd binary and waits until it listens.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--rate-limit", "0"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd}
	out := &syncBuffer{}
	go io.Copy(out, stdout)
	addrRe := regexp.MustCompile(`addr=http://(\S+)`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := addrRe.FindStringSubmatch(sc.Text()); m != nil {
			p.addr = m[1]
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if p.addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("chatd did not start")
	}
	// The first-start text is written before the server listens.
	time.Sleep(50 * time.Millisecond)
	p.out = out.String()
	return p
}

func (p *process) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// TestCrashConsistency kills chatd with SIGKILL again and again while
// clients create users, channels (subscribe) and reactions (to messages
// they send) over SQLite, restarts it on the same data, and checks that
// every acknowledged write is there, that nothing else is, and that
// nothing is half-written: every user has its name, every channel its
// creator's subscription, no message a reaction twice.
func TestCrashConsistency(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building chatd: %v", err)
	}
	data := filepath.Join(dir, "data")

	p := startProcess(t, bin, "--data", data)
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) `).FindStringSubmatch(p.out)
	if m == nil {
		p.kill()
		t.Fatalf("no credentials in the first-start output:\n%s", p.out)
	}
	l := &crashLoad{client: &http.Client{Timeout: 5 * time.Second}, email: m[1], key: m[2],
		acked: map[string]bool{}, attempted: map[string]bool{}, ackedChannels: map[string]bool{},
		attemptedChannels: map[string]bool{}, sentMessages: map[int64]bool{}, ackedReactions: map[int64]bool{}}
	l.addr = p.addr
	if res, err := l.client.Do(l.post("/users/me/subscriptions", url.Values{"subscriptions": {`[{"name":"reactions"}]`}})); err != nil || res.StatusCode != http.StatusOK {
		p.kill()
		t.Fatalf("creating the channel of the reactions: %v %v", res, err)
	}
	const rounds = 8
	n := 0
	for round := range rounds {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.work(round, w, stop)
			}()
		}
		l.waitForWrites()
		time.Sleep(time.Duration(7*round) * time.Millisecond)
		p.kill()
		close(stop)
		wg.Wait()
		p = startProcess(t, bin, "--data", data)
		l.addr = p.addr
		n++
	}
	defer p.kill()
	email, key := l.email, l.key
	present := checkUsers(t, p.addr, email, key, l.acked, l.attempted)
	if len(l.acked) < rounds {
		t.Errorf("only %d writes were acknowledged in %d rounds: the test did not exercise much", len(l.acked), rounds)
	}
	checkChannels(t, p.addr, email, key, l.ackedChannels, l.attemptedChannels)
	checkReactions(t, p.addr, email, key, l.ackedReactions, l.sentMessages)
	t.Logf("%d crashes; %d acknowledged user creations, %d users present; %d acknowledged channel creations; %d acknowledged reactions on %d messages",
		n, len(l.acked), present, len(l.ackedChannels), len(l.ackedReactions), len(l.sentMessages))
	if strings.Contains(p.out, "First start") {
		t.Errorf("a restart after a crash created a new organization")
	}
}

// crashLoad is the writes of TestCrashConsistency's clients, and what the
// server acknowledged of them.
type crashLoad struct {
	client     *http.Client
	addr       string // of the running process; only changed between rounds
	email, key string

	mu        sync.Mutex
	acked     map[string]bool // addresses whose creation was answered 200
	attempted map[string]bool // every address a client sent
	// The same for channels, created by subscribing the owner.
	ackedChannels, attemptedChannels map[string]bool
	// Messages sent, and those whose reaction was acknowledged.
	sentMessages, ackedReactions map[int64]bool
}

func (l *crashLoad) post(path string, form url.Values) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, "http://"+l.addr+"/api/v1"+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(l.email, l.key)
	return req
}

// work writes users, channels and reactions in turn until stop is closed
// or the server dies.
func (l *crashLoad) work(round, w int, stop chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		req, record, ok := l.next(round, w, i)
		if !ok {
			return
		}
		if req == nil {
			continue
		}
		res, err := l.client.Do(req)
		if err != nil {
			return // the server died under us
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			l.mu.Lock()
			record()
			l.mu.Unlock()
		}
	}
}

// next is worker w's i-th write of the round and how to record its
// acknowledgement; nil when there is nothing to send this time, false
// when the server died.
func (l *crashLoad) next(round, w, i int) (*http.Request, func(), bool) {
	switch i % 3 {
	case 0:
		addr := fmt.Sprintf("r%d-w%d-%d@example.com", round, w, i)
		l.mu.Lock()
		l.attempted[addr] = true
		l.mu.Unlock()
		form := url.Values{"email": {addr}, "password": {"long-enough"}, "full_name": {"Crash Test"}}
		return l.post("/users", form), func() { l.acked[addr] = true }, true
	case 1:
		name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
		l.mu.Lock()
		l.attemptedChannels[name] = true
		l.mu.Unlock()
		form := url.Values{"subscriptions": {`[{"name":"` + name + `","description":"crash"}]`}}
		return l.post("/users/me/subscriptions", form), func() { l.ackedChannels[name] = true }, true
	}
	// A message, then the owner's reaction to it.
	res, err := l.client.Do(l.post("/messages", url.Values{"type": {"channel"}, "to": {"reactions"},
		"topic": {fmt.Sprintf("r%d", round)}, "content": {"react"}}))
	if err != nil {
		return nil, nil, false
	}
	var sent struct{ ID int64 }
	json.NewDecoder(res.Body).Decode(&sent)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || sent.ID == 0 {
		return nil, nil, true
	}
	l.mu.Lock()
	l.sentMessages[sent.ID] = true
	l.mu.Unlock()
	req := l.post(fmt.Sprintf("/messages/%d/reactions", sent.ID), url.Values{"emoji_name": {"+1"}})
	return req, func() { l.ackedReactions[sent.ID] = true }, true
}

// waitForWrites returns once this round has had acknowledged writes of
// every kind, however slow the machine, or after 20 s.
func (l *crashLoad) waitForWrites() {
	l.mu.Lock()
	users, chans, reactions := len(l.acked)+1, len(l.ackedChannels)+1, len(l.ackedReactions)+1
	l.mu.Unlock()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		l.mu.Lock()
		done := len(l.acked) >= users && len(l.ackedChannels) >= chans && len(l.ackedReactions) >= reactions
		l.mu.Unlock()
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkUsers checks the users after the crashes: every acknowledged one is
// there, none was never sent, none is half-written. It returns how many
// there are besides the owner.
func checkUsers(t *testing.T, addr, email, key string, acked, attempted map[string]bool) int {
	t.Helper()
	status, body := getUsers(t, addr, email, key)
	if status != http.StatusOK {
		t.Fatalf("GET /users after the crashes: %d", status)
	}
	present := map[string]bool{}
	for _, m := range body["members"].([]any) {
		u := m.(map[string]any)
		present[u["delivery_email"].(string)] = true
		if u["full_name"] != "Crash Test" && u["delivery_email"] != email {
			t.Errorf("half-written user: %v", u)
		}
	}
	for a := range acked {
		if !present[a] {
			t.Errorf("acknowledged user %s is missing after the crashes", a)
		}
	}
	for a := range present {
		if a != email && !attempted[a] {
			t.Errorf("user %s was never sent", a)
		}
	}
	return len(present) - 1
}

// checkChannels checks the channels after the crashes: every acknowledged
// one is there, none was never sent, and each has its description and its
// creator's subscription.
func checkChannels(t *testing.T, addr, email, key string, acked, attempted map[string]bool) {
	t.Helper()
	get := func(path string) map[string]any {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1"+path, nil)
		req.SetBasicAuth(email, key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		return body
	}
	channels := map[string]map[string]any{}
	for _, s := range get("/streams?include_all=true")["streams"].([]any) {
		s := s.(map[string]any)
		channels[s["name"].(string)] = s
	}
	subscribed := map[string]bool{}
	for _, s := range get("/users/me/subscriptions")["subscriptions"].([]any) {
		subscribed[s.(map[string]any)["name"].(string)] = true
	}
	for name, c := range channels {
		if !attempted[name] {
			continue // a channel of the first start
		}
		if c["description"] != "crash" {
			t.Errorf("half-written channel %s: %v", name, c)
		}
		if !subscribed[name] {
			t.Errorf("channel %s exists without its creator's subscription", name)
		}
	}
	for name := range acked {
		if channels[name] == nil {
			t.Errorf("acknowledged channel %s is missing after the crashes", name)
		}
	}
	for name := range subscribed {
		if channels[name] == nil {
			t.Errorf("subscription to %s, a channel that does not exist", name)
		}
	}
	if len(acked) < 8 {
		t.Errorf("only %d channel creations were acknowledged: the test did not exercise much", len(acked))
	}
}

// checkReactions checks the reactions after the crashes: every message
// whose reaction was acknowledged has it, and no message has it twice.
func checkReactions(t *testing.T, addr, email, key string, acked, sent map[int64]bool) {
	t.Helper()
	for id := range sent {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/api/v1/messages/%d", addr, id), nil)
		req.SetBasicAuth(email, key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Message struct {
				Reactions []struct {
					EmojiName string `json:"emoji_name"`
				}
			}
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("acknowledged message %d after the crashes: %d %v", id, res.StatusCode, err)
			continue
		}
		n := len(body.Message.Reactions)
		if n > 1 || n == 1 && body.Message.Reactions[0].EmojiName != "+1" {
			t.Errorf("message %d has reactions %+v", id, body.Message.Reactions)
		}
		if acked[id] && n != 1 {
			t.Errorf("acknowledged reaction to message %d is missing after the crashes", id)
		}
	}
	if len(acked) < 8 {
		t.Errorf("only %d reactions were acknowledged: the test did not exercise much", len(acked))
	}
}
