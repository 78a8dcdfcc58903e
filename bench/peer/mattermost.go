package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/websocket"

	"github.com/teamchat/chat/bench/internal/chatdproc"
)

// mattermostBinary returns the peer's binary: bin if given, else
// bin/mattermost of the snapshot in dir, built there first when missing.
// The snapshot's release tag vendors its dependencies, so the build needs
// no network (about 6 minutes on 2 cores).
func mattermostBinary(dir, bin string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(dir, "bin", "mattermost")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	logf("building %s (a few minutes)", bin)
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mattermost")
	cmd.Dir = dir
	// Its go.mod names an older Go; the local toolchain builds it, and its
	// vendor directory provides every dependency.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=vendor", "GOTOOLCHAIN=local", "GOPROXY=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the peer: %w", err)
	}
	return bin, nil
}

// mattermostTarget is the peer, Mattermost, driven through its API v4 at
// /api/v4 with session tokens, and its WebSocket for listeners.
type mattermostTarget struct {
	cmd  *exec.Cmd
	pid  int
	dir  string
	base string // http://127.0.0.1:PORT/api/v4
	http *http.Client
	dbs  *databases

	admin         session
	users         []session // by number; tokens for the first sessions only
	team          string
	channels      [3]string // IDs, by channel
	listUserPages int
}

// session is a user's ID and, once logged in, a session token.
type session struct{ id, token string }

// startMattermost starts the peer on a database of its own, from the
// snapshot's directory (it finds its translations and e-mail templates
// relative to its working directory), configured by environment variables
// over the defaults: no rate limits, plugins, e-mail, push notifications,
// or diagnostics; teams of up to 20 000 users; logs to stderr only, at
// warnings and above.
func startMattermost(ctx context.Context, bin, srcDir string, dbs *databases) (*mattermostTarget, error) {
	dsn, err := dbs.create(ctx, "peer_mattermost")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "peer-mattermost-")
	if err != nil {
		return nil, err
	}
	port, err := chatdproc.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin)
	if srcDir == "" {
		srcDir = filepath.Dir(filepath.Dir(bin))
	}
	cmd.Dir = srcDir
	cmd.Env = append(os.Environ(),
		"MM_CONFIG="+filepath.Join(dir, "config.json"),
		"MM_SQLSETTINGS_DRIVERNAME=postgres",
		"MM_SQLSETTINGS_DATASOURCE="+dsn,
		// Its default, 300, is more than the throwaway PostgreSQL server's
		// limit of 200 connections, shared with chatd.
		"MM_SQLSETTINGS_MAXOPENCONNS=100",
		"MM_SERVICESETTINGS_LISTENADDRESS="+addr,
		"MM_SERVICESETTINGS_SITEURL=http://"+addr,
		"MM_SERVICESETTINGS_ENABLESECURITYFIXALERT=false",
		"MM_RATELIMITSETTINGS_ENABLE=false",
		"MM_PLUGINSETTINGS_ENABLE=false",
		"MM_TEAMSETTINGS_MAXUSERSPERTEAM=20000",
		"MM_FILESETTINGS_DIRECTORY="+filepath.Join(dir, "data")+"/",
		"MM_LOGSETTINGS_ENABLEFILE=false",
		"MM_LOGSETTINGS_CONSOLELEVEL=WARN",
		"MM_LOGSETTINGS_ENABLEDIAGNOSTICS=false",
		"MM_EMAILSETTINGS_SENDEMAILNOTIFICATIONS=false",
		"MM_EMAILSETTINGS_SENDPUSHNOTIFICATIONS=false",
	)
	logFile, err := os.Create(filepath.Join(dir, "mattermost.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &mattermostTarget{cmd: cmd, pid: cmd.Process.Pid, dir: dir, dbs: dbs,
		base: "http://" + addr + "/api/v4",
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	// Its first start creates its tables: seconds, up to a minute on a
	// loaded machine.
	for deadline := time.Now().Add(3 * time.Minute); ; {
		if err := t.call(session{}, http.MethodGet, "/system/ping", nil, nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Stop()
			return nil, fmt.Errorf("mattermost did not answer (log: %s)", logFile.Name())
		}
		time.Sleep(500 * time.Millisecond)
	}
	return t, nil
}

func (t *mattermostTarget) Name() string { return "Mattermost" }

func (t *mattermostTarget) PID() int { return t.pid }

func (t *mattermostTarget) Stop() {
	t.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { t.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(t.dir)
}

func (t *mattermostTarget) CPU() (server, database time.Duration) {
	server, _, _, _ = procCPU(t.pid)
	return server, t.dbs.databaseCPU()
}

// call sends a request with body encoded as JSON, as the session when it
// has a token, and decodes the answer into out when out is not nil.
// Answers other than 200 and 201 are errors. It returns the answer's
// headers.
func (t *mattermostTarget) call(as session, method, path string, body, out any) error {
	_, err := t.callHeader(as, method, path, body, out)
	return err
}

func (t *mattermostTarget) callHeader(as session, method, path string, body, out any) (http.Header, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, t.base+path, r)
	if err != nil {
		return nil, err
	}
	if as.token != "" {
		req.Header.Set("Authorization", "Bearer "+as.token)
	}
	// Mattermost refuses requests that change state without this header
	// or a CSRF token, when they carry a session cookie; with a bearer
	// token it is not needed, but its own clients send it.
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	res, err := t.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		return res.Header, json.Unmarshal(b, out)
	}
	return res.Header, nil
}

