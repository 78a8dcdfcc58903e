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

	"github.com/google/go-cmp/cmp"

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
	return decodeOK(t, req)
}

// decodeOK sends req and decodes its JSON answer, which must be a 200.
func decodeOK(t *testing.T, req *http.Request) map[string]any {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s, %v %v", req.Method, req.URL.Path, resp.Status, out, err)
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
	if err := run(context.Background(), []string{"create-user", "--store", "postgres", "--data", data, "--email", "third@example.com",
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

	checkTypingAcross(t, a, b, owner, ownerKey, userID, userKey)
	checkEventsAcross(t, a, b, owner, ownerKey, userID, userKey, subs)
}

// checkTypingAcross: the second user has a typing queue on each process;
// the owner types to them through A, and each queue gets the event once.
func checkTypingAcross(t *testing.T, a, b *process, owner, ownerKey string, userID int64, userKey string) {
	t.Helper()
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

// checkEventsAcross: messages, an edit, a deletion and channel typing, all
// through B, reach queues on A in the form each asked for: the second
// user's wants Markdown and one delete_message event per message; the
// owner's wants HTML and gets local_message_id for its message.
func checkEventsAcross(t *testing.T, a, b *process, owner, ownerKey string, userID int64, userKey string, subs map[string]any) {
	t.Helper()
	var channelID float64
	for _, s := range subs["subscriptions"].([]any) {
		if s := s.(map[string]any); s["name"] == "scale-out" {
			channelID = s["stream_id"].(float64)
		}
	}
	types := `["message", "update_message", "delete_message", "typing"]`
	secondQueue := call(t, a, http.MethodPost, "/register", "second@example.com", userKey, url.Values{
		"event_types": {types}, "client_capabilities": {`{"stream_typing_notifications": true}`}})["queue_id"].(string)
	ownerQueue := call(t, a, http.MethodPost, "/register", owner, ownerKey, url.Values{
		"event_types": {types}, "apply_markdown": {"true"},
		"client_capabilities": {`{"stream_typing_notifications": true, "bulk_message_deletion": true}`}})["queue_id"].(string)
	// The second user is told of the subscription by the notification bot.
	call(t, b, http.MethodPost, "/users/me/subscriptions", owner, ownerKey, url.Values{
		"subscriptions": {`[{"name": "scale-out"}]`}, "principals": {`["second@example.com"]`}})
	sent := call(t, b, http.MethodPost, "/messages", owner, ownerKey, url.Values{
		"type": {"stream"}, "to": {"scale-out"}, "topic": {"crossing"}, "content": {"**bold** move"},
		"queue_id": {ownerQueue}, "local_id": {"42.1"}, "read_by_sender": {"true"}})
	channelMessage := sent["id"].(float64)
	sent = call(t, b, http.MethodPost, "/messages", owner, ownerKey, url.Values{
		"type": {"direct"}, "to": {"[" + strconv.FormatInt(userID, 10) + "]"}, "content": {"just *us*"},
		"read_by_sender": {"true"}})
	direct := sent["id"].(float64)
	call(t, b, http.MethodPatch, "/messages/"+strconv.Itoa(int(channelMessage)), owner, ownerKey, url.Values{
		"content": {"**edited**"}})
	call(t, b, http.MethodDelete, "/messages/"+strconv.Itoa(int(direct)), owner, ownerKey, nil)
	call(t, b, http.MethodPost, "/typing", owner, ownerKey, url.Values{
		"type": {"channel"}, "op": {"start"}, "stream_id": {strconv.Itoa(int(channelID))}, "topic": {"crossing"}})

	typing := map[string]any{"type": "typing", "op": "start", "message_type": "stream",
		"stream_id": channelID, "topic": "crossing"}
	diffEvents(t, "second user's queue on A", collectEvents(t, a, "second@example.com", userKey, secondQueue, 6), []map[string]any{
		{"type": "message", "flags": []any{}, "message": map[string]any{"sender_email": "notification-bot@zulip.com",
			"type": "private", "content_type": "text/x-markdown"}},
		{"type": "message", "flags": []any{}, "local_message_id": nil, "message": map[string]any{"content": "**bold** move",
			"content_type": "text/x-markdown", "type": "stream", "subject": "crossing", "display_recipient": "scale-out"}},
		{"type": "message", "flags": []any{}, "message": map[string]any{"content": "just *us*",
			"content_type": "text/x-markdown", "type": "private", "subject": ""}},
		{"type": "update_message", "flags": []any{}, "message_id": channelMessage, "content": "**edited**"},
		{"type": "delete_message", "message_id": direct, "message_ids": nil, "message_type": "private"},
		typing,
	})
	diffEvents(t, "owner's queue on A", collectEvents(t, a, owner, ownerKey, ownerQueue, 5), []map[string]any{
		{"type": "message", "flags": []any{"read"}, "local_message_id": "42.1", "message": map[string]any{
			"content": "<p><strong>bold</strong> move</p>", "content_type": "text/html", "type": "stream",
			"subject": "crossing", "display_recipient": "scale-out"}},
		{"type": "message", "flags": []any{"read"}, "local_message_id": nil, "message": map[string]any{"content": "<p>just <em>us</em></p>",
			"content_type": "text/html", "type": "private", "subject": ""}},
		{"type": "update_message", "flags": []any{"read"}, "message_id": channelMessage, "content": "**edited**"},
		{"type": "delete_message", "message_ids": []any{direct}, "message_id": nil, "message_type": "private"},
		typing,
	})
}

// collectEvents long-polls a queue until it holds n events, and returns
// them; no more may follow.
func collectEvents(t *testing.T, p *process, email, key, queue string, n int) []map[string]any {
	t.Helper()
	var out []map[string]any
	last := -1
	for len(out) < n {
		got := call(t, p, http.MethodGet, "/events", email, key, url.Values{
			"queue_id": {queue}, "last_event_id": {strconv.Itoa(last)}})
		for _, e := range got["events"].([]any) {
			e := e.(map[string]any)
			if e["type"] == "heartbeat" {
				t.Fatalf("a heartbeat after %d events, want %d: %v", len(out), n, out)
			}
			last = int(e["id"].(float64))
			out = append(out, e)
		}
	}
	more := call(t, p, http.MethodGet, "/events", email, key, url.Values{
		"queue_id": {queue}, "last_event_id": {strconv.Itoa(last)}, "dont_block": {"true"}})
	if extra := more["events"].([]any); len(extra) != 0 {
		t.Errorf("events after the %d expected: %v", n, extra)
	}
	return out
}

// diffEvents compares events with what is expected of them: the keys
// that want names (nil for a key that must be missing), and of a message
// event the message's keys that its want names.
func diffEvents(t *testing.T, what string, got, want []map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d events, want %d: %v", what, len(got), len(want), got)
		return
	}
	for i, w := range want {
		g := map[string]any{}
		for k, v := range w {
			g[k] = got[i][k]
			if wm, ok := v.(map[string]any); ok {
				gm, _ := got[i][k].(map[string]any)
				sub := map[string]any{}
				for k := range wm {
					sub[k] = gm[k]
				}
				g[k] = sub
			}
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s, event %d (-want +got):\n%s", what, i, d)
		}
	}
}
