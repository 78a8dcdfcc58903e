package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// TestShutdownAnswersLongPolls stops chatd with SIGTERM while a client
// long-polls: the poll is answered at once (not after the heartbeat or the
// grace), and chatd exits with status 0.
func TestShutdownAnswersLongPolls(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatd")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building chatd: %v\n%s", err, out)
	}
	p := startProcess(t, bin, "--data", filepath.Join(dir, "data"))
	defer p.kill()
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) `).FindStringSubmatch(p.out)
	if m == nil {
		t.Fatalf("no credentials in the first-start output:\n%s", p.out)
	}
	email, key := m[1], m[2]
	queue := call(t, p, http.MethodPost, "/register", email, key, url.Values{"event_types": {`["message"]`}})["queue_id"].(string)

	type answer struct {
		body map[string]any
		err  error
	}
	polled := make(chan answer, 1)
	go func() {
		// Not call, which would end the test from this goroutine.
		req, _ := http.NewRequest(http.MethodGet, "http://"+p.addr+"/api/v1/events?"+
			url.Values{"queue_id": {queue}, "last_event_id": {"-1"}}.Encode(), nil)
		req.SetBasicAuth(email, key)
		var a answer
		res, err := http.DefaultClient.Do(req)
		if a.err = err; err == nil {
			a.err = json.NewDecoder(res.Body).Decode(&a.body)
			res.Body.Close()
		}
		polled <- a
	}()
	time.Sleep(300 * time.Millisecond) // the poll is waiting
	stopped := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-polled:
		if a.err != nil || a.body["result"] != "success" {
			t.Errorf("the long-poll got %v, %v", a.body, a.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the long-poll was not answered within 5 s of SIGTERM")
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("chatd exited with %v after SIGTERM, want status 0", err)
	}
	t.Logf("stopped %v after SIGTERM", time.Since(stopped))
}