func (t *mattermostTarget) username(i int) string { return fmt.Sprintf("peer%05d", i) }

func (t *mattermostTarget) createUser(name string) (string, error) {
	var u struct {
		ID string `json:"id"`
	}
	err := t.call(t.admin, http.MethodPost, "/users", map[string]string{"email": name + "@example.com",
		"username": name, "password": password}, &u)
	return u.ID, err
}

func (t *mattermostTarget) login(name string) (string, error) {
	h, err := t.callHeader(session{}, http.MethodPost, "/users/login", map[string]string{"login_id": name, "password": password}, nil)
	if err != nil {
		return "", err
	}
	return h.Get("Token"), nil
}

func (t *mattermostTarget) Setup(s shape) error {
	// The first user becomes the system administrator.
	var err error
	if t.admin.id, err = t.createUser("peeradmin"); err != nil {
		return err
	}
	if t.admin.token, err = t.login("peeradmin"); err != nil {
		return err
	}
	var team struct {
		ID string `json:"id"`
	}
	if err := t.call(t.admin, http.MethodPost, "/teams", map[string]string{"name": "bench", "display_name": "Bench", "type": "O"}, &team); err != nil {
		return err
	}
	t.team = team.ID
	t.users = make([]session, s.users)
	if err := each(s.users, 8, func(i int) error {
		var err error
		t.users[i].id, err = t.createUser(t.username(i))
		return err
	}); err != nil {
		return err
	}
	// Team members in batches, as its own clients add them.
	for i := 0; i < s.users; i += 100 {
		var batch []map[string]string
		for _, u := range t.users[i:min(i+100, s.users)] {
			batch = append(batch, map[string]string{"team_id": t.team, "user_id": u.id})
		}
		if err := t.call(t.admin, http.MethodPost, "/teams/"+t.team+"/members/batch", batch, nil); err != nil {
			return err
		}
	}
	for c, n := range s.channelUsers() {
		var ch struct {
			ID string `json:"id"`
		}
		if err := t.call(t.admin, http.MethodPost, "/channels", map[string]string{"team_id": t.team, "name": c.name(),
			"display_name": c.name(), "type": "O"}, &ch); err != nil {
			return err
		}
		t.channels[c] = ch.ID
		// This version adds one member a request.
		if err := each(n, 8, func(i int) error {
			return t.call(t.admin, http.MethodPost, "/channels/"+ch.ID+"/members", map[string]string{"user_id": t.users[i].id}, nil)
		}); err != nil {
			return err
		}
	}
	t.listUserPages = (s.users + 199) / 200
	return each(s.sessions, 8, func(i int) error {
		var err error
		t.users[i].token, err = t.login(t.username(i))
		return err
	})
}

