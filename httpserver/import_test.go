package httpserver_test

import (
	"archive/zip"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage/memory"
)

const importHost = "acme.example.com"

// slackExport is a small Slack export: an owner and a member, a channel
// with a thread, a mention and a reaction, and a direct conversation.
var slackExport = map[string]string{
	"users.json": `[
		{"id": "U1", "name": "alice", "is_primary_owner": true, "tz": "Europe/Paris",
		 "profile": {"real_name": "Alice Archer", "email": "alice@example.com"}},
		{"id": "U2", "name": "bob", "profile": {"real_name": "Bob Baker", "email": "bob@example.com"}}]`,
	"channels.json": `[{"id": "C1", "name": "general", "members": ["U1", "U2"], "purpose": {"value": "All of us"}}]`,
	"dms.json":      `[{"id": "D1", "members": ["U1", "U2"]}]`,
	"general/2024-01-01.json": `[
		{"type": "message", "user": "U1", "ts": "1704103200.000000", "thread_ts": "1704103200.000000", "text": "Plans for <@U2>",
		 "reactions": [{"name": "thumbsup", "users": ["U2"], "count": 1}]},
		{"type": "message", "user": "U2", "ts": "1704103260.000000", "thread_ts": "1704103200.000000", "text": "Sounds good",
		 "edited": {"user": "U2", "ts": "1704103300.000000"}}]`,
	"D1/2024-01-01.json": `[{"type": "message", "user": "U2", "ts": "1704103400.000000", "text": "psst"}]`,
}

func TestImportedOrganization(t *testing.T) {
	secret := []byte("jwt-secret")
	clock := joined
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.Now = func() time.Time { return clock }
		c.JWTSecret = secret
	})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range slackExport {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	res, err := slackimport.Import(context.Background(), e.svc, bytes.NewReader(buf.Bytes()), int64(buf.Len()),
		slackimport.Options{Name: "Acme", Host: importHost})
	if err != nil {
		t.Fatal(err)
	}

	at := func(method, path string, as *account, form url.Values) response {
		t.Helper()
		r := e.request(method, path, as, form)
		r.Host = importHost
		return e.do(r)
	}
	login := func(email string) account {
		t.Helper()
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": email}).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		r := at(http.MethodPost, "/jwt/fetch_api_key", nil, form("token", token, "include_profile", "true"))
		if r.status != http.StatusOK {
			t.Fatalf("JWT login of %s: %s", email, r.raw)
		}
		return account{id: int64(r.body["user"].(map[string]any)["user_id"].(float64)), email: email, key: r.body["api_key"].(string)}
	}

	// Alice logs in an hour after the import; Bob has not logged in yet.
	clock = joined.Add(time.Hour)
	alice := login("alice@example.com")
	bob := account{id: alice.id + 1, email: "bob@example.com"}
	e.expect(at(http.MethodGet, "/users", &alice, nil), http.StatusOK, success("members", []any{
		userJSON(alice, "Alice Archer", chat.RoleOwner, set("date_joined", "2025-03-30T13:34+00:00"), set("timezone", "Europe/Paris")),
		userJSON(bob, "Bob Baker", chat.RoleMember, set("is_imported_stub", true)),
	}))

	// Bob's first login, a day later, ends his stub and dates his joining.
	clock = joined.Add(24 * time.Hour)
	bob = login("bob@example.com")
	e.expect(at(http.MethodGet, "/users/"+itoa(bob.id), &alice, nil), http.StatusOK, success(
		"user", userJSON(bob, "Bob Baker", chat.RoleMember, set("date_joined", "2025-03-31T12:34+00:00"))))

	streams := at(http.MethodGet, "/streams", &bob, nil)
	list := streams.body["streams"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["name"] != "general" || list[0].(map[string]any)["description"] != "All of us" {
		t.Errorf("streams: %s", streams.raw)
	}

	msgs := at(http.MethodGet, "/messages", &bob, form("anchor", "oldest", "num_before", "0", "num_after", "10",
		"client_gravatar", "true", "apply_markdown", "true"))
	if msgs.status != http.StatusOK {
		t.Fatalf("GET /messages: %s", msgs.raw)
	}
	type summary struct {
		ID, Sender        float64
		Topic, Content    string
		Timestamp, Edited any
		Reactions         any
		Flags             any
	}
	var got []summary
	for _, m := range msgs.body["messages"].([]any) {
		m := m.(map[string]any)
		got = append(got, summary{m["id"].(float64), m["sender_id"].(float64), m["subject"].(string), m["content"].(string),
			m["timestamp"], m["last_edit_timestamp"], m["reactions"], m["flags"]})
	}
	first := got[0].ID
	topic := "Plans for @Bob Baker"
	want := []summary{
		{first, float64(alice.id), topic,
			`<p>Plans for <span class="user-mention" data-user-id="` + itoa(bob.id) + `">@Bob Baker</span></p>`,
			float64(1704103200), nil,
			[]any{map[string]any{"emoji_name": "thumbsup", "emoji_code": "1f44d", "reaction_type": "unicode_emoji",
				"user_id": float64(bob.id)}},
			[]any{"read", "mentioned"}},
		{first + 1, float64(bob.id), topic, "<p>Sounds good</p>", float64(1704103260), float64(1704103300), []any{}, []any{"read"}},
		{first + 2, float64(bob.id), "", "<p>psst</p>", float64(1704103400), nil, []any{}, []any{"read"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("messages (-want +got):\n%s\n%s", d, msgs.raw)
	}
	if res.Messages != 3 || res.Reactions != 1 {
		t.Errorf("import result %+v", res)
	}
}
