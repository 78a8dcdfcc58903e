package httpserver_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/memory"
)

// caller is one identity of the authorization matrix.
type caller int

const (
	asOwner caller = iota
	asAdmin
	asModerator
	asMember
	asGuest
	asBot
	asWebhook
	asDeactivated
	asWrongKey
	asNoKey
	asOtherOrg
	numCallers
)

var callerNames = [numCallers]string{
	"owner", "administrator", "moderator", "member", "guest", "bot",
	"webhook bot", "deactivated", "wrong key", "no key", "other organization",
}

// outcome is the expected status, code and message of one call; a zero
// code means a success envelope.
type outcome struct {
	status int
	code   chat.Code
	msg    string
}

var (
	ok           = outcome{status: http.StatusOK}
	needAdmin    = outcome{http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator"}
	needOwner    = outcome{http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner"}
	noGuests     = outcome{http.StatusBadRequest, chat.CodeBadRequest, "Not allowed for guest users"}
	insufficient = outcome{http.StatusBadRequest, chat.CodeBadRequest, "Insufficient permission"}
	noBots       = outcome{http.StatusBadRequest, chat.CodeBadRequest, "This endpoint does not accept bot requests."}

	// What every authenticated route answers to a caller without a usable
	// key, whatever its parameters.
	authFailures = map[caller]outcome{
		asWebhook:     {http.StatusUnauthorized, chat.CodeUnauthorized, "This API is not available to incoming webhook bots."},
		asDeactivated: {http.StatusUnauthorized, chat.CodeUnauthorized, "Account is deactivated"},
		asWrongKey:    {http.StatusUnauthorized, chat.CodeUnauthorized, "Invalid API key"},
		asNoKey:       {http.StatusUnauthorized, chat.CodeUnauthorized, "Not logged in: API authentication or user session required"},
		asOtherOrg:    {http.StatusUnauthorized, chat.CodeUnauthorized, "Account is not associated with this subdomain"},
	}
)

// roles gives the outcome of each authenticated identity (owner to bot):
// the first outcome is the owner's; each later one applies from that role
// down until the next one given. roles(ok, needAdmin) is "owner only";
// roles(ok, ok, needAdmin) is "administrators"; roles(ok) is "everyone".
func roles(from ...outcome) [asBot + 1]outcome {
	var out [asBot + 1]outcome
	for i := range out {
		out[i] = from[min(i, len(from)-1)]
	}
	return out
}

// with replaces the outcome of one identity.
func with(o [asBot + 1]outcome, c caller, v outcome) [asBot + 1]outcome {
	o[c] = v
	return o
}

// matrixFixture is a fresh organization with one row of every kind that a
// route can name, and the identities of the matrix.
type matrixFixture struct {
	*env
	deactivated, otherOrg, target     account
	channel, folder, linkifier, field int64
	domain                            string
	queues                            map[int64]string
}

func (f *matrixFixture) account(c caller) *account {
	switch c {
	case asOwner:
		return &f.owner
	case asAdmin:
		return &f.admin
	case asModerator:
		return &f.moderator
	case asMember:
		return &f.member
	case asGuest:
		return &f.guest
	case asBot:
		return &f.bot
	case asWebhook:
		return &f.webhook
	case asDeactivated:
		return &f.deactivated
	case asWrongKey:
		return &account{f.member.id, f.member.email, strings.Repeat("x", 32)}
	case asOtherOrg:
		return &f.otherOrg
	}
	return nil
}

var matrixSecret = []byte("matrix-secret")

func newMatrixFixture(t *testing.T) *matrixFixture {
	t.Helper()
	video, err := chat.NewJitsiMeet("https://meet.example.org")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.JWTSecret = matrixSecret
		c.VideoCalls = video
	})
	f := &matrixFixture{env: e, queues: map[int64]string{}}
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	orgs, err := e.svc.Orgs(ctx)
	must(err)
	add := func(email string) account {
		res, err := e.svc.ProvisionUser(ctx, orgs[0].ID, chat.NewUser{Email: email, FullName: "Some One"})
		must(err)
		return account{res.UserID, res.Email, res.APIKey}
	}
	f.target = add("target@example.com")
	f.deactivated = add("gone@example.com")
	must(e.svc.DeactivateUser(ctx, e.owner.id, f.deactivated.id))
	other, err := e.svc.CreateOrg(ctx, chat.NewOrg{Name: "Other", Host: "other.example", URL: "http://other.example", OwnerEmail: "boss@other.example", OwnerName: "Other Boss"})
	must(err)
	f.otherOrg = account{other.UserID, other.Email, other.APIKey}

	everyone := []string{}
	for _, a := range []account{e.owner, e.admin, e.moderator, e.member, e.guest, e.bot} {
		everyone = append(everyone, itoa(a.id))
	}
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form(
		"subscriptions", `[{"name":"matrix"}]`, "principals", "["+strings.Join(everyone, ",")+"]"))
	if res.status != http.StatusOK {
		t.Fatalf("creating the channel: %s", res.raw)
	}
	ch, err := e.svc.Channels(ctx, e.owner.id, chat.ChannelQuery{IncludeSubscribed: true})
	must(err)
	for _, c := range ch {
		if c.Name == "matrix" {
			f.channel = c.StreamID
		}
	}
	f.folder, err = e.svc.CreateChannelFolder(ctx, e.owner.id, "Folder", "")
	must(err)
	f.linkifier, err = e.svc.AddLinkifier(ctx, e.owner.id, chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://example.org/{id}"})
	must(err)
	f.field, err = e.svc.CreateProfileField(ctx, e.owner.id, chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText, EditableByUser: true})
	must(err)
	d, err := e.svc.AddRealmDomain(ctx, e.owner.id, "example.net", false)
	must(err)
	f.domain = d.Domain
	return f
}