func (t *mattermostTarget) as(u int) session {
	if u < 0 {
		return t.admin
	}
	return t.users[u]
}

func (t *mattermostTarget) Post(u int, c channel, text string) (string, error) {
	var p struct {
		ID string `json:"id"`
	}
	err := t.call(t.as(u), http.MethodPost, "/posts", map[string]string{"channel_id": t.channels[c], "message": text}, &p)
	return p.ID, err
}

func (t *mattermostTarget) React(u int, message string) error {
	return t.call(t.as(u), http.MethodPost, "/reactions", map[string]string{"user_id": t.as(u).id, "post_id": message, "emoji_name": "smile"}, nil)
}

// ListUsers reads the users 200 at a time, its API's largest page, as its
// clients do: five requests for 1 000 users.
func (t *mattermostTarget) ListUsers() error {
	for p := range t.listUserPages {
		var users []json.RawMessage
		if err := t.call(t.admin, http.MethodGet, fmt.Sprintf("/users?page=%d&per_page=200", p), nil, &users); err != nil {
			return err
		}
		if len(users) == 0 {
			return fmt.Errorf("GET /users page %d: %d users", p, len(users))
		}
	}
	return nil
}

func (t *mattermostTarget) Newest50() error {
	var res struct {
		Order []string `json:"order"`
	}
	err := t.call(t.admin, http.MethodGet, "/channels/"+t.channels[bigChannel]+"/posts?page=0&per_page=50", nil, &res)
	if err == nil && len(res.Order) != 50 {
		err = fmt.Errorf("GET posts: %d posts, not 50", len(res.Order))
	}
	return err
}

func (t *mattermostTarget) CreateUser(i int) error {
	_, err := t.createUser(t.username(i))
	return err
}

// wsEvent is the part of a WebSocket event the listeners read; a posted
// event's post is a JSON document in a string.
type wsEvent struct {
	Event string `json:"event"`
	Data  struct {
		Post string `json:"post"`
	} `json:"data"`
}

// Listen opens the WebSocket of each of the first n users, authenticated
// by its token, and returns once each has had the server's hello.
func (t *mattermostTarget) Listen(n int, got func(int, string)) (func(), error) {
	conns := make([]*websocket.Conn, n)
	stop := func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}
	origin := strings.TrimSuffix(t.base, "/api/v4")
	err := each(n, 8, func(i int) error {
		cfg, err := websocket.NewConfig("ws"+strings.TrimPrefix(t.base, "http")+"/websocket", origin)
		if err != nil {
			return err
		}
		cfg.Header.Set("Authorization", "Bearer "+t.users[i].token)
		c, err := websocket.DialConfig(cfg)
		if err != nil {
			return err
		}
		conns[i] = c
		var hello wsEvent
		if err := websocket.JSON.Receive(c, &hello); err != nil {
			return err
		}
		if hello.Event != "hello" {
			return fmt.Errorf("websocket: first event %q, not hello", hello.Event)
		}
		return nil
	})
	if err != nil {
		stop()
		return nil, err
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			for {
				var e wsEvent
				if err := websocket.JSON.Receive(c, &e); err != nil {
					return
				}
				if e.Event != "posted" {
					continue
				}
				var p struct {
					Message string `json:"message"`
				}
				if json.Unmarshal([]byte(e.Data.Post), &p) == nil {
					got(i, p.Message)
				}
			}
		})
	}
	return func() { stop(); wg.Wait() }, nil
}
