package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFloor: a queue registered before a message gets it, in chatd's
// shape, from a long-poll that waited for it; one registered after it
// starts past it.
func TestFloor(t *testing.T) {
	srv := httptest.NewServer(newFloor())
	defer srv.Close()
	call := func(method, path string, form url.Values) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/api/v1"+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var out map[string]any
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("%s %s: %q", method, path, body)
		}
		return out
	}
	reg := call(http.MethodPost, "/register", nil)
	if diff := cmp.Diff(map[string]any{"result": "success", "msg": "", "queue_id": "q1", "last_event_id": float64(-1)}, reg); diff != "" {
		t.Errorf("register (-want +got):\n%s", diff)
	}
	polled := make(chan map[string]any)
	go func() { polled <- call(http.MethodGet, "/events?queue_id=q1&last_event_id=-1", nil) }()
	select {
	case got := <-polled:
		t.Fatalf("answered before any event: %v", got)
	case <-time.After(50 * time.Millisecond):
	}
	sent := call(http.MethodPost, "/messages", url.Values{"type": {"stream"}, "to": {`"listen"`}, "topic": {"bench"}, "content": {"hi"}})
	if sent["id"] != float64(1) {
		t.Errorf("send: %v", sent)
	}
	got := <-polled
	events, _ := got["events"].([]any)
	if len(events) != 1 || got["queue_id"] != "q1" {
		t.Fatalf("poll: %v", got)
	}
	message := events[0].(map[string]any)["message"].(map[string]any)
	if message["content"] != "<p>hi</p>" || message["id"] != float64(1) || message["display_recipient"] != "listen" {
		t.Errorf("event: %v", events[0])
	}
	if reg := call(http.MethodPost, "/register", nil); reg["last_event_id"] != float64(0) || reg["queue_id"] != "q2" {
		t.Errorf("a registration after the message: %v", reg)
	}
}
