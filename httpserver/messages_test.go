package httpserver_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teamchat/chat"
)

// messageEnv is the env with channel "Denmark" (ID 1) that the admin and
// the member are subscribed to, a linkifier, and the notification bot's
// announcement of the new channel (message 1).
func messageEnv(t *testing.T) *env {
	e := newEnv(t)
	e.expect(e.call(http.MethodPost, "/users/me/subscriptions", &e.admin,
		form("subscriptions", `[{"name":"Denmark"}]`, "principals", "["+itoa(e.admin.id)+","+itoa(e.member.id)+"]")),
		200, success("subscribed", map[string]any{itoa(e.admin.id): []any{"Denmark"}, itoa(e.member.id): []any{"Denmark"}},
			"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	e.expect(e.call(http.MethodPost, "/realm/filters", &e.admin,
		form("pattern", `#(?P<id>[0-9]+)`, "url_template", "https://tracker.example.com/{id}")), 200, success("id", float64(1)))
	return e
}

func send(e *env, as *account, kv ...string) float64 {
	e.t.Helper()
	res := e.call(http.MethodPost, "/messages", as, form(kv...))
	if res.status != 200 {
		e.t.Fatalf("send: %s", res.raw)
	}
	return res.body["id"].(float64)
}

func TestSendAndGetMessageRendersLinksMentionsLinkifiers(t *testing.T) {
	e := messageEnv(t)
	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "greetings",
		"content", "See https://example.com and @**Adam Admin** about #123, and #**Denmark**.  \n\n")
	if id != 2 {
		t.Fatalf("id %v, want 2", id)
	}
	rendered := `<p>See <a href="https://example.com">https://example.com</a> and ` +
		`<span class="user-mention" data-user-id="` + itoa(e.admin.id) + `">@Adam Admin</span> about ` +
		`<a href="https://tracker.example.com/123">#123</a>, and ` +
		`<a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a>.</p>`
	message := func(flags []any, content, contentType string) map[string]any {
		return map[string]any{
			"id": float64(2), "sender_id": float64(e.member.id), "sender_full_name": "Mel Member",
			"sender_email": "member@example.com", "sender_realm_str": "", "avatar_url": nil,
			"content": content, "content_type": contentType, "recipient_id": float64(4*1 + 2),
			"timestamp": float64(joined.Unix()), "client": "Unspecified", "subject": "greetings",
			"topic_links": []any{}, "is_me_message": false, "reactions": []any{}, "submessages": []any{},
			"flags": flags, "display_recipient": "Denmark", "type": "stream", "stream_id": float64(1),
		}
	}
	raw := "See https://example.com and @**Adam Admin** about #123, and #**Denmark**."
	e.expect(e.call(http.MethodGet, "/messages/2", &e.admin, nil), 200,
		success("message", message([]any{"mentioned"}, rendered, "text/html"), "raw_content", raw))
	e.expect(e.call(http.MethodGet, "/messages/2", &e.member, form("apply_markdown", "false")), 200,
		success("message", message([]any{}, raw, "text/x-markdown"), "raw_content", raw))
	// A public channel's history is open to members who are not
	// subscribed; guests see nothing.
	e.expect(e.call(http.MethodGet, "/messages/2", &e.moderator, nil), 200,
		success("message", message([]any{"read", "historical"}, rendered, "text/html"), "raw_content", raw))
	e.expectError(e.call(http.MethodGet, "/messages/2", &e.guest, nil), 400, chat.CodeBadRequest, "Invalid message(s)")
	e.expectError(e.call(http.MethodGet, "/messages/99", &e.admin, nil), 400, chat.CodeBadRequest, "Invalid message(s)")
	e.expectError(e.call(http.MethodGet, "/messages/x", &e.admin, nil), 400, chat.CodeBadRequest, "Invalid message(s)")
}

