package httpserver_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// host is the organization's host in every test request.
const host = "localhost:9991"

// joined is the fixed clock of the tests, and so every date_joined.
var joined = time.Date(2025, 3, 30, 12, 34, 56, 0, time.UTC)

const joinedWire = "2025-03-30T12:34+00:00"

// account is a user the tests act as.
type account struct {
	id    int64
	email string
	key   string
}

// env is a server over the in-memory store with one organization whose
// users cover every role, a bot, and each email-visibility setting.
type env struct {
	t   testing.TB
	svc *chat.Service
	h   http.Handler
	log *bytes.Buffer

	owner, admin, moderator, member, guest account
	bot, webhook                           account
	// hidden users, by email visibility.
	membersOnly, adminsOnly, modsOnly, nobody account
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWithStore(t, memory.New())
}

func newEnvWithStore(t testing.TB, store storage.Store) *env {
	t.Helper()
	return newEnvWith(t, store, nil)
}

// newEnvWith builds the env over store; configure, when not nil, changes
// the service's Config before the service is made.
func newEnvWith(t testing.TB, store storage.Store, configure func(*chat.Config)) *env {
	t.Helper()
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	cfg := chat.Config{
		Now:          func() time.Time { return joined },
		PasswordCost: bcrypt.MinCost,
		Logger:       logger,
		APIKeySecret: []byte("test secret of the API keys"),
	}
	if configure != nil {
		configure(&cfg)
	}
	svc := chat.New(store, cfg)
	t.Cleanup(func() { svc.Close() })
	e := &env{t: t, svc: svc, h: validated(t, httpserver.New(svc, httpserver.Options{Logger: logger})), log: logs}
	ctx := context.Background()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Test Org", Host: host, URL: "http://" + host,
		OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner", OwnerPassword: "owner-password",
	})
	if err != nil {
		t.Fatalf("creating the organization: %v (%s)", err, logs)
	}
	e.owner = account{org.UserID, org.Email, org.APIKey}
	add := func(u chat.NewUser) account {
		t.Helper()
		res, err := svc.ProvisionUser(ctx, org.RealmID, u)
		if err != nil {
			t.Fatalf("provisioning %s: %v", u.Email, err)
		}
		return account{res.UserID, res.Email, res.APIKey}
	}
	e.admin = add(chat.NewUser{Email: "admin@example.com", FullName: "Adam Admin", Role: chat.RoleAdmin, Password: "admin-password"})
	e.moderator = add(chat.NewUser{Email: "moderator@example.com", FullName: "Mona Moderator", Role: chat.RoleModerator})
	e.member = add(chat.NewUser{Email: "member@example.com", FullName: "Mel Member", Password: "member-password", Timezone: "Europe/Berlin"})
	e.guest = add(chat.NewUser{Email: "guest@example.com", FullName: "Gus Guest", Role: chat.RoleGuest})
	e.bot = add(chat.NewUser{Email: "helper-bot@example.com", FullName: "Helper Bot", BotType: chat.BotGeneric, BotOwnerID: e.member.id})
	e.webhook = add(chat.NewUser{Email: "hook-bot@example.com", FullName: "Hook Bot", BotType: chat.BotIncomingWebhook})
	e.membersOnly = add(chat.NewUser{Email: "Members.Only@example.com", FullName: "Members Only", EmailVisibility: chat.EmailVisibleMembers})
	e.adminsOnly = add(chat.NewUser{Email: "admins.only@example.com", FullName: "Admins Only", EmailVisibility: chat.EmailVisibleAdmins})
	e.modsOnly = add(chat.NewUser{Email: "mods.only@example.com", FullName: "Mods Only", EmailVisibility: chat.EmailVisibleModerators})
	e.nobody = add(chat.NewUser{Email: "nobody@example.com", FullName: "No Body", EmailVisibility: chat.EmailVisibleNobody})
	return e
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// request builds a request to the API with Basic credentials (when as is
// not nil) and form values encoded in the body (POST, PATCH, DELETE) or in
// the query string (GET).
func (e *env) request(method, path string, as *account, form url.Values) *http.Request {
	target := httpserver.Prefix + path
	var body io.Reader
	if method == http.MethodGet || method == http.MethodHead {
		if len(form) > 0 {
			target += "?" + form.Encode()
		}
	} else if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, "http://"+host+target, body)
	if body != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if as != nil {
		r.SetBasicAuth(as.email, as.key)
	}
	return r
}

