package httpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/memory"
)

func TestBodyTooLarge(t *testing.T) {
	e := newEnv(t)
	big := strings.Repeat("x", 10<<20)

	r := e.request(http.MethodPost, "/users/me/status", &e.member, form("status_text", big))
	e.expectError(e.do(r), http.StatusRequestEntityTooLarge, chat.CodeBadRequest, "Request body too large")

	ct, body := multipartBody(t, "status_text", big)
	r = e.request(http.MethodPost, "/users/me/status", &e.member, nil)
	r.Body = io.NopCloser(body)
	r.Header.Set("Content-Type", ct)
	e.expectError(e.do(r), http.StatusRequestEntityTooLarge, chat.CodeBadRequest, "Request body too large")

	// Just under the limit is read, and answered by the operation.
	r = e.request(http.MethodPost, "/users/me/status", &e.member, form("status_text", big[:10<<20-len("status_text=")]))
	e.expectError(e.do(r), http.StatusBadRequest, chat.CodeBadRequest, "status_text is too long (limit: 60 characters)")
}

// nested returns v inside depth-1 arrays, depth levels in all.
func nested(depth int, v string) string {
	return strings.Repeat("[", depth-1) + v + strings.Repeat("]", depth-1)
}

func TestJSONNestingLimit(t *testing.T) {
	e := newEnv(t)
	deep := nested(33, "[]")
	// Every way a JSON parameter is read: typed readers, Decode, Optional
	// and profile data.
	e.expectError(e.call(http.MethodGet, "/users", &e.member, form("user_ids", deep)),
		http.StatusBadRequest, chat.CodeBadRequest, "user_ids is nested too deeply (limit: 32 levels)")
	e.expectError(e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", deep)),
		http.StatusBadRequest, chat.CodeBadRequest, "subscriptions is nested too deeply (limit: 32 levels)")
	e.expectError(e.call(http.MethodPatch, "/realm", &e.admin, form("message_content_edit_limit_seconds", deep)),
		http.StatusBadRequest, chat.CodeBadRequest, "message_content_edit_limit_seconds is nested too deeply (limit: 32 levels)")
	e.expectError(e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", `[{"name":"x"}]`,
		"can_add_subscribers_group", `{"direct_members":`+nested(32, "[]")+`}`)),
		http.StatusBadRequest, chat.CodeBadRequest, "can_add_subscribers_group is nested too deeply (limit: 32 levels)")
	e.expectError(e.call(http.MethodPatch, "/users/me/profile_data", &e.member, form("data", deep)),
		http.StatusBadRequest, chat.CodeBadRequest, "data is nested too deeply (limit: 32 levels)")
	e.expectError(e.call(http.MethodPost, "/register", &e.member, form("client_capabilities", `{"a":`+nested(32, "[]")+`}`)),
		http.StatusBadRequest, chat.CodeBadRequest, "client_capabilities is nested too deeply (limit: 32 levels)")

	// Brackets inside strings do not count, and 32 levels are decoded (and
	// then refused for their type, not their depth).
	e.expectError(e.call(http.MethodGet, "/users", &e.member, form("user_ids", `["`+strings.Repeat("[", 100)+`"]`)),
		http.StatusBadRequest, chat.CodeBadRequest, "user_ids[0] is not an integer")
	e.expectError(e.call(http.MethodGet, "/users", &e.member, form("user_ids", `["\"`+strings.Repeat("[", 100)+`"]`)),
		http.StatusBadRequest, chat.CodeBadRequest, "user_ids[0] is not an integer")
	e.expectError(e.call(http.MethodGet, "/users", &e.member, form("user_ids", nested(32, "[]"))),
		http.StatusBadRequest, chat.CodeBadRequest, "user_ids[0] is not an integer")

	// A megabyte of brackets is refused before any decoder recurses.
	e.expectError(e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", strings.Repeat("[", 1<<20))),
		http.StatusBadRequest, chat.CodeBadRequest, "subscriptions is nested too deeply (limit: 32 levels)")
}

// intList returns a JSON array of n copies of v.
func intList(n int, v string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(v+",", n), ",") + "]"
}