func TestSendMessageErrors(t *testing.T) {
	e := messageEnv(t)
	// Each "L1" renders as a link of about 2 070 bytes (MaxURLTemplateLength).
	long := "https://example.org/{id}/" + strings.Repeat("a", chat.MaxURLTemplateLength-25)
	e.expect(e.call(http.MethodPost, "/realm/filters", &e.admin, form("pattern", `L(?P<id>[0-9]+)`, "url_template", long)), 200, success("id", float64(2)))
	cases := []struct {
		name string
		as   *account
		form []string
		code chat.Code
		msg  string
		more []any
	}{
		{"no type", &e.member, []string{"to", "Denmark", "content", "x"}, chat.CodeRequestVariableMissing,
			"Missing 'type' argument", []any{"var_name", "type"}},
		{"bad type", &e.member, []string{"type", "huddle", "to", "1", "topic", "t", "content", "x"}, chat.CodeBadRequest, "Invalid type", nil},
		{"no channel", &e.member, []string{"type", "stream", "topic", "t", "content", "x"}, chat.CodeBadRequest, "Missing channel", nil},
		{"two channels", &e.member, []string{"type", "stream", "to", "[1,2]", "topic", "t", "content", "x"}, chat.CodeBadRequest, "Expected exactly one channel", nil},
		{"no topic", &e.member, []string{"type", "stream", "to", "1", "content", "x"}, chat.CodeBadRequest, "Missing topic", nil},
		{"both topic names", &e.member, []string{"type", "stream", "to", "1", "topic", "a", "subject", "b", "content", "x"},
			chat.CodeRequestConfusingVar, "Can't decide between 'topic' and 'subject' arguments", nil},
		{"unknown channel id", &e.member, []string{"type", "stream", "to", "9", "topic", "t", "content", "x"},
			chat.CodeStreamDoesNotExist, "Channel with ID '9' does not exist", []any{"stream_id", float64(9)}},
		{"unknown channel name", &e.member, []string{"type", "stream", "to", "<b>", "topic", "t", "content", "x"},
			chat.CodeStreamDoesNotExist, "Channel '&lt;b&gt;' does not exist", []any{"stream", "&lt;b&gt;"}},
		{"guest unsubscribed", &e.guest, []string{"type", "stream", "to", "1", "topic", "t", "content", "x"},
			chat.CodeStreamDoesNotExist, "Channel with ID '1' does not exist", []any{"stream_id", float64(1)}},
		{"empty", &e.member, []string{"type", "stream", "to", "1", "topic", "t", "content", " \n "}, chat.CodeBadRequest, "Message must not be empty", nil},
		{"null byte", &e.member, []string{"type", "stream", "to", "1", "topic", "t", "content", "a\x00b"}, chat.CodeBadRequest, "Message must not contain null bytes", nil},
		{"rendering too long", &e.member, []string{"type", "stream", "to", "1", "topic", "t", "content", strings.Repeat("L1 ", 490)},
			chat.CodeBadRequest, "Unable to render message", nil},
		{"bad topic", &e.member, []string{"type", "stream", "to", "1", "topic", "a\x01", "content", "x"}, chat.CodeBadRequest, "Invalid character in topic, at position 2!", nil},
		{"group mention not allowed", &e.member, []string{"type", "stream", "to", "1", "topic", "t", "content", "@*role:members* x"},
			chat.CodeBadRequest, "You are not allowed to mention user group 'role:members'.", nil},
		{"no recipients", &e.member, []string{"type", "direct", "to", "[]", "content", "x"}, chat.CodeBadRequest, "Message must have recipients", nil},
		{"unknown user", &e.member, []string{"type", "direct", "to", "[999]", "content", "x"}, chat.CodeBadRequest, "Invalid user ID 999", nil},
		{"unknown email", &e.member, []string{"type", "direct", "to", "who@example.com", "content", "x"}, chat.CodeBadRequest, "Invalid email 'who@example.com'", nil},
		{"mixed", &e.member, []string{"type", "direct", "to", `[1,"a@example.com"]`, "content", "x"}, chat.CodeBadRequest,
			"Recipient lists may contain emails or user IDs, but not both.", nil},
		{"bad to type", &e.member, []string{"type", "direct", "to", `{"a":1}`, "content", "x"}, chat.CodeBadRequest, "Invalid data type for recipients", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.expectError(e.call(http.MethodPost, "/messages", c.as, form(c.form...)), 400, c.code, c.msg, c.more...)
		})
	}
}

