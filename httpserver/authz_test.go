package httpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/pushrelay"
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
// code means a success envelope. A bare outcome is an answer outside the
// JSON envelope (a file, a tus answer): only its status is checked, and
// its body when msg is set.
type outcome struct {
	status int
	code   chat.Code
	msg    string
	bare   bool
}

var (
	ok           = outcome{status: http.StatusOK}
	needAdmin    = outcome{status: http.StatusBadRequest, code: chat.CodeUnauthorizedPrincipal, msg: "Must be an organization administrator"}
	needOwner    = outcome{status: http.StatusBadRequest, code: chat.CodeUnauthorizedPrincipal, msg: "Must be an organization owner"}
	noGuests     = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "Not allowed for guest users"}
	insufficient = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "Insufficient permission"}
	noBots       = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "This endpoint does not accept bot requests."}
	cannotDelete = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "You don't have permission to delete this message"}
	cannotEdit   = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "You don't have permission to edit this message"}
	served       = outcome{status: http.StatusOK, bare: true}
	created      = outcome{status: http.StatusCreated, bare: true}
	patched      = outcome{status: http.StatusNoContent, bare: true}

	// What every authenticated route answers to a caller without a usable
	// key, whatever its parameters.
	authFailures = map[caller]outcome{
		asWebhook:     {status: http.StatusUnauthorized, code: chat.CodeUnauthorized, msg: "This API is not available to incoming webhook bots."},
		asDeactivated: {status: http.StatusUnauthorized, code: chat.CodeUnauthorized, msg: "Account is deactivated"},
		asWrongKey:    {status: http.StatusUnauthorized, code: chat.CodeUnauthorized, msg: "Invalid API key"},
		asNoKey:       {status: http.StatusUnauthorized, code: chat.CodeUnauthorized, msg: "Not logged in: API authentication or user session required"},
		asOtherOrg:    {status: http.StatusUnauthorized, code: chat.CodeUnauthorized, msg: "Account is not associated with this subdomain"},
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

// each gives the outcome of every authenticated identity, owner to bot.
func each(owner, admin, moderator, member, guest, bot outcome) [asBot + 1]outcome {
	return [asBot + 1]outcome{owner, admin, moderator, member, guest, bot}
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
	// message is the member's message in the channel; temporary is a
	// download URL of the member's upload that needs no credentials.
	message   int64
	temporary string
	// devices, uploads and tusUploads are each caller's own, made on
	// first use: the matrix checks who may call a route, the upload tests
	// who may read whose file.
	devices             map[int64]int64
	uploads, tusUploads map[int64]string
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
	relay, err := pushrelay.New(strings.Replace(newRelay(t).srv.URL, "http://", "http://server:s3cret@", 1)+"/relay/", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.JWTSecret = matrixSecret
		c.VideoCalls = video
		c.PushRelay = relay
	})
	f := &matrixFixture{env: e, queues: map[int64]string{}, devices: map[int64]int64{},
		uploads: map[int64]string{}, tusUploads: map[int64]string{}}
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
	must(e.svc.DeactivateUser(ctx, chat.AsUser(e.owner.id), f.deactivated.id))
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
	ch, err := e.svc.Channels(ctx, chat.AsUser(e.owner.id), chat.ChannelQuery{IncludeSubscribed: true})
	must(err)
	for _, c := range ch {
		if c.Name == "matrix" {
			f.channel = c.StreamID
		}
	}
	f.folder, err = e.svc.CreateChannelFolder(ctx, chat.AsUser(e.owner.id), "Folder", "")
	must(err)
	f.linkifier, err = e.svc.AddLinkifier(ctx, chat.AsUser(e.owner.id), chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://example.org/{id}"})
	must(err)
	f.field, err = e.svc.CreateProfileField(ctx, chat.AsUser(e.owner.id), chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText, EditableByUser: true})
	must(err)
	d, err := e.svc.AddRealmDomain(ctx, chat.AsUser(e.owner.id), "example.net", false)
	must(err)
	f.domain = d.Domain
	// Reports go to a private channel of the administrators.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form("subscriptions", `[{"name":"moderation"}]`, "invite_only", "true"))
	if res.status != http.StatusOK {
		t.Fatalf("creating the moderation channel: %s", res.raw)
	}
	ch, err = e.svc.Channels(ctx, chat.AsUser(e.owner.id), chat.ChannelQuery{IncludeSubscribed: true})
	must(err)
	for _, c := range ch {
		if c.Name == "moderation" {
			if res := e.call(http.MethodPatch, "/realm", &e.owner, form("moderation_request_channel_id", itoa(c.StreamID))); res.status != http.StatusOK {
				t.Fatalf("setting the moderation channel: %s", res.raw)
			}
		}
	}
	res = e.call(http.MethodPost, "/messages", &e.member, form("type", "channel", "to", "matrix", "topic", "files", "content", "hello"))
	if res.status != http.StatusOK {
		t.Fatalf("sending the message: %s", res.raw)
	}
	f.message = int64(res.body["id"].(float64))
	realm, rest, _ := strings.Cut(f.upload(&e.member), "/")
	realmID, _ := strconv.ParseInt(realm, 10, 64)
	f.temporary, err = e.svc.TemporaryUploadURL(ctx, chat.AsUser(e.member.id), realmID, rest)
	must(err)
	return f
}