func TestListLengthLimits(t *testing.T) {
	e := newEnv(t)
	me := itoa(e.member.id)
	for _, tc := range []struct {
		method, path, name string
		limit              int
		item               string
		as                 *account
		extra              []string
	}{
		{http.MethodGet, "/users", "user_ids", 10000, me, &e.member, nil},
		{http.MethodPost, "/users/me/subscriptions", "subscriptions", 1000, `{"name":"x"}`, &e.member, nil},
		{http.MethodPost, "/users/me/subscriptions", "principals", 10000, me, &e.member, []string{"subscriptions", `[{"name":"x"}]`}},
		{http.MethodDelete, "/users/me/subscriptions", "subscriptions", 1000, `"x"`, &e.member, nil},
		{http.MethodDelete, "/users/me/subscriptions", "principals", 10000, me, &e.member, []string{"subscriptions", `["x"]`}},
		{http.MethodPost, "/users/me/subscriptions/properties", "subscription_data", 1000, `{}`, &e.member, nil},
		{http.MethodPost, "/register", "narrow", 100, `["is","private"]`, &e.member, nil},
		{http.MethodPost, "/typing", "to", 1000, me, &e.member, []string{"op", "start"}},
		{http.MethodPatch, "/users/me/profile_data", "data", 1000, `{}`, &e.member, nil},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.name, func(t *testing.T) {
			e.t = t
			values := form(append([]string{tc.name, intList(tc.limit+1, tc.item)}, tc.extra...)...)
			e.expectError(e.call(tc.method, tc.path, tc.as, values), http.StatusBadRequest, chat.CodeBadRequest,
				fmt.Sprintf("%s is too long (limit: %d items)", tc.name, tc.limit))
			// At the limit, the list is handed to the operation, whatever
			// it then says of it.
			values.Set(tc.name, intList(tc.limit, tc.item))
			res := e.call(tc.method, tc.path, tc.as, values)
			if strings.Contains(res.raw, "items)") {
				t.Errorf("%d items refused: %s", tc.limit, res.raw)
			}
		})
	}
}

// timeoutServer serves the API over a real listener with the given
// options; the hub answers long-polls with heartbeats after heartbeat.
func timeoutServer(t *testing.T, opts httpserver.Options, heartbeat time.Duration) (*httptest.Server, account) {
	t.Helper()
	hub := chat.NewHub(chat.HubOptions{Heartbeat: heartbeat, HeartbeatJitter: time.Millisecond})
	svc := chat.New(memory.New(), chat.Config{PasswordCost: bcrypt.MinCost, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { svc.Close() })
	srv := httptest.NewUnstartedServer(nil)
	org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Org", Host: srv.Listener.Addr().String(), OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	srv.Config.Handler = httpserver.New(svc, opts)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, account{org.UserID, org.Email, org.APIKey}
}

func TestBodyTimeout(t *testing.T) {
	srv, owner := timeoutServer(t, httpserver.Options{BodyTimeout: 200 * time.Millisecond}, time.Minute)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Only 16 of the 100 bytes announced ever arrive.
	fmt.Fprintf(conn, "POST /api/v1/users/me/status HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nstatus_text=slow",
		srv.Listener.Addr(), basic(owner.email, owner.key))
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	defer res.Body.Close()
	var body map[string]any
	json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != http.StatusRequestTimeout || body["code"] != "BAD_REQUEST" || body["msg"] != "Timed out reading the request body" {
		t.Errorf("stalled body: %d %v", res.StatusCode, body)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the stalled body was answered after %v", d)
	}
}

func TestWriteTimeout(t *testing.T) {
	srv, owner := timeoutServer(t, httpserver.Options{WriteTimeout: 700 * time.Millisecond}, 300*time.Millisecond)
	client := srv.Client()
	get := func(path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.SetBasicAuth(owner.email, owner.key)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer res.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return res.StatusCode, body
	}
	// A long-poll shorter than the timeout is answered.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/register", nil)
	req.SetBasicAuth(owner.email, owner.key)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	status, body := get(fmt.Sprintf("/api/v1/events?queue_id=%s&last_event_id=-1", reg["queue_id"]))
	if status != http.StatusOK || !strings.Contains(fmt.Sprint(body["events"]), "heartbeat") {
		t.Errorf("long-poll: %d %v", status, body)
	}
	// The deadline of one request does not outlive it on the kept-alive
	// connection: a later answer, from a route without a deadline, written
	// after it would have passed is delivered. (A raw connection, since
	// the client would retry a GET on a new one.)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	for i, path := range []string{"/api/v1/users/me", "/api/v1/no-such-route"} {
		if i > 0 {
			time.Sleep(time.Second)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n\r\n", path, srv.Listener.Addr(), basic(owner.email, owner.key))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("GET %s on the kept-alive connection: %v", path, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if want := []int{http.StatusOK, http.StatusNotFound}[i]; res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
}