func TestDirectMessagesAndFetch(t *testing.T) {
	e := messageEnv(t)
	dm := send(e, &e.member, "type", "direct", "to", "["+itoa(e.admin.id)+"]", "content", "hi **there**")
	group := send(e, &e.member, "type", "private", "to", "admin@example.com, moderator@example.com", "content", "all of us")
	c1 := send(e, &e.admin, "type", "stream", "to", `"Denmark"`, "subject", "general chat", "content", "first words")
	c2 := send(e, &e.member, "type", "stream", "to", "[1]", "topic", "Walrus", "content", "second words, **bold**")
	res := e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "newest", "num_before", "3", "num_after", "2",
		"apply_markdown", "false"))
	if res.status != 200 {
		t.Fatal(res.raw)
	}
	var ids []any
	for _, m := range res.body["messages"].([]any) {
		ids = append(ids, m.(map[string]any)["id"])
	}
	if want := []any{group, c1, c2}; !equalAny(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if res.body["anchor"] != float64(chat.AnchorNewest) || res.body["found_anchor"] != false ||
		res.body["found_newest"] != true || res.body["found_oldest"] != false {
		t.Errorf("range fields: %s", res.raw)
	}
	first := res.body["messages"].([]any)[0].(map[string]any)
	if dr := first["display_recipient"].([]any); len(dr) != 3 || first["type"] != "private" || first["subject"] != "" {
		t.Errorf("group message: %v", first)
	}
	if second := res.body["messages"].([]any)[1].(map[string]any); second["subject"] != "general chat" {
		t.Errorf("empty topic shown as %q", second["subject"])
	}
	// The one-to-one message, by ID, with both participants in address
	// order.
	res = e.call(http.MethodGet, "/messages", &e.admin, form("message_ids", "["+ftoa(dm)+"]"))
	msg := res.body["messages"].([]any)[0].(map[string]any)
	e.t.Helper()
	if got := msg["display_recipient"]; !equalAny(got.([]any), []any{
		map[string]any{"id": float64(e.admin.id), "email": "admin@example.com", "full_name": "Adam Admin", "is_mirror_dummy": false},
		map[string]any{"id": float64(e.member.id), "email": "member@example.com", "full_name": "Mel Member", "is_mirror_dummy": false},
	}) || msg["content"] != "<p>hi <strong>there</strong></p>" || res.body["anchor"] != nil {
		t.Errorf("dm: %s", res.raw)
	}
	// Narrows and search, with highlighting.
	res = e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "oldest", "num_after", "10",
		"narrow", `[{"operator":"channel","operand":"Denmark"},{"operator":"search","operand":"WORDS"}]`))
	var matched []any
	for _, m := range res.body["messages"].([]any) {
		mm := m.(map[string]any)
		matched = append(matched, mm["id"], mm["match_content"])
	}
	if want := []any{c1, `<p>first <span class="highlight">words</span></p>`,
		c2, `<p>second <span class="highlight">words</span>, <strong>bold</strong></p>`}; !equalAny(matched, want) {
		t.Errorf("search: %v", matched)
	}
	e.expect(e.call(http.MethodGet, "/messages/matches_narrow", &e.admin, form("msg_ids", "["+ftoa(c1)+","+ftoa(c2)+","+ftoa(dm)+"]",
		"narrow", `[["topic","walrus"],["search","bold"]]`)), 200, success("messages", map[string]any{
		ftoa(c2): map[string]any{"match_content": `<p>second words, <strong><span class="highlight">bold</span></strong></p>`,
			"match_subject": "Walrus"}}))
	// Errors.
	e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("num_before", "1")), 400, chat.CodeBadRequest, "Missing 'anchor' argument.")
	e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "soon")), 400, chat.CodeBadRequest, "Invalid anchor")
	e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "1", "num_before", "1", "num_after", "1",
		"include_anchor", "false")), 400, chat.CodeBadRequest, "The anchor can only be excluded at an end of the range")
	e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "1", "num_before", "4000", "num_after", "1001")),
		400, chat.CodeBadRequest, "Too many messages requested (maximum 5000).")
	e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "1", "message_ids", "[1]")),
		400, chat.CodeBadRequest, "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor")
	for narrow, desc := range map[string]string{
		`[["foo","x"]]`:                         "unknown operator foo",
		`[["has","gif"]]`:                       "unknown 'has' operand gif",
		`[["is","x"]]`:                          "unknown 'is' operand x",
		`[["channel","Nowhere"]]`:               "unknown channel Nowhere",
		`[{"operator":"sender","operand":"x"}]`: "unknown user x",
	} {
		e.expectError(e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "newest", "narrow", narrow)),
			400, chat.CodeBadNarrow, "Invalid narrow operator: "+desc, "desc", desc)
	}
	for narrow, msg := range map[string]string{
		`[{"operand":"x"}]`:   "Invalid narrow[0]: Value error, operator is missing",
		`[{"operator":"is"}]`: "Invalid narrow[0]: Value error, operand is missing",
		`[5]`:                 "Invalid narrow[0]: Value error, dict or list required",
		`[["a","b","c"]]`:     "Invalid narrow[0]: Value error, element is not a string pair",
		`{"operator":"is"}`:   "narrow is not a list",
		`[["is", "dm"]`:       "narrow is not valid JSON",
	} {
		e.expectError(e.call(http.MethodGet, "/messages/matches_narrow", &e.admin, form("msg_ids", "[1]", "narrow", narrow)),
			400, chat.CodeBadRequest, msg)
	}
	e.expectError(e.call(http.MethodGet, "/messages/matches_narrow", &e.admin, form("narrow", "[]")),
		400, chat.CodeRequestVariableMissing, "Missing 'msg_ids' argument", "var_name", "msg_ids")
}

