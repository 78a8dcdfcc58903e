package httpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

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
	emojiAuthor  = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "Must be an organization administrator or emoji author"}
	channelAdmin = outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "You do not have permission to administer this channel."}
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
	// group is a user group the owner created; subgroup another.
	group, subgroup int64
	// ownBot is a bot of the owner's.
	ownBot int64
	// emojiImage is the path of the image of the owner's custom emoji
	// "matrix".
	emojiImage string
	domain     string
	queues     map[int64]string
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
	f.group, err = e.svc.CreateUserGroup(ctx, chat.AsUser(e.owner.id), chat.NewUserGroup{Name: "Group"})
	must(err)
	f.subgroup, err = e.svc.CreateUserGroup(ctx, chat.AsUser(e.owner.id), chat.NewUserGroup{Name: "Subgroup"})
	must(err)
	ownBot, err := e.svc.CreateBot(ctx, chat.AsUser(e.owner.id), chat.NewBot{FullName: "Owned", ShortName: "owned"})
	must(err)
	f.ownBot = ownBot.UserID
	must(e.svc.AddRealmEmoji(ctx, chat.AsUser(e.owner.id), "matrix", bytes.NewReader(tinyPNG())))
	emoji, err := e.svc.RealmEmoji(ctx, chat.AsUser(e.owner.id))
	must(err)
	for _, v := range emoji {
		f.emojiImage = v.SourceURL
	}
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

// tinyPNG is a 1×1 PNG image.
func tinyPNG() []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		panic(err)
	}
	return b.Bytes()
}
