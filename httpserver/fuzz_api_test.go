package httpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/teamchat/chat"
)

// The fuzz targets of whole requests: each sends fuzzed parameters to one
// route and checks that the answer is a JSON envelope, a success or a
// client error with a code, never a 500 or a panic.

// fuzzServe serves r and checks the answer; it returns the decoded body.
func fuzzServe(t *testing.T, h http.Handler, r *http.Request) map[string]any {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %q", r.Method, r.URL, w.Body)
	}
	switch {
	case w.Code == http.StatusOK && body["result"] == "success":
	case (w.Code == http.StatusBadRequest || w.Code == http.StatusNotFound) && body["result"] == "error" &&
		body["code"] != nil && body["code"] != string(chat.CodeInternalServerError) && body["msg"] != "":
	default:
		t.Fatalf("%s %s: %d %s", r.Method, r.URL, w.Code, w.Body)
	}
	return body
}

func FuzzRegisterNarrow(f *testing.F) {
	e := newEnv(f)
	for _, s := range [][2]string{
		{`[["channel","general"],["topic","lunch"]]`, `["message"]`},
		{`[["is","followed"]]`, `null`},
		{`[["sender","a@b"],["is","private"]]`, `["message","typing"]`},
		{`[["search","x"]]`, `[]`}, {`[["a"]]`, `["x"]`}, {`[[1,2]]`, `[1]`},
		{`{"operator":"channel"}`, `"message"`}, {`[]`, ``},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, narrow, eventTypes string) {
		values := form("narrow", narrow)
		if eventTypes != "" {
			values.Set("event_types", eventTypes)
		}
		body := fuzzServe(t, e.h, e.request(http.MethodPost, "/register", &e.member, values))
		if q, ok := body["queue_id"].(string); ok {
			if err := e.svc.DeleteQueue(context.Background(), chat.AsUser(e.member.id), q); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzStatusEmoji(f *testing.F) {
	e := newEnv(f)
	f.Add("busy", "smile", "1f604", "unicode_emoji")
	f.Add("", "zulip", "zulip", "zulip_extra_emoji")
	f.Add("", "thumbs_up", "1f44d", "realm_emoji")
	f.Add("x", "", "", "")
	f.Add("", "smile", "", "unicode_emoji")
	f.Add("", "flag_ch", "1f1e8-1f1ed", "unicode_emoji")
	f.Fuzz(func(t *testing.T, text, name, code, typ string) {
		values := form("status_text", text, "emoji_name", name, "emoji_code", code, "reaction_type", typ)
		fuzzServe(t, e.h, e.request(http.MethodPost, "/users/me/status", &e.member, values))
	})
}

func FuzzProfileDataValues(f *testing.F) {
	e := newEnv(f)
	ctx := context.Background()
	var fields []int64
	for _, nf := range []chat.NewProfileField{
		{Name: "Short", Type: chat.FieldShortText},
		{Name: "Long", Type: chat.FieldLongText},
		{Name: "Choice", Type: chat.FieldChoice, FieldData: json.RawMessage(`{"a":{"text":"A","order":"1"},"b":{"text":"B","order":"2"}}`)},
		{Name: "Date", Type: chat.FieldDate},
		{Name: "Link", Type: chat.FieldLink},
		{Name: "Users", Type: chat.FieldUsers},
		{Name: "GitHub", Type: chat.FieldExternalAccount, FieldData: json.RawMessage(`{"subtype":"github"}`)},
		{Name: "Pronouns", Type: chat.FieldPronouns},
	} {
		nf.EditableByUser = true
		id, err := e.svc.CreateProfileField(ctx, chat.AsUser(e.owner.id), nf)
		if err != nil {
			f.Fatalf("creating %s: %v", nf.Name, err)
		}
		fields = append(fields, id)
	}
	for i, v := range []string{`"text"`, `"long\ntext"`, `"a"`, `"2024-02-29"`, `"https://example.org"`,
		fmt.Sprintf("[%d]", e.owner.id), `"octocat"`, `"they/them"`} {
		f.Add(uint8(i), v)
	}
	for _, v := range []string{`null`, `""`, `[]`, `"2023-02-29"`, `"javascript:alert(1)"`, `[0,-1]`, `"c"`, `12`, `{"x":1}`} {
		f.Add(uint8(0), v)
		f.Add(uint8(5), v)
	}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		id := fields[int(which)%len(fields)]
		data := fmt.Sprintf(`[{"id":%d,"value":%s}]`, id, value)
		fuzzServe(t, e.h, e.request(http.MethodPatch, "/users/me/profile_data", &e.member, form("data", data)))
	})
}

// FuzzMessageNarrow sends fuzzed narrows and anchors to GET /messages over
// a channel with a few messages, so that the narrow is compiled and run,
// not only parsed.
func FuzzMessageNarrow(f *testing.F) {
	e := newEnv(f)
	if res := e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions", `[{"name":"fuzz"}]`,
		"principals", "["+itoa(e.admin.id)+","+itoa(e.member.id)+"]")); res.status != http.StatusOK {
		f.Fatalf("subscribing: %s", res.raw)
	}
	for _, m := range []url.Values{
		form("type", "channel", "to", "fuzz", "topic", "lunch", "content", "pizza @**Adam Admin**"),
		form("type", "channel", "to", "fuzz", "topic", "work", "content", "deadline *soon*"),
		form("type", "direct", "to", "["+itoa(e.admin.id)+"]", "content", "private word"),
	} {
		if res := e.call(http.MethodPost, "/messages", &e.member, m); res.status != http.StatusOK {
			f.Fatalf("sending: %s", res.raw)
		}
	}
	for _, s := range [][2]string{
		{`[["channel","fuzz"],["topic","lunch"]]`, "newest"}, {`[{"operator":"is","operand":"mentioned","negated":true}]`, "oldest"},
		{`[["dm","` + e.admin.email + `"]]`, "first_unread"}, {`[["search","pizza soon"]]`, "2"}, {`[["sender",` + itoa(e.member.id) + `]]`, "0"},
		{`[["id",3],["near",2]]`, "newest"}, {`[["channel",99],["dm",[1,2]]]`, "-1"}, {`[["has","link"],["is","unread"]]`, "9999999999999999999"},
		{`[["dm-including","nobody@example.com"]]`, "date"}, {`[["streams","public"]]`, "newest"}, {`[["bogus","x"]]`, ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, narrow, anchor string) {
		values := form("narrow", narrow, "num_before", "3", "num_after", "3")
		if anchor != "" {
			values.Set("anchor", anchor)
		}
		fuzzServe(t, e.h, e.request(http.MethodGet, "/messages", &e.member, values))
	})
}