func ftoa(f float64) string { return itoa(int64(f)) }

func equalAny(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		am, aok := a[i].(map[string]any)
		bm, bok := b[i].(map[string]any)
		if aok && bok {
			if len(am) != len(bm) {
				return false
			}
			for k, v := range am {
				if bm[k] != v {
					return false
				}
			}
			continue
		}
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var _ = strings.TrimSpace

// TestMessageFlagsRoute checks POST /messages/flags: its whole answer, the
// flags read back, the route beside /messages/{message_id}, and its
// parameter errors.
func TestMessageFlagsRoute(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/messages", &e.owner, form("type", "direct", "to", "["+itoa(e.member.id)+"]", "content", "hi"))
	id := int64(res.body["id"].(float64))
	e.expect(e.call(http.MethodPost, "/messages/flags", &e.member, form("messages", "["+itoa(id)+"]", "op", "add", "flag", "starred")),
		200, success("messages", []any{float64(id)}))
	res = e.call(http.MethodGet, "/messages/"+itoa(id), &e.member, nil)
	if msg, _ := res.body["message"].(map[string]any); msg == nil || fmt.Sprint(msg["flags"]) != "[starred]" {
		t.Errorf("flags after starring: %s", res.raw)
	}
	e.expectError(e.call(http.MethodPost, "/messages/flags", &e.member, form("op", "add", "flag", "read")), 400,
		chat.CodeRequestVariableMissing, "Missing 'messages' argument", "var_name", "messages")
	e.expectError(e.call(http.MethodPost, "/messages/flags", &e.member, form("messages", "[1]", "op", "add", "flag", "historical")), 400,
		chat.CodeBadRequest, "Flag not editable: 'historical'")
	e.expectError(e.call(http.MethodPost, "/messages/flags", &e.member, form("messages", `["x"]`, "op", "add", "flag", "read")), 400,
		chat.CodeBadRequest, "messages[0] is not an integer")
}

// TestMessageFlagsNarrowRoute checks POST /messages/flags/narrow: its whole
// answer, the route beside /messages/{message_id} and /messages/flags, and
// its parameter errors.
func TestMessageFlagsNarrowRoute(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/messages", &e.owner, form("type", "direct", "to", "["+itoa(e.member.id)+"]", "content", "hi"))
	id := int64(res.body["id"].(float64))
	narrow := `[{"operator":"dm","operand":[` + itoa(e.owner.id) + `]}]`
	e.expect(e.call(http.MethodPost, "/messages/flags/narrow", &e.member, form("anchor", "first_unread", "num_before", "0",
		"num_after", "10", "narrow", narrow, "op", "add", "flag", "read")),
		200, success("processed_count", float64(1), "updated_count", float64(1), "first_processed_id", float64(id),
			"last_processed_id", float64(id), "found_oldest", false, "found_newest", true))
	// Nothing unread left: first_unread is past the newest message.
	e.expect(e.call(http.MethodPost, "/messages/flags/narrow", &e.member, form("anchor", "first_unread", "num_before", "0",
		"num_after", "10", "narrow", narrow, "op", "add", "flag", "read")),
		200, success("processed_count", float64(0), "updated_count", float64(0), "first_processed_id", nil,
			"last_processed_id", nil, "found_oldest", false, "found_newest", true))
	e.expectError(e.call(http.MethodPost, "/messages/flags/narrow", &e.member, form("anchor", "newest", "num_before", "1",
		"num_after", "0", "op", "add", "flag", "read")), 400,
		chat.CodeRequestVariableMissing, "Missing 'narrow' argument", "var_name", "narrow")
	e.expectError(e.call(http.MethodPost, "/messages/flags/narrow", &e.member, form("anchor", "newest", "num_after", "0",
		"narrow", "[]", "op", "add", "flag", "read")), 400,
		chat.CodeRequestVariableMissing, "Missing 'num_before' argument", "var_name", "num_before")
	e.expectError(e.call(http.MethodPost, "/messages/flags/narrow", &e.member, form("anchor", "newest", "num_before", "1",
		"num_after", "0", "narrow", "[]", "op", "add", "flag", "historical")), 400,
		chat.CodeBadRequest, "Flag not editable: 'historical'")
	e.expect(e.call(http.MethodGet, "/messages/flags/narrow", &e.member, nil), 405,
		map[string]any{"result": "error", "msg": "Method Not Allowed", "allowed_methods": []any{"POST"}})
}

// :name: renders a Unicode emoji name or alias of the reference's table as
// the reference does, titled with the name as written; unknown names, names
// in code and names inside other text stay as written.
func TestSendRendersEmojiNames(t *testing.T) {
	e := messageEnv(t)
	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "emoji",
		"content", "Done :thumbs_up: :+1::working_on_it: :no_such_emoji: `:smile:` at 10:30:45 :check:")
	span := func(name, title, code string) string {
		return `<span aria-label="` + title + `" class="emoji emoji-` + code + `" role="img" title="` + title + `">:` + name + `:</span>`
	}
	want := `<p>Done ` + span("thumbs_up", "thumbs up", "1f44d") + ` ` + span("+1", "+1", "1f44d") +
		span("working_on_it", "working on it", "1f6e0") + ` :no_such_emoji: <code>:smile:</code> at 10:30:45 ` +
		span("check", "check", "2705") + `</p>`
	res := e.call(http.MethodGet, "/messages/"+itoa(int64(id)), &e.member, nil)
	if res.status != http.StatusOK {
		t.Fatalf("get: %s", res.raw)
	}
	if got := res.body["message"].(map[string]any)["content"]; got != want {
		t.Errorf("content\n got %s\nwant %s", got, want)
	}
}