// do serves r and decodes the answer, checking the invariants of every
// answer: JSON with a trailing newline and a matching Content-Length.
func (e *env) do(r *http.Request) response {
	e.t.Helper()
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	res := response{status: w.Code, header: w.Header(), raw: w.Body.String()}
	if r.Method == http.MethodHead || w.Code == http.StatusNoContent {
		return res
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		e.t.Fatalf("%s %s: Content-Type %q, body %s", r.Method, r.URL, ct, res.raw)
	}
	if !strings.HasSuffix(res.raw, "}\n") {
		e.t.Errorf("%s %s: body does not end in a newline: %q", r.Method, r.URL, res.raw)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &res.body); err != nil {
		e.t.Fatalf("%s %s: body is not JSON: %v\n%s", r.Method, r.URL, err, res.raw)
	}
	return res
}

// call is request + do.
func (e *env) call(method, path string, as *account, form url.Values) response {
	e.t.Helper()
	return e.do(e.request(method, path, as, form))
}

// expect checks the status and the whole body.
func (e *env) expect(res response, status int, body map[string]any) {
	e.t.Helper()
	if res.status != status {
		e.t.Errorf("status %d, want %d; body %s", res.status, status, res.raw)
	}
	if diff := cmp.Diff(body, res.body); diff != "" {
		e.t.Errorf("body mismatch (-want +got):\n%s", diff)
	}
}

// expectError checks an error answer: status, code and message, and any
// extra envelope fields given.
func (e *env) expectError(res response, status int, code chat.Code, msg string, extra ...any) {
	e.t.Helper()
	want := map[string]any{"result": "error", "code": string(code), "msg": msg}
	for i := 0; i+1 < len(extra); i += 2 {
		want[extra[i].(string)] = extra[i+1]
	}
	e.expect(res, status, want)
}

// success is the success envelope with data fields added.
func success(kv ...any) map[string]any {
	m := map[string]any{"result": "success", "msg": ""}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func gravatar(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon&version=1"
}

// userJSON is the decoded wire form of a user object; opts tune it.
type userOpt func(map[string]any)

func hiddenEmail(id int64) userOpt {
	return func(m map[string]any) {
		m["delivery_email"] = nil
		m["email"] = fmt.Sprintf("user%d@localhost", id)
	}
}

func placeholderOnly(id int64) userOpt {
	return func(m map[string]any) { m["email"] = fmt.Sprintf("user%d@localhost", id) }
}

func withAvatar(email string) userOpt {
	return func(m map[string]any) { m["avatar_url"] = gravatar(email) }
}

func withProfileData() userOpt {
	return func(m map[string]any) { m["profile_data"] = map[string]any{} }
}

func set(key string, v any) userOpt { return func(m map[string]any) { m[key] = v } }

// userJSON builds the expected wire object of a human with the given role,
// as seen by someone who may see the address, with client_gravatar on.
func userJSON(a account, name string, role chat.Role, opts ...userOpt) map[string]any {
	m := map[string]any{
		"user_id":          float64(a.id),
		"delivery_email":   a.email,
		"email":            a.email,
		"full_name":        name,
		"date_joined":      joinedWire,
		"is_active":        true,
		"is_owner":         role == chat.RoleOwner,
		"is_admin":         role == chat.RoleOwner || role == chat.RoleAdmin,
		"is_guest":         role == chat.RoleGuest,
		"is_bot":           false,
		"bot_type":         nil,
		"role":             float64(role),
		"timezone":         "",
		"avatar_url":       nil,
		"avatar_version":   float64(1),
		"is_imported_stub": false,
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

func botJSON(a account, name string, botType chat.BotType, owner any, opts ...userOpt) map[string]any {
	m := userJSON(a, name, chat.RoleMember, opts...)
	m["is_bot"] = true
	m["bot_type"] = float64(botType)
	m["bot_owner_id"] = owner
	return m
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func multipartBody(t *testing.T, kv ...string) (string, *bytes.Buffer) {
	t.Helper()
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	for i := 0; i+1 < len(kv); i += 2 {
		if err := w.WriteField(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), buf
}

// httpserverNew returns a handler over another store that logs to e's log.
func httpserverNew(t *testing.T, store storage.Store, e *env) http.Handler {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(e.log, nil))
	svc := chat.New(store, chat.Config{Logger: logger, PasswordCost: bcrypt.MinCost})
	return validated(t, httpserver.New(svc, httpserver.Options{Logger: logger}))
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
