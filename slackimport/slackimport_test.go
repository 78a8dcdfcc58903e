package slackimport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage"
)

// slackZip builds a zip archive from file names and contents; values that
// are not strings or byte slices are encoded as JSON.
func slackZip(t testing.TB, files map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, v := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		switch v := v.(type) {
		case string:
			data = []byte(v)
		case []byte:
			data = v
		default:
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type obj = map[string]any

// sampleExport is a small workspace: an owner, a member, a deleted user, a
// guest and a bot; two public channels, a private one, a direct and a
// group direct conversation; a thread, an edit, reactions (one with a skin
// tone, one custom through an alias, one unknown), mentions, a channel
// link, a link, a carried file and a missing one, a join event and a
// message of a user missing from users.json.
func sampleExport() map[string]any {
	return map[string]any{
		"users.json": []obj{
			{"id": "U1", "name": "alice", "is_primary_owner": true, "is_owner": true, "is_admin": true, "tz": "Europe/Paris",
				"profile": obj{"real_name": "Alice Archer", "email": "alice@example.com"}},
			{"id": "U2", "name": "bob", "profile": obj{"real_name": "Bob Baker", "email": "bob@example.com"}},
			{"id": "U3", "name": "carol", "deleted": true, "profile": obj{"real_name": "Carol Cole"}},
			{"id": "U4", "name": "gus", "is_restricted": true, "profile": obj{"real_name": "Gus Guest", "email": "gus@example.com"}},
			{"id": "B1", "name": "helper", "is_bot": true, "profile": obj{"real_name": "Helper Bot"}},
		},
		"channels.json": []obj{
			{"id": "C1", "name": "general", "is_general": true, "created": 1700000000, "creator": "U1",
				"members": []string{"U1", "U2", "U3", "B1"}, "purpose": obj{"value": "Company-wide talk"}},
			{"id": "C2", "name": "random", "created": 1700000100, "creator": "U2", "members": []string{"U1", "U2"}},
		},
		"groups.json": []obj{
			{"id": "G1", "name": "secret", "created": 1700000200, "creator": "U1", "members": []string{"U1", "U4"}},
		},
		"dms.json":   []obj{{"id": "D1", "members": []string{"U1", "U2"}}},
		"mpims.json": []obj{{"id": "G2", "name": "mpdm-alice--bob--gus-1", "members": []string{"U1", "U2", "U4"}}},
		"emoji.json": obj{"partyparrot": "https://emoji.example/partyparrot.gif", "parrot": "alias:partyparrot"},
		"general/2024-01-01.json": []obj{
			{"type": "message", "user": "U1", "ts": "1704103200.000100",
				"text": "Hello <@U2>, see <#C2|random> and <https://example.com|our site> *now* &amp; `*code*`",
				"reactions": []obj{
					{"name": "+1::skin-tone-2", "users": []string{"U2"}, "count": 1},
					{"name": "parrot", "users": []string{"U2"}, "count": 1},
					{"name": "nosuchemoji", "users": []string{"U1"}, "count": 1},
				}},
			{"type": "message", "user": "U2", "ts": "1704103260.000200", "thread_ts": "1704103260.000200", "reply_count": 1,
				"text": "Thread about the quarterly roadmap planning session for everyone in the company"},
			{"type": "message", "subtype": "channel_join", "user": "U3", "ts": "1704103270.000000", "text": "<@U3> has joined the channel"},
			{"type": "message", "user": "U999", "ts": "1704103280.000000", "text": "who am I"},
		},
		"general/2024-01-02.json": []obj{
			{"type": "message", "user": "U1", "ts": "1704189600.000000", "thread_ts": "1704103260.000200",
				"text": "Reply in the thread", "edited": obj{"user": "U1", "ts": "1704189700.000000"}},
			{"type": "message", "subtype": "file_share", "user": "U2", "ts": "1704189660.000000", "text": "Here is the report",
				"files": []obj{
					{"id": "F1", "name": "report.txt", "mimetype": "text/plain"},
					{"id": "F2", "name": "photo.png", "url_private": "https://files.slack.com/F2/photo.png"},
				}},
		},
		"random/2024-01-01.json": []obj{
			{"type": "message", "user": "U2", "ts": "1704103230.000000", "text": "random hello"},
		},
		"secret/2024-01-01.json": []obj{
			{"type": "message", "user": "U4", "ts": "1704103300.000000", "text": "secret stuff"},
		},
		"D1/2024-01-01.json": []obj{
			{"type": "message", "user": "U1", "ts": "1704103400.000000", "text": "hi Bob"},
		},
		"mpdm-alice--bob--gus-1/2024-01-01.json": []obj{
			{"type": "message", "user": "U4", "ts": "1704103500.000000", "text": "group hi"},
		},
		"__uploads/F1/report.txt": "quarterly numbers\n",
	}
}

func importSample(t *testing.T, svc *chat.Service, files map[string]any, opts slackimport.Options) (slackimport.Result, error) {
	t.Helper()
	data := slackZip(t, files)
	return slackimport.Import(context.Background(), svc, bytes.NewReader(data), int64(len(data)), opts)
}

func TestImportSlack(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		secret := []byte("jwt-secret")
		svc, clock := newService(t, newStore, chat.Config{JWTSecret: secret})
		ctx := context.Background()
		var phases []string
		res, err := importSample(t, svc, sampleExport(), slackimport.Options{Name: "Acme", Host: "acme.example.com",
			BatchSize: 2, Progress: func(p slackimport.Progress) { phases = append(phases, p.Phase) }})
		wantNoErr(t, "ImportSlack", err)
		diff(t, "result", res, sampleResult(res.RealmID, "http://acme.example.com"))
		if phases[0] != "users" || phases[1] != "channels" || phases[len(phases)-1] != "done" {
			t.Errorf("progress phases = %v", phases)
		}

		// Users: imported stubs joined at the import, roles from Slack.
		alice, err := svc.FetchAPIKeyJWT(ctx, "acme.example.com", jwtFor(t, secret, "alice@example.com"), true)
		wantNoErr(t, "alice's login", err)
		clock.Advance(time.Hour)
		aliceID := alice.User.UserID
		users, err := svc.Users(ctx, chat.AsUser(aliceID), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		type userSummary struct {
			Name              string
			Email             string
			Role              chat.Role
			Active, Bot, Stub bool
			Joined, Timezone  string
		}
		var got []userSummary
		byName := map[string]int64{}
		for _, u := range users {
			got = append(got, userSummary{u.FullName, *u.DeliveryEmail, u.Role, u.IsActive, u.IsBot, u.IsImportedStub,
				u.DateJoined.UTC().Format(time.RFC3339), u.Timezone})
			byName[u.FullName] = u.UserID
		}
		joined := t0.UTC().Format(time.RFC3339)
		diff(t, "users", got, []userSummary{
			{"Alice Archer", "alice@example.com", chat.RoleOwner, true, false, false, joined, "Europe/Paris"},
			{"Bob Baker", "bob@example.com", chat.RoleMember, true, false, true, joined, ""},
			{"Carol Cole", "slack-u3@acme.example.com", chat.RoleMember, false, false, true, joined, ""},
			{"Gus Guest", "gus@example.com", chat.RoleGuest, true, false, true, joined, ""},
			{"Helper Bot", "b1-bot@acme.example.com", chat.RoleMember, true, true, true, joined, ""},
			{"Slack user U999", "slack-u999@acme.example.com", chat.RoleMember, false, false, true, joined, ""},
		})

		// Bob's first login, an hour after the import, ends his stub.
		before, err := svc.User(ctx, chat.AsUser(aliceID), byName["Bob Baker"], chat.UserQuery{})
		wantNoErr(t, "User(bob)", err)
		if !before.IsImportedStub {
			t.Fatal("bob is not a stub before his first login")
		}
		_, err = svc.FetchAPIKeyJWT(ctx, "acme.example.com", jwtFor(t, secret, "bob@example.com"), false)
		wantNoErr(t, "bob's login", err)
		after, err := svc.User(ctx, chat.AsUser(aliceID), byName["Bob Baker"], chat.UserQuery{})
		wantNoErr(t, "User(bob)", err)
		if after.IsImportedStub || !after.DateJoined.Equal(clock.Now().UTC().Round(0)) {
			t.Errorf("after the first login: is_imported_stub %v, date_joined %v, want false, %v",
				after.IsImportedStub, after.DateJoined, clock.Now())
		}

		// Channels and their members.
		subs, err := svc.Subscriptions(ctx, chat.AsUser(aliceID), true)
		wantNoErr(t, "Subscriptions", err)
		type chanSummary struct {
			Name, Description string
			InviteOnly        bool
			Subscribers       []int64
		}
		var chans []chanSummary
		for _, s := range subs {
			chans = append(chans, chanSummary{s.Name, s.Description, s.InviteOnly, *s.Subscribers})
		}
		diff(t, "channels", chans, []chanSummary{
			{"general", "Company-wide talk", false, []int64{aliceID, byName["Bob Baker"], byName["Carol Cole"], byName["Helper Bot"]}},
			{"random", "", false, []int64{aliceID, byName["Bob Baker"]}},
			{"secret", "", true, []int64{aliceID, byName["Gus Guest"]}},
		})

		checkImportedMessages(t, svc, res, users, byName, subs)
	})
}

// sampleResult is the result of importing the sample export.
func sampleResult(realmID int64, url string) slackimport.Result {
	return slackimport.Result{RealmID: realmID, RealmURL: url,
		Users: 6, Bots: 1, Channels: 3, DirectConversations: 2, Messages: 9, Reactions: 2, CustomEmoji: 1, Files: 1,
		Skipped: map[string]slackimport.KindCount{
			"channel_event":          {1, "channel event (join, leave, rename, pin): the channel's own state shows it"},
			"reaction_unknown_emoji": {1, "reaction whose emoji is neither a Unicode emoji nor in emoji.json"},
		},
		Altered: map[string]slackimport.KindCount{
			"missing_file":     {1, "file not in the export: the message links its Slack URL"},
			"placeholder_user": {1, "user not in users.json: imported as a deactivated placeholder"},
		},
		Report: []slackimport.ReportItem{
			{Kind: "reaction_unknown_emoji", Action: "skipped", Reason: "reaction whose emoji is neither a Unicode emoji nor in emoji.json",
				Channel: "general", TS: "1704103200.000100", User: "U1", Detail: "nosuchemoji"},
			{Kind: "channel_event", Action: "skipped", Reason: "channel event (join, leave, rename, pin): the channel's own state shows it",
				Channel: "general", TS: "1704103270.000000", Detail: "channel_join"},
			{Kind: "placeholder_user", Action: "altered", Reason: "user not in users.json: imported as a deactivated placeholder",
				Channel: "general", TS: "1704103280.000000", User: "U999", Detail: "Slack user U999"},
			{Kind: "missing_file", Action: "altered", Reason: "file not in the export: the message links its Slack URL",
				Channel: "general", TS: "1704189660.000000", Detail: "F2 photo.png"},
		},
	}
}

// importedMessage is what TestImportSlack checks of each imported message.
type importedMessage struct {
	Sender    string
	To        string
	Topic     string
	Content   string
	Timestamp int64
	Edited    int64
	Reactions []string
	Flags     []string
}

// checkImportedMessages checks the sample's messages, in time order across
// conversations, their mentions, and the file they carry.
func checkImportedMessages(t *testing.T, svc *chat.Service, res slackimport.Result, users chat.Users, byName map[string]int64, subs []chat.SubscriptionView) {
	t.Helper()
	ctx := context.Background()
	aliceID := byName["Alice Archer"]
	// Messages, in time order across conversations.
	msgs, err := svc.GetMessages(ctx, chat.AsUser(aliceID), chat.GetMessagesRequest{Anchor: ptr("oldest"), IncludeAnchor: ptr(true), NumAfter: ptr[int64](100),
		Format: chat.MessageFormat{ApplyMarkdown: true, AllowEmptyTopicName: true}})
	wantNoErr(t, "GetMessages", err)
	var gotMsgs []importedMessage
	for _, m := range msgs.Messages {
		s := importedMessage{Sender: m.SenderFullName, Topic: m.Subject, Content: m.Content, Timestamp: m.Timestamp}
		if m.LastEditTimestamp != nil {
			s.Edited = *m.LastEditTimestamp
		}
		switch r := m.DisplayRecipient.(type) {
		case string:
			s.To = r
		default:
			s.To = m.Type
		}
		for _, r := range m.Reactions {
			s.Reactions = append(s.Reactions, fmt.Sprintf("%s/%s/%s", r.EmojiName, r.ReactionType, userName(users, r.UserID)))
		}
		if m.Flags != nil {
			s.Flags = *m.Flags
		}
		gotMsgs = append(gotMsgs, s)
	}
	bob := byName["Bob Baker"]
	parrot := "partyparrot/realm_emoji/Bob Baker"
	diff(t, "messages", gotMsgs, []importedMessage{
		{Sender: "Alice Archer", To: "general", Topic: "", Timestamp: 1704103200,
			Content: fmt.Sprintf(`<p>Hello <span class="user-mention" data-user-id="%d">@Bob Baker</span>, see `+
				`<a class="stream" data-stream-id="%d" href="/#narrow/channel/%d-random">#random</a> and `+
				`<a href="https://example.com">our site</a> <strong>now</strong> &amp; <code>*code*</code></p>`,
				bob, subs[1].StreamID, subs[1].StreamID),
			Reactions: []string{"+1/unicode_emoji/Bob Baker", parrot}, Flags: []string{"read"}},
		{Sender: "Bob Baker", To: "random", Timestamp: 1704103230, Content: "<p>random hello</p>", Flags: []string{"read"}},
		{Sender: "Bob Baker", To: "general", Topic: "Thread about the quarterly roadmap planning session for e...",
			Timestamp: 1704103260, Content: "<p>Thread about the quarterly roadmap planning session for everyone in the company</p>",
			Flags: []string{"read"}},
		{Sender: "Slack user U999", To: "general", Timestamp: 1704103280, Content: "<p>who am I</p>", Flags: []string{"read"}},
		{Sender: "Gus Guest", To: "secret", Timestamp: 1704103300, Content: "<p>secret stuff</p>", Flags: []string{"read"}},
		{Sender: "Alice Archer", To: "private", Timestamp: 1704103400, Content: "<p>hi Bob</p>", Flags: []string{"read"}},
		{Sender: "Gus Guest", To: "private", Timestamp: 1704103500, Content: "<p>group hi</p>", Flags: []string{"read"}},
		{Sender: "Alice Archer", To: "general", Topic: "Thread about the quarterly roadmap planning session for e...",
			Timestamp: 1704189600, Edited: 1704189700, Content: "<p>Reply in the thread</p>", Flags: []string{"read"}},
		{Sender: "Bob Baker", To: "general", Timestamp: 1704189660, Flags: []string{"read"},
			Content: "<p>Here is the report<br>\n" + `<a href="` + fileURL(t, msgs.Messages[8].Content) + `">report.txt</a><br>` + "\n" +
				`<a href="https://files.slack.com/F2/photo.png">photo.png</a></p>`},
	})

	// Bob was mentioned in the first message.
	bobMsgs, err := svc.GetMessages(ctx, chat.AsUser(bob), chat.GetMessagesRequest{Anchor: ptr("oldest"), IncludeAnchor: ptr(true), NumAfter: ptr[int64](1)})
	wantNoErr(t, "GetMessages(bob)", err)
	diff(t, "bob's flags", *bobMsgs.Messages[0].Flags, []string{"read", "mentioned"})

	// The carried file is stored and readable by the channel's members.
	rest := strings.TrimPrefix(fileURL(t, msgs.Messages[8].Content), fmt.Sprintf("/user_uploads/%d/", res.RealmID))
	_, blob, err := svc.OpenAttachment(ctx, chat.AsUser(aliceID), res.RealmID, rest)
	wantNoErr(t, "OpenAttachment", err)
	var body bytes.Buffer
	body.ReadFrom(blob)
	blob.Close()
	diff(t, "file", body.String(), "quarterly numbers\n")
}

// userName returns the full name of the user with the ID.
func userName(us chat.Users, id int64) string {
	for _, u := range us {
		if u.UserID == id {
			return u.FullName
		}
	}
	return fmt.Sprint(id)
}

// fileURL extracts the first /user_uploads/ link of rendered content.
func fileURL(t *testing.T, content string) string {
	i := strings.Index(content, `href="/user_uploads/`)
	if i < 0 {
		t.Fatalf("no uploaded file in %q", content)
	}
	rest := content[i+len(`href="`):]
	return rest[:strings.IndexByte(rest, '"')]
}

func jwtFor(t *testing.T, secret []byte, email string) string {
	t.Helper()
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": email}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// A malformed file fails the import with its path, and leaves nothing
// behind: the same host can be imported into afterwards.
func TestImportSlackMalformed(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		bad := sampleExport()
		bad["general/2024-01-02.json"] = `[{"type": "message", "user": "U1", "ts": "1704189600.000000", "text": }]`
		_, err := importSample(t, svc, bad, slackimport.Options{Host: "acme.example.com"})
		wantCodeMsg(t, "malformed day file", err, chat.CodeBadRequest,
			"general/2024-01-02.json: invalid character '}' looking for beginning of value")

		bad = sampleExport()
		bad["secret/2024-01-01.json"] = `[{"user": "U4", "ts": "yesterday", "text": "x"}]`
		_, err = importSample(t, svc, bad, slackimport.Options{Host: "acme.example.com"})
		wantCodeMsg(t, "bad timestamp", err, chat.CodeBadRequest, `secret/2024-01-01.json: invalid timestamp "yesterday"`)

		_, err = importSample(t, svc, map[string]any{"users.json": "[]"}, slackimport.Options{})
		wantCodeMsg(t, "not an export", err, chat.CodeBadRequest, "Not a Slack export: users.json and channels.json (or groups.json, dms.json, mpims.json) are required")

		res, err := importSample(t, svc, sampleExport(), slackimport.Options{Host: "acme.example.com"})
		wantNoErr(t, "import after failures", err)
		if res.Messages != 9 {
			t.Errorf("messages = %d, want 9", res.Messages)
		}
		_, err = importSample(t, svc, sampleExport(), slackimport.Options{Host: "acme.example.com"})
		wantCodeMsg(t, "same host", err, chat.CodeBadRequest, "An organization with host acme.example.com already exists")
	})
}
