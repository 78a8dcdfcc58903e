package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/teamchat/chat/internal/pgtest"
)

// call sends a request to a chatd process and decodes its JSON answer.
func call(t *testing.T, p *process, method, path, email, key string, form url.Values) map[string]any {
	t.Helper()
	var body io.Reader
	target := "http://" + p.addr + "/api/v1" + path
	if method == http.MethodGet {
		target += "?" + form.Encode()
	} else {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, target, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.SetBasicAuth(email, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, out)
	}
	return out
}

// TestTwoProcessesOnePostgres runs two chatd processes on one PostgreSQL
// database, as behind a load balancer: what one writes the other reads,
// and the events caused through one reach the queues of the other, once.
func TestTwoProcessesOnePostgres(t *testing.T) {
	dsn := pgtest.Schema(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building chatd: %v", err)
	}
	data := filepath.Join(dir, "data")
	t.Setenv("CHATD_DSN", dsn) // the flag's environment variable
	a := startProcess(t, bin, "--store", "postgres", "--data", data)
	defer a.kill()
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) `).FindStringSubmatch(a.out)
	if m == nil {
		t.Fatalf("no credentials in the first-start output:\n%s", a.out)
	}
	owner, ownerKey := m[1], m[2]
	b := startProcess(t, bin, "--store", "postgres", "--data", data)
	defer b.kill()
	if strings.Contains(b.out, "First start") {
		t.Errorf("the second process created another organization:\n%s", b.out)
	}

	// A user created through A logs in through B.
	created := call(t, a, http.MethodPost, "/users", owner, ownerKey, url.Values{
		"email": {"second@example.com"}, "password": {"long-enough-password"}, "full_name": {"Second"}})
	userID := int64(created["user_id"].(float64))
	keyRes := call(t, b, http.MethodPost, "/fetch_api_key", "", "", url.Values{
		"username": {"second@example.com"}, "password": {"long-enough-password"}})
	userKey := keyRes["api_key"].(string)

	// An admin command works on the live database.
	var out bytes.Buffer
	if err := run(context.Background(), []string{"create-user", "--store", "postgres", "--email", "third@example.com",
		"--name", "Third"}, &out, io.Discard); err != nil {
		t.Fatalf("create-user: %v", err)
	}
	users := call(t, b, http.MethodGet, "/users", owner, ownerKey, nil)
	if n := len(users["members"].([]any)); n != 3 {
		t.Errorf("GET /users through B after create-user: %d members, want 3", n)
	}

	// A subscription made through A is visible through B.
	call(t, a, http.MethodPost, "/users/me/subscriptions", owner, ownerKey, url.Values{
		"subscriptions": {`[{"name": "scale-out"}]`}})
	subs := call(t, b, http.MethodGet, "/users/me/subscriptions", owner, ownerKey, nil)
	var names []string
	for _, s := range subs["subscriptions"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(names, ","), "scale-out") {
		t.Errorf("subscriptions through B = %v, want scale-out among them", names)
	}

	// The second user has a typing queue on each process; the owner types
	// to them through A.
	queues := map[*process]string{}
	for _, p := range []*process{a, b} {
		reg := call(t, p, http.MethodPost, "/register", "second@example.com", userKey, url.Values{
			"event_types": {`["typing"]`}})
		queues[p] = reg["queue_id"].(string)
	}
	call(t, a, http.MethodPost, "/typing", owner, ownerKey, url.Values{
		"op": {"start"}, "to": {"[" + strconv.FormatInt(userID, 10) + "]"}})
	for _, p := range []*process{b, a} {
		name := map[*process]string{a: "A", b: "B"}[p]
		got := call(t, p, http.MethodGet, "/events", "second@example.com", userKey, url.Values{
			"queue_id": {queues[p]}, "last_event_id": {"-1"}})
		events := got["events"].([]any)
		if len(events) != 1 {
			t.Fatalf("events on %s: %v, want one typing event", name, events)
		}
		ev := events[0].(map[string]any)
		sender, _ := ev["sender"].(map[string]any)
		if ev["type"] != "typing" || ev["op"] != "start" || sender["email"] != owner {
			t.Errorf("event on %s: %v", name, ev)
		}
		// Delivered once: nothing follows it.
		more := call(t, p, http.MethodGet, "/events", "second@example.com", userKey, url.Values{
			"queue_id": {queues[p]}, "last_event_id": {strconv.Itoa(int(ev["id"].(float64)))},
			"dont_block": {"true"}})
		if n := len(more["events"].([]any)); n != 0 {
			t.Errorf("events on %s after the typing event: %v", name, more["events"])
		}
	}
}