// messagePath is the path of the fixture's message, with suffix.
func messagePath(suffix string) func(*matrixFixture) string {
	return func(f *matrixFixture) string { return "/messages/" + itoa(f.message) + suffix }
}

// device is a device of a's, registered for push when a is human; callers
// that cannot make one get a made-up ID.
func (f *matrixFixture) device(a *account) string {
	if a == nil || a.id == 0 {
		return "999"
	}
	if id, ok := f.devices[a.id]; ok {
		return itoa(id)
	}
	ctx := context.Background()
	id, err := f.svc.RegisterClientDevice(ctx, chat.AsUser(a.id))
	if err != nil {
		return "999" // deactivated and foreign callers never get this far
	}
	f.devices[a.id] = id
	values := registrationForm(itoa(id), pushKey(byte(a.id)))
	opt := func(k string) *string { v := values.Get(k); return &v }
	keyID := uint32(7)
	// Bots are refused; their device stays unregistered.
	f.svc.RegisterPushDevice(ctx, chat.AsUser(a.id), chat.PushRegistration{DeviceID: id, PushKey: opt("push_key"), PushKeyID: &keyID,
		TokenKind: opt("token_kind"), TokenID: opt("token_id"), BouncerPublicKey: opt("bouncer_public_key"),
		EncryptedPushRegistration: opt("encrypted_push_registration")})
	return itoa(id)
}

// upload is the "{realm_id}/{path}" of a file uploaded by a; callers that
// cannot upload get a made-up one.
func (f *matrixFixture) upload(a *account) string {
	if a == nil || a.id == 0 {
		return "1/no/such/file.txt"
	}
	if p, ok := f.uploads[a.id]; ok {
		return p
	}
	up, err := f.svc.UploadFile(context.Background(), chat.AsUser(a.id), chat.Upload{Filename: "notes.txt", Body: strings.NewReader("some notes")})
	if err != nil {
		return "1/no/such/file.txt"
	}
	f.uploads[a.id] = strings.TrimPrefix(up.URL, "/user_uploads/")
	return f.uploads[a.id]
}

// attachmentOf is the ID of an upload of a's (999999 for callers without
// one).
func (f *matrixFixture) attachmentOf(a *account) int64 {
	f.upload(a)
	if a == nil || a.id == 0 {
		return 999999
	}
	res, err := f.svc.Attachments(context.Background(), chat.AsUser(a.id))
	if err != nil || len(res.Attachments) == 0 {
		return 999999
	}
	return res.Attachments[0].ID
}

