package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/internal/gcpace"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is a running `chatd serve`.
type server struct {
	stdout, stderr *syncBuffer
	stop           context.CancelFunc
	done           chan error
}

func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stdout: &syncBuffer{}, stderr: &syncBuffer{}, stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, append([]string{"serve"}, args...), s.stdout, s.stderr) }()
	t.Cleanup(func() { s.shutdown(t) })
	return s
}

// addr waits for the server to log its address.
func (s *server) addr(t *testing.T) string {
	t.Helper()
	re := regexp.MustCompile(`addr=http://(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-s.done:
			t.Fatalf("chatd serve exited: %v\n%s", err, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("chatd serve did not start:\n%s", s.stderr)
	return ""
}

func (s *server) shutdown(t *testing.T) {
	t.Helper()
	if s.stop == nil {
		return
	}
	s.stop()
	s.stop = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("chatd serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("chatd serve did not shut down")
	}
}

func getUsers(t *testing.T, addr, email, key string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/users", nil)
	req.SetBasicAuth(email, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

func TestServeFirstRunPrintsWorkingCredentials(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, "--data", dir, "--listen", "127.0.0.1:0")
	addr := s.addr(t)
	out := s.stdout.String()
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) http://(\S+)/api/v1/users`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no curl line in the first-start output:\n%s", out)
	}
	email, key := m[1], m[2]
	if m[3] != addr {
		t.Errorf("curl line names %s, server listens on %s", m[3], addr)
	}
	status, body := getUsers(t, addr, email, key)
	if status != http.StatusOK || len(body["members"].([]any)) != 1 {
		t.Fatalf("GET /users: %d %v", status, body)
	}
	// A default channel, with the notification bot's message of its
	// creation: the reference's terminal client cannot open an
	// organization without a message.
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+`/api/v1/messages?anchor=newest&num_before=5&num_after=0&narrow=[{"operator":"channel","operand":"general"}]`, nil)
	req.SetBasicAuth(email, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var msgs struct {
		Messages []struct {
			Subject string `json:"subject"`
		} `json:"messages"`
	}
	err = json.NewDecoder(res.Body).Decode(&msgs)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || len(msgs.Messages) != 1 || msgs.Messages[0].Subject != "channel events" {
		t.Errorf("messages of #general: %d %+v %v", res.StatusCode, msgs, err)
	}
	s.shutdown(t)

	// A restart keeps the data and does not create another organization.
	s = startServe(t, "--data", dir, "--listen", "127.0.0.1:0")
	addr = s.addr(t)
	if status, _ := getUsers(t, addr, email, key); status != http.StatusOK {
		t.Errorf("after restart: status %d", status)
	}
	if strings.Contains(s.stdout.String(), "First start") {
		t.Errorf("second start created an organization again:\n%s", s.stdout)
	}
}

