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
	email, key := m[1], m[2]

	client := &http.Client{Timeout: 5 * time.Second}
	var (
		mu        sync.Mutex
		acked     = map[string]bool{} // addresses whose creation was answered 200
		attempted = map[string]bool{} // every address a client sent
		// The same for channels, created by subscribing the owner.
		ackedChannels, attemptedChannels = map[string]bool{}, map[string]bool{}
		// Messages sent, and those whose reaction was acknowledged.
		sentMessages, ackedReactions = map[int64]bool{}, map[int64]bool{}
	)
	post := func(path string, form url.Values) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1"+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(email, key)
		return req
	}
	if res, err := client.Do(post("/users/me/subscriptions", url.Values{"subscriptions": {`[{"name":"reactions"}]`}})); err != nil || res.StatusCode != http.StatusOK {
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
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					var req *http.Request
					var record func()
					switch i % 3 {
					case 0:
						addr := fmt.Sprintf("r%d-w%d-%d@example.com", round, w, i)
						mu.Lock()
						attempted[addr] = true
						mu.Unlock()
						form := url.Values{"email": {addr}, "password": {"long-enough"}, "full_name": {"Crash Test"}}
						req, _ = http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1/users", strings.NewReader(form.Encode()))
						record = func() { acked[addr] = true }
					case 1:
						name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
						mu.Lock()
						attemptedChannels[name] = true
						mu.Unlock()
						form := url.Values{"subscriptions": {`[{"name":"` + name + `","description":"crash"}]`}}
						req, _ = http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1/users/me/subscriptions", strings.NewReader(form.Encode()))
						record = func() { ackedChannels[name] = true }
					case 2:
						// A message, then the owner's reaction to it.
						res, err := client.Do(post("/messages", url.Values{"type": {"channel"}, "to": {"reactions"},
							"topic": {fmt.Sprintf("r%d", round)}, "content": {"react"}}))
						if err != nil {
							return
						}
						var sent struct{ ID int64 }
						json.NewDecoder(res.Body).Decode(&sent)
						res.Body.Close()
						if res.StatusCode != http.StatusOK || sent.ID == 0 {
							continue
						}
						mu.Lock()
						sentMessages[sent.ID] = true
						mu.Unlock()
						req = post(fmt.Sprintf("/messages/%d/reactions", sent.ID), url.Values{"emoji_name": {"+1"}})
						record = func() { ackedReactions[sent.ID] = true }
					}
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.SetBasicAuth(email, key)
					res, err := client.Do(req)
					if err != nil {
						return // the server died under us
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						mu.Lock()
						record()
						mu.Unlock()
					}
				}
			}()
		}
		// Kill once this round has had acknowledged writes of both kinds (however
		// slow the machine), at a moment that varies from round to round.
		mu.Lock()
		users, chans, reactions := len(acked)+1, len(ackedChannels)+1, len(ackedReactions)+1
		mu.Unlock()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			mu.Lock()
			done := len(acked) >= users && len(ackedChannels) >= chans && len(ackedReactions) >= reactions
			mu.Unlock()
			if done {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(7*round) * time.Millisecond)
		p.kill()
		close(stop)
		wg.Wait()
		p = startProcess(t, bin, "--data", data)
		n++
	}
	defer p.kill()

	status, body := getUsers(t, p.addr, email, key)
	if status != http.StatusOK {
		t.Fatalf("GET /users after %d crashes: %d", n, status)
	}
	present := map[string]bool{}
	for _, m := range body["members"].([]any) {
		u := m.(map[string]any)
		present[u["delivery_email"].(string)] = true
		if u["full_name"] != "Crash Test" && u["delivery_email"] != email {
			t.Errorf("half-written user: %v", u)
		}
	}
	for addr := range acked {
		if !present[addr] {
			t.Errorf("acknowledged user %s is missing after the crashes", addr)
		}
	}
	for addr := range present {
		if addr != email && !attempted[addr] {
			t.Errorf("user %s was never sent", addr)
		}
	}
	if len(acked) < rounds {
		t.Errorf("only %d writes were acknowledged in %d rounds: the test did not exercise much", len(acked), rounds)
	}
	checkChannels(t, p.addr, email, key, ackedChannels, attemptedChannels)
	checkReactions(t, p.addr, email, key, ackedReactions, sentMessages)
	t.Logf("%d crashes; %d acknowledged user creations, %d users present; %d acknowledged channel creations; %d acknowledged reactions on %d messages",
		n, len(acked), len(present)-1, len(ackedChannels), len(ackedReactions), len(sentMessages))
	if strings.Contains(p.out, "First start") {
		t.Errorf("a restart after a crash created a new organization")
	}
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