// tusUpload is a resumable upload of a's, five bytes long, none sent yet.
func (f *matrixFixture) tusUpload(a *account) string {
	if a == nil || a.id == 0 {
		return "no-such-upload"
	}
	if id, ok := f.tusUploads[a.id]; ok {
		return id
	}
	up, err := f.svc.CreateResumableUpload(context.Background(), chat.AsUser(a.id), 5, map[string]string{"filename": "resumed.txt"})
	if err != nil {
		return "no-such-upload"
	}
	f.tusUploads[a.id] = up.ID
	return up.ID
}

// rawRequest builds a request to pattern's own path (outside the API's
// form conventions), with Basic credentials when as is not nil.
func rawRequest(method, path string, as *account, body io.Reader, header ...string) *http.Request {
	r := httptest.NewRequest(method, "http://"+host+path, body)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	if as != nil {
		r.SetBasicAuth(as.email, as.key)
	}
	return r
}

// tusRequest is a tus request to path: creation of five bytes, or the
// first two bytes of an upload.
func tusRequest(method, path string, as *account) *http.Request {
	switch method {
	case http.MethodPost:
		return rawRequest(method, path, as, nil, "Tus-Resumable", "1.0.0", "Upload-Length", "5",
			"Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("created.txt")))
	case http.MethodPatch:
		return rawRequest(method, path, as, strings.NewReader("ab"), "Tus-Resumable", "1.0.0",
			"Upload-Offset", "0", "Content-Type", "application/offset+octet-stream")
	}
	return rawRequest(method, path, as, nil, "Tus-Resumable", "1.0.0")
}

// serveRaw serves r and decodes the answer when it is JSON.
func (f *matrixFixture) serveRaw(r *http.Request) response {
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	res := response{status: w.Code, header: w.Header(), raw: w.Body.String()}
	if w.Header().Get("Content-Type") == "application/json" {
		if err := json.Unmarshal(w.Body.Bytes(), &res.body); err != nil {
			f.t.Errorf("%s %s: body is not JSON: %v\n%s", r.Method, r.URL, err, res.raw)
		}
	}
	return res
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
	state, err := f.svc.Register(context.Background(), chat.AsUser(a.id), chat.RegisterRequest{})
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
	// request, when set, builds the whole request in place of path and
	// form: for the routes outside the API's conventions.
	request func(f *matrixFixture, as *account) *http.Request
}

func fixed(path string) func(*matrixFixture) string {
	return func(*matrixFixture) string { return path }
}

func params(kv ...string) func(*matrixFixture, *account) url.Values {
	return func(*matrixFixture, *account) url.Values { return form(kv...) }
}

// matrix has one row per registered route, keyed "METHOD /pattern".
var matrix = map[string]matrixRow{
	"GET /api/v1/server_settings": {path: fixed("/server_settings"), roles: roles(ok), public: true},
	"POST /api/v1/fetch_api_key": {path: fixed("/fetch_api_key"), public: true, roles: roles(ok),
		form: params("username", "member@example.com", "password", "member-password")},
	"POST /api/v1/jwt/fetch_api_key": {path: fixed("/jwt/fetch_api_key"), public: true, roles: roles(ok),
		form: func(*matrixFixture, *account) url.Values {
			token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": "member@example.com"}).SignedString(matrixSecret)
			return form("token", token)
		}},

	"GET /api/v1/users":    {path: fixed("/users"), roles: roles(ok)},
	"POST /api/v1/users":   {path: fixed("/users"), roles: roles(ok, ok, needAdmin), form: params("email", "new@example.com", "password", "a-long-password", "full_name", "New One")},
	"GET /api/v1/users/me": {path: fixed("/users/me"), roles: roles(ok)},
	"GET /api/v1/users/{user}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"PATCH /api/v1/users/{user}": {roles: roles(ok, ok, insufficient), form: params("full_name", "Renamed"),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"DELETE /api/v1/users/{user}": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"POST /api/v1/users/{user_id}/reactivate": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.deactivated.id) + "/reactivate" }},

	"GET /api/v1/realm/profile_fields":  {path: fixed("/realm/profile_fields"), roles: roles(ok)},
	"POST /api/v1/realm/profile_fields": {path: fixed("/realm/profile_fields"), roles: roles(ok, ok, needAdmin), form: params("name", "Pronouns", "field_type", "1")},
	"POST /api/v1/users/me/status":      {path: fixed("/users/me/status"), roles: with(roles(ok), asBot, noBots), form: params("status_text", "busy")},
	"PATCH /api/v1/users/me/profile_data": {path: fixed("/users/me/profile_data"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("data", fmt.Sprintf(`[{"id":%d,"value":"12345"}]`, f.field))
		}},
	"PATCH /api/v1/settings":                     {path: fixed("/settings"), roles: with(roles(ok), asBot, noBots), form: params("presence_enabled", "false")},
	"PATCH /api/v1/realm/user_settings_defaults": {path: fixed("/realm/user_settings_defaults"), roles: roles(ok, ok, needAdmin), form: params("email_address_visibility", "1")},

	"POST /api/v1/register": {path: fixed("/register"), roles: roles(ok)},
	"GET /api/v1/events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("queue_id", f.queue(as), "last_event_id", "-1", "dont_block", "true")
		}},
	"DELETE /api/v1/events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("queue_id", f.queue(as)) }},
	"POST /api/v1/typing": {path: fixed("/typing"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("op", "start", "to", "["+itoa(f.target.id)+"]")
		}},

	"GET /api/v1/users/me/subscriptions":  {path: fixed("/users/me/subscriptions"), roles: roles(ok)},
	"POST /api/v1/users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: with(roles(ok), asGuest, noGuests), form: params("subscriptions", `[{"name":"brand new"}]`)},
	"DELETE /api/v1/users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: roles(ok),
		form: params("subscriptions", `["matrix"]`)},
	"POST /api/v1/users/me/subscriptions/properties": {path: fixed("/users/me/subscriptions/properties"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("subscription_data", fmt.Sprintf(`[{"stream_id":%d,"property":"is_muted","value":true}]`, f.channel))
		}},
	"PATCH /api/v1/users/me/subscriptions/muted_topics": {path: fixed("/users/me/subscriptions/muted_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "op", "add")
		}},
	"PATCH /api/v1/users/me/subscriptions/{stream_id}": {roles: roles(ok), form: params("property", "pin_to_top", "value", "true"),
		path: func(f *matrixFixture) string { return "/users/me/subscriptions/" + itoa(f.channel) }},
	"POST /api/v1/user_topics": {path: fixed("/user_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "visibility_policy", "1")
		}},
	"GET /api/v1/streams": {path: fixed("/streams"), roles: roles(ok)},
	"GET /api/v1/streams/{stream_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) }},
	"POST /api/v1/messages/flags": {path: fixed("/messages/flags"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("messages", "["+itoa(f.message)+"]", "op", "add", "flag", "starred")
		}},
	"POST /api/v1/messages/flags/narrow": {path: fixed("/messages/flags/narrow"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("anchor", "newest", "num_before", "1", "num_after", "0", "narrow", "[]", "op", "add", "flag", "starred")
		}},
	"POST /api/v1/mark_all_as_read": {path: fixed("/mark_all_as_read"), roles: roles(ok)},
	"POST /api/v1/mark_stream_as_read": {path: fixed("/mark_stream_as_read"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("stream_id", itoa(f.channel)) }},
	"POST /api/v1/mark_topic_as_read": {path: fixed("/mark_topic_as_read"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic_name", "files")
		}},
	"GET /api/v1/users/me/{stream_id}/topics": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/me/" + itoa(f.channel) + "/topics" }},
	"POST /api/v1/users/me/presence": {path: fixed("/users/me/presence"), roles: roles(ok), form: params("status", "active")},
	"GET /api/v1/realm/presence":     {path: fixed("/realm/presence"), roles: roles(ok)},
	"GET /api/v1/users/{user}/presence": {roles: roles(outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest,
		msg: "No presence data for target@example.com"}),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) + "/presence" }},
	"GET /api/v1/attachments": {path: fixed("/attachments"), roles: roles(ok)},
	"DELETE /api/v1/attachments/{attachment_id}": {roles: roles(ok), request: func(f *matrixFixture, as *account) *http.Request {
		return f.request(http.MethodDelete, "/attachments/"+itoa(f.attachmentOf(as)), as, nil)
	}},
	"GET /api/v1/bot_storage":    {path: fixed("/bot_storage"), roles: roles(ok)},
	"PUT /api/v1/bot_storage":    {path: fixed("/bot_storage"), roles: roles(ok), form: params("storage", `{"k":"v"}`)},
	"DELETE /api/v1/bot_storage": {path: fixed("/bot_storage"), roles: roles(ok)},
	"GET /api/v1/get_stream_id": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/get_stream_id?stream=matrix" }},
	"GET /api/v1/streams/{stream_id}/members": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/members" }},
	"GET /api/v1/users/{user_id}/subscriptions/{stream_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string {
			return "/users/" + itoa(f.target.id) + "/subscriptions/" + itoa(f.channel)
		}},
	"POST /api/v1/streams/{stream_id}/delete_topic": {roles: roles(ok, ok, needAdmin), form: params("topic_name", "lunch"),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/delete_topic" }},
	"GET /api/v1/channel_folders":         {path: fixed("/channel_folders"), roles: roles(ok)},
	"POST /api/v1/channel_folders/create": {path: fixed("/channel_folders/create"), roles: roles(ok, ok, needAdmin), form: params("name", "Another", "description", "")},
	"PATCH /api/v1/channel_folders/{channel_folder_id}": {roles: roles(ok, ok, needAdmin), form: params("name", "Renamed"),
		path: func(f *matrixFixture) string { return "/channel_folders/" + itoa(f.folder) }},
	"GET /api/v1/user_groups": {path: fixed("/user_groups"), roles: roles(ok)},

	"PATCH /api/v1/realm":          {path: fixed("/realm"), roles: roles(ok, ok, needAdmin), form: params("name", "Renamed Org")},
	"GET /api/v1/realm/linkifiers": {path: fixed("/realm/linkifiers"), roles: roles(ok)},
	"GET /api/v1/realm/filters":    {path: fixed("/realm/filters"), roles: roles(ok)},
	"POST /api/v1/realm/filters":   {path: fixed("/realm/filters"), roles: roles(ok, ok, needAdmin), form: params("pattern", `T(?P<id>[0-9]+)`, "url_template", "https://example.org/t/{id}")},
	"PATCH /api/v1/realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin), form: params("pattern", `U(?P<id>[0-9]+)`, "url_template", "https://example.org/u/{id}"),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"DELETE /api/v1/realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"GET /api/v1/realm/domains":  {path: fixed("/realm/domains"), roles: roles(ok)},
	"POST /api/v1/realm/domains": {path: fixed("/realm/domains"), roles: roles(ok, needOwner), form: params("domain", "example.com", "allow_subdomains", "false")},
	"PATCH /api/v1/realm/domains/{domain}": {roles: roles(ok, needOwner), form: params("allow_subdomains", "true"),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"DELETE /api/v1/realm/domains/{domain}": {roles: roles(ok, needOwner),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"POST /api/v1/calls/videocall/create": {path: fixed("/calls/videocall/create"), roles: roles(ok)},

	"POST /api/v1/users/me/ios_device_token": {path: fixed("/users/me/ios_device_token"), roles: with(roles(ok), asBot, noBots),
		form: params("token", "abcd12ef", "appid", "org.example.app")},
	"POST /api/v1/users/me/apns_device_token": {path: fixed("/users/me/apns_device_token"), roles: with(roles(ok), asBot, noBots),
		form: params("token", "abcd12ef", "appid", "org.example.app")},
	"POST /api/v1/register_client_device": {path: fixed("/register_client_device"), roles: roles(ok)},
	"POST /api/v1/remove_client_device": {path: fixed("/remove_client_device"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("device_id", f.device(as)) }},
	"POST /api/v1/mobile_push/register": {path: fixed("/mobile_push/register"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, as *account) url.Values {
			// A rotation of the device's key: a new registration of its own.
			return registrationForm(f.device(as), pushKey(0x40))
		}},
	"POST /api/v1/mobile_push/e2ee/test_notification": {path: fixed("/mobile_push/e2ee/test_notification"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, as *account) url.Values { return form("device_id", f.device(as)) }},

	"POST /api/v1/messages": {path: fixed("/messages"), roles: roles(ok),
		form: params("type", "channel", "to", "matrix", "topic", "lunch", "content", "hello")},
	"GET /api/v1/messages": {path: fixed("/messages"), roles: roles(ok),
		form: params("anchor", "newest", "num_before", "5", "num_after", "0", "narrow", `[["channel","matrix"]]`)},
	"GET /api/v1/messages/matches_narrow": {path: fixed("/messages/matches_narrow"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("msg_ids", "["+itoa(f.message)+"]", "narrow", `[["topic","files"]]`)
		}},
	"GET /api/v1/messages/{message_id}":    {path: messagePath(""), roles: roles(ok)},
	"PATCH /api/v1/messages/{message_id}":  {path: messagePath(""), roles: each(cannotEdit, cannotEdit, cannotEdit, ok, cannotEdit, cannotEdit), form: params("content", "edited")},
	"DELETE /api/v1/messages/{message_id}": {path: messagePath(""), roles: each(ok, ok, cannotDelete, ok, cannotDelete, cannotDelete)},
	"POST /api/v1/messages/{message_id}/reactions": {path: messagePath("/reactions"), roles: roles(ok),
		form: params("emoji_name", "octopus")},
	"DELETE /api/v1/messages/{message_id}/reactions": {path: messagePath("/reactions"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			if as != nil && as.id != 0 {
				// The caller's own reaction to remove; refused callers fail
				// before this matters.
				f.svc.AddReaction(context.Background(), chat.AsUser(as.id), f.message, chat.ReactionRequest{Name: "octopus"})
			}
			return form("emoji_name", "octopus")
		}},
	"POST /api/v1/messages/{message_id}/report": {path: messagePath("/report"), roles: roles(ok),
		form: params("report_type", "spam")},
	"POST /api/v1/messages/{message_id}/typing": {path: messagePath("/typing"), roles: each(cannotEdit, cannotEdit, cannotEdit, ok, cannotEdit, cannotEdit),
		form: params("op", "start")},

	"GET /api/v1/user_uploads/{realm_id}/{path...}": {roles: roles(ok),
		request: func(f *matrixFixture, as *account) *http.Request {
			return f.request(http.MethodGet, "/user_uploads/"+f.upload(as), as, nil)
		}},
	"POST /api/v1/user_uploads": {roles: roles(ok),
		request: func(_ *matrixFixture, as *account) *http.Request {
			body := &strings.Builder{}
			w := multipart.NewWriter(body)
			part, _ := w.CreateFormFile("file", "report.txt")
			io.WriteString(part, "a report")
			w.Close()
			return rawRequest(http.MethodPost, httpserver.Prefix+"/user_uploads", as, strings.NewReader(body.String()), "Content-Type", w.FormDataContentType())
		}},
	"GET /user_uploads/{realm_id}/{path...}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, "/user_uploads/"+f.upload(as), as, nil)
		}},
	"GET /user_uploads/download/{realm_id}/{path...}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, "/user_uploads/download/"+f.upload(as), as, nil)
		}},
	"GET /user_uploads/temporary/{token}/{filename}": {public: true, roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, f.temporary, as, nil)
		}},
	"POST /api/v1/tus": {roles: roles(created),
		request: func(_ *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPost, httpserver.Prefix+"/tus", as)
		}},
	"POST /api/v1/tus/{$}": {roles: roles(created),
		request: func(_ *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPost, httpserver.Prefix+"/tus/", as)
		}},
	"HEAD /api/v1/tus/{id}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodHead, httpserver.Prefix+"/tus/"+f.tusUpload(as), as)
		}},
	"PATCH /api/v1/tus/{id}": {roles: roles(patched),
		request: func(f *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPatch, httpserver.Prefix+"/tus/"+f.tusUpload(as), as)
		}},
}