func TestCreateOrgAndCreateUser(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := run(context.Background(), []string{"create-org", "--data", dir, "--name", "Acme",
		"--owner-email", "boss@acme.example", "--owner-name", "The Boss", "--host", "chat.acme.example"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var org struct {
		RealmID  int64  `json:"realm_id"`
		RealmURL string `json:"realm_url"`
		UserID   int64  `json:"user_id"`
		Email    string `json:"email"`
		APIKey   string `json:"api_key"`
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&org); err != nil {
		t.Fatalf("create-org output: %v", err)
	}
	if org.RealmID != 1 || org.RealmURL != "http://chat.acme.example" || org.UserID != 1 ||
		org.Email != "boss@acme.example" || len(org.APIKey) != 32 {
		t.Errorf("create-org printed %+v", org)
	}

	out.Reset()
	t.Setenv("CHATD_ROLE", "admin")
	err = run(context.Background(), []string{"create-user", "--data", dir,
		"--email", "second@acme.example", "--name", "Second Person"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var user map[string]any
	if err := json.Unmarshal(out.Bytes(), &user); err != nil {
		t.Fatal(err)
	}
	if user["user_id"] != float64(2) || user["email"] != "second@acme.example" || len(user["api_key"].(string)) != 32 {
		t.Errorf("create-user printed %v", user)
	}

	// The server sees both, and the role came from CHATD_ROLE.
	s := startServe(t, "--data", dir, "--listen", "127.0.0.1:0")
	_, body := getUsers(t, s.addr(t), "second@acme.example", user["api_key"].(string))
	members := body["members"].([]any)
	if len(members) != 2 || members[1].(map[string]any)["role"] != float64(200) {
		t.Errorf("members: %v", members)
	}
}

func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"no-such-command"},
		{"create-org", "--data", dir},
		{"create-org", "--data", dir, "--name", "X", "--owner-email", "bad", "--owner-name", "Some One"},
		{"create-user", "--data", dir, "--email", "a@b.example", "--name", "Some One", "--role", "king"},
		{"serve", "--store", "floppy"},
		{"serve", "--store", "postgres", "--dsn", ""},
		{"serve", "stray-argument"},
		{"serve", "--max-upload-mib", "0"},
		{"serve", "--gc-headroom-mib", "-1"},
		{"serve", "--gc-headroom-mib", "1048577"},
		{"serve", "--push-relay-url", "ftp://relay.example"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("chatd %v succeeded", args)
		}
	}
}

// TestServePacesTheCollector: serve lets the heap grow by --gc-headroom-mib
// between collections while it runs, and leaves GOGC alone when the
// operator set it.
func TestServePacesTheCollector(t *testing.T) {
	t.Setenv("GOGC", "") // restored after the test
	os.Unsetenv("GOGC")
	for _, c := range []struct {
		name    string
		env     string // GOGC, or empty
		args    []string
		raising bool
	}{
		{"default", "", nil, true},
		{"headroom", "", []string{"--gc-headroom-mib", "512"}, true},
		{"off", "", []string{"--gc-headroom-mib", "0"}, false},
		{"GOGC set", "100", []string{"--gc-headroom-mib", "512"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("GOGC", c.env)
			}
			s := startServe(t, append([]string{"--store", "memory", "--listen", "127.0.0.1:0"}, c.args...)...)
			s.addr(t)
			if got := gcpace.Current(); (got > 100) != c.raising {
				t.Errorf("GOGC while serving: %d; want above 100: %v", got, c.raising)
			}
			s.shutdown(t)
			if got := gcpace.Current(); got != 100 {
				t.Errorf("GOGC after serving: %d, want 100", got)
			}
		})
	}
}

func TestServeUploadsAndPush(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CHATD_MAX_UPLOAD_MIB", "1")
	s := startServe(t, "--data", dir, "--listen", "127.0.0.1:0", "--push-relay-url", "http://127.0.0.1:1/relay")
	addr := s.addr(t)
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) `).FindStringSubmatch(s.stdout.String())
	if m == nil {
		t.Fatalf("no credentials in the output:\n%s", s.stdout)
	}
	post := func(size int) (int, map[string]any) {
		t.Helper()
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "data.bin")
		fw.Write(bytes.Repeat([]byte("x"), size))
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v1/user_uploads", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.SetBasicAuth(m[1], m[2])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	status, out := post(1 << 20)
	url, _ := out["url"].(string)
	if status != http.StatusOK || !strings.HasPrefix(url, "/user_uploads/1/") {
		t.Fatalf("upload: %d %v", status, out)
	}
	// The file is in the data directory, at its path.
	if fi, err := os.Stat(filepath.Join(dir, "uploads", filepath.FromSlash(strings.TrimPrefix(url, "/user_uploads/")))); err != nil || fi.Size() != 1<<20 {
		t.Errorf("stored file: %v", err)
	}
	// The limit came from CHATD_MAX_UPLOAD_MIB.
	if status, out := post(1<<20 + 1); status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["msg"]), "(1 MiB)") {
		t.Errorf("upload over the limit: %d %v", status, out)
	}
	res, err := http.Get("http://" + addr + "/api/v1/server_settings")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var settings map[string]any
	json.NewDecoder(res.Body).Decode(&settings)
	if settings["push_notifications_enabled"] != true {
		t.Errorf("push_notifications_enabled with --push-relay-url: %v", settings["push_notifications_enabled"])
	}
}

func TestEnvName(t *testing.T) {
	if got := envName("max-upload-mib"); got != "CHATD_MAX_UPLOAD_MIB" {
		t.Errorf("envName = %q", got)
	}
}