// queue registers an event queue for a, so that the event routes have one
// to name; callers without a key get a made-up ID.
func (f *matrixFixture) queue(a *account) string {
	if a == nil || a.id == 0 {
		return "no-such-queue"
	}
	if q, ok := f.queues[a.id]; ok {
		return q
	}
	state, err := f.svc.Register(context.Background(), a.id, chat.RegisterRequest{})
	if err != nil {
		return "no-such-queue" // deactivated and foreign callers never get this far
	}
	q, _ := state["queue_id"].(string)
	f.queues[a.id] = q
	return q
}

// matrixRow is one route of the matrix: how to call it with minimal valid
// parameters, and what each authenticated identity gets.
type matrixRow struct {
	path  func(f *matrixFixture) string
	form  func(f *matrixFixture, as *account) url.Values
	roles [asBot + 1]outcome
	// public routes answer every caller alike, including the ones without
	// a usable key.
	public bool
}

func fixed(path string) func(*matrixFixture) string {
	return func(*matrixFixture) string { return path }
}

func params(kv ...string) func(*matrixFixture, *account) url.Values {
	return func(*matrixFixture, *account) url.Values { return form(kv...) }
}

// matrix has one row per registered route, keyed "METHOD /pattern".
var matrix = map[string]matrixRow{
	"GET /server_settings": {path: fixed("/server_settings"), roles: roles(ok), public: true},
	"POST /fetch_api_key": {path: fixed("/fetch_api_key"), public: true, roles: roles(ok),
		form: params("username", "member@example.com", "password", "member-password")},
	"POST /jwt/fetch_api_key": {path: fixed("/jwt/fetch_api_key"), public: true, roles: roles(ok),
		form: func(*matrixFixture, *account) url.Values {
			token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": "member@example.com"}).SignedString(matrixSecret)
			return form("token", token)
		}},

	"GET /users":    {path: fixed("/users"), roles: roles(ok)},
	"POST /users":   {path: fixed("/users"), roles: roles(ok, ok, needAdmin), form: params("email", "new@example.com", "password", "a-long-password", "full_name", "New One")},
	"GET /users/me": {path: fixed("/users/me"), roles: roles(ok)},
	"GET /users/{user}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"PATCH /users/{user}": {roles: roles(ok, ok, insufficient), form: params("full_name", "Renamed"),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"DELETE /users/{user}": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"POST /users/{user_id}/reactivate": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.deactivated.id) + "/reactivate" }},

	"GET /realm/profile_fields":  {path: fixed("/realm/profile_fields"), roles: roles(ok)},
	"POST /realm/profile_fields": {path: fixed("/realm/profile_fields"), roles: roles(ok, ok, needAdmin), form: params("name", "Pronouns", "field_type", "1")},
	"POST /users/me/status":      {path: fixed("/users/me/status"), roles: with(roles(ok), asBot, noBots), form: params("status_text", "busy")},
	"PATCH /users/me/profile_data": {path: fixed("/users/me/profile_data"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("data", fmt.Sprintf(`[{"id":%d,"value":"12345"}]`, f.field))
		}},
	"PATCH /settings":                     {path: fixed("/settings"), roles: with(roles(ok), asBot, noBots), form: params("presence_enabled", "false")},
	"PATCH /realm/user_settings_defaults": {path: fixed("/realm/user_settings_defaults"), roles: roles(ok, ok, needAdmin), form: params("email_address_visibility", "1")},

	"POST /register": {path: fixed("/register"), roles: roles(ok)},
	"GET /events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("queue_id", f.queue(as), "last_event_id", "-1", "dont_block", "true")
		}},
	"DELETE /events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("queue_id", f.queue(as)) }},
	"POST /typing": {path: fixed("/typing"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("op", "start", "to", "["+itoa(f.target.id)+"]")
		}},

	"GET /users/me/subscriptions":  {path: fixed("/users/me/subscriptions"), roles: roles(ok)},
	"POST /users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: with(roles(ok), asGuest, noGuests), form: params("subscriptions", `[{"name":"brand new"}]`)},
	"DELETE /users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: roles(ok),
		form: params("subscriptions", `["matrix"]`)},
	"POST /users/me/subscriptions/properties": {path: fixed("/users/me/subscriptions/properties"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("subscription_data", fmt.Sprintf(`[{"stream_id":%d,"property":"is_muted","value":true}]`, f.channel))
		}},
	"PATCH /users/me/subscriptions/muted_topics": {path: fixed("/users/me/subscriptions/muted_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "op", "add")
		}},
	"PATCH /users/me/subscriptions/{stream_id}": {roles: roles(ok), form: params("property", "pin_to_top", "value", "true"),
		path: func(f *matrixFixture) string { return "/users/me/subscriptions/" + itoa(f.channel) }},
	"POST /user_topics": {path: fixed("/user_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "visibility_policy", "1")
		}},
	"GET /streams": {path: fixed("/streams"), roles: roles(ok)},
	"GET /streams/{stream_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) }},
	"POST /streams/{stream_id}/delete_topic": {roles: roles(ok, ok, needAdmin), form: params("topic_name", "lunch"),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/delete_topic" }},
	"GET /channel_folders":         {path: fixed("/channel_folders"), roles: roles(ok)},
	"POST /channel_folders/create": {path: fixed("/channel_folders/create"), roles: roles(ok, ok, needAdmin), form: params("name", "Another", "description", "")},
	"PATCH /channel_folders/{channel_folder_id}": {roles: roles(ok, ok, needAdmin), form: params("name", "Renamed"),
		path: func(f *matrixFixture) string { return "/channel_folders/" + itoa(f.folder) }},
	"GET /user_groups": {path: fixed("/user_groups"), roles: roles(ok)},

	"PATCH /realm":          {path: fixed("/realm"), roles: roles(ok, ok, needAdmin), form: params("name", "Renamed Org")},
	"GET /realm/linkifiers": {path: fixed("/realm/linkifiers"), roles: roles(ok)},
	"GET /realm/filters":    {path: fixed("/realm/filters"), roles: roles(ok)},
	"POST /realm/filters":   {path: fixed("/realm/filters"), roles: roles(ok, ok, needAdmin), form: params("pattern", `T(?P<id>[0-9]+)`, "url_template", "https://example.org/t/{id}")},
	"PATCH /realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin), form: params("pattern", `U(?P<id>[0-9]+)`, "url_template", "https://example.org/u/{id}"),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"DELETE /realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"GET /realm/domains":  {path: fixed("/realm/domains"), roles: roles(ok)},
	"POST /realm/domains": {path: fixed("/realm/domains"), roles: roles(ok, needOwner), form: params("domain", "example.com", "allow_subdomains", "false")},
	"PATCH /realm/domains/{domain}": {roles: roles(ok, needOwner), form: params("allow_subdomains", "true"),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"DELETE /realm/domains/{domain}": {roles: roles(ok, needOwner),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"POST /calls/videocall/create": {path: fixed("/calls/videocall/create"), roles: roles(ok)},
}

// TestAuthorizationMatrix calls every registered route as every identity,
// each call on a fresh organization so that no call sees another's
// writes, and checks the status, code and message. A route registered
// without a row here fails the test.
func TestAuthorizationMatrix(t *testing.T) {
	registered := httpserver.RegisteredRoutes(newEnv(t).h.(*httpserver.Server))
	var missing []string
	for route, access := range registered {
		row, found := matrix[route]
		if !found {
			missing = append(missing, route)
			continue
		}
		if row.public != (access == "public") {
			t.Errorf("%s is registered as %s, but its row says public=%v", route, access, row.public)
		}
	}
	slices.Sort(missing)
	for _, route := range missing {
		t.Errorf("route %s has no row in the authorization matrix", route)
	}
	for route := range matrix {
		if _, found := registered[route]; !found {
			t.Errorf("matrix row %s names no registered route", route)
		}
	}

	// A call that succeeds may change what the next caller finds, so it
	// gets an organization of its own; reads, public routes and refused
	// calls change nothing and share one per route.
	var calls, fixtures atomic.Int64
	t.Run("routes", func(t *testing.T) {
		for _, route := range slices.Sorted(maps.Keys(matrix)) {
			if _, found := registered[route]; !found {
				continue
			}
			row := matrix[route]
			method, _, _ := strings.Cut(route, " ")
			t.Run(route, func(t *testing.T) {
				t.Parallel()
				var shared *matrixFixture
				for c := range numCallers {
					want := authFailures[c]
					if row.public {
						want = row.roles[asMember]
					} else if c <= asBot {
						want = row.roles[c]
					}
					f := shared
					if fresh := method != http.MethodGet && !row.public && want.code == ""; fresh || f == nil {
						f = newMatrixFixture(t)
						fixtures.Add(1)
						if !fresh {
							shared = f
						}
					}
					as := f.account(c)
					var values url.Values
					if row.form != nil {
						values = row.form(f, as)
					}
					res := f.call(method, row.path(f), as, values)
					calls.Add(1)
					if res.status != want.status || (want.code != "" && (res.body["code"] != string(want.code) || res.body["msg"] != want.msg)) ||
						(want.code == "" && res.body["result"] != "success") {
						t.Errorf("as %s: got %d %s, want %d %s %q", callerNames[c], res.status, strings.TrimSpace(res.raw), want.status, want.code, want.msg)
					}
				}
			})
		}
	})
	t.Logf("%d routes, %d calls on %d organizations", len(registered), calls.Load(), fixtures.Load())
}