// TestAuthorizationMatrix calls every registered route as every identity,
// each call on a fresh organization so that no call sees another's
// writes, and checks the status, code and message. A route registered
// without a row here fails the test.
func TestAuthorizationMatrix(t *testing.T) {
	// The routes of a server as New builds it (test envs wrap theirs).
	registered := httpserver.RegisteredRoutes(httpserver.New(newEnv(t).svc, httpserver.Options{}))
	var missing []string
	for route, op := range registered {
		row, found := matrix[route]
		if !found {
			missing = append(missing, route)
			continue
		}
		if public := op.Access() == chat.Anyone; row.public != public {
			t.Errorf("%s runs %s, open to %s, but its row says public=%v", route, op, op.Access(), row.public)
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
					var res response
					if row.request != nil {
						res = f.serveRaw(row.request(f, as))
					} else {
						var values url.Values
						if row.form != nil {
							values = row.form(f, as)
						}
						res = f.call(method, row.path(f), as, values)
					}
					calls.Add(1)
					var wrong bool
					switch {
					case want.bare:
						wrong = res.status != want.status || want.msg != "" && res.raw != want.msg
					case want.code != "":
						wrong = res.status != want.status || res.body["code"] != string(want.code) || res.body["msg"] != want.msg
					default:
						wrong = res.status != want.status || res.body["result"] != "success"
					}
					if wrong {
						t.Errorf("as %s: got %d %s, want %d %s %q", callerNames[c], res.status, strings.TrimSpace(res.raw), want.status, want.code, want.msg)
					}
				}
			})
		}
	})
	t.Logf("%d routes, %d calls on %d organizations", len(registered), calls.Load(), fixtures.Load())
}

// TestRoutesFollowThePolicy ties each route to the access policy of the
// operation it names: for every role that the policy refuses the
// operation, the matrix row (whose outcomes TestAuthorizationMatrix checks
// against real calls) expects exactly the refusal that chat.Service.Admit,
// the policy the Go API consults, gives that role.
func TestRoutesFollowThePolicy(t *testing.T) {
	e := newEnv(t)
	registered := httpserver.RegisteredRoutes(httpserver.New(e.svc, httpserver.Options{}))
	ids := [asBot + 1]int64{e.owner.id, e.admin.id, e.moderator.id, e.member.id, e.guest.id, e.bot.id}
	refused := 0
	for _, route := range slices.Sorted(maps.Keys(registered)) {
		op := registered[route]
		row, found := matrix[route]
		if !found {
			continue // TestAuthorizationMatrix reports it
		}
		for c := asOwner; c <= asBot; c++ {
			err := e.svc.Admit(t.Context(), chat.AsUser(ids[c]), op)
			if err == nil {
				continue
			}
			refused++
			var ce *chat.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Admit(%s, %s) = %v, not a *chat.Error", callerNames[c], op, err)
			}
			if want := row.roles[c]; want.code != ce.Code || want.msg != ce.Msg {
				t.Errorf("%s (%s, open to %s) as %s: matrix expects %s %q, the policy refuses with %s %q",
					route, op, op.Access(), callerNames[c], want.code, want.msg, ce.Code, ce.Msg)
			}
		}
	}
	if refused == 0 {
		t.Fatal("the policy refused no role any route")
	}
	t.Logf("%d refusals of the policy match the matrix", refused)
}
