package httpserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat"
)

// TestPatchMessageTopic moves a topic over HTTP: topic and propagate_mode
// are read (no longer ignored), the move shows in the fetched message, and
// the refusals carry the reference's texts.
func TestPatchMessageTopic(t *testing.T) {
	e := messageEnv(t)
	first := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "old", "content", "one")
	second := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "old", "content", "two")
	e.expect(e.call(http.MethodPatch, "/messages/"+ftoa(first), &e.member, form("topic", "new", "propagate_mode", "change_all")),
		http.StatusOK, success("detached_uploads", []any{}))
	for _, id := range []float64{first, second} {
		res := e.call(http.MethodGet, "/messages/"+ftoa(id), &e.member, nil)
		if res.status != http.StatusOK {
			t.Fatalf("get: %s", res.raw)
		}
		if got := res.body["message"].(map[string]any)["subject"]; got != "new" {
			t.Errorf("message %v: topic %v, want new", id, got)
		}
	}
	e.expectError(e.call(http.MethodPatch, "/messages/"+ftoa(first), &e.member, form("topic", "x", "propagate_mode", "all")),
		http.StatusBadRequest, chat.CodeBadRequest, "Invalid propagate_mode")
	dm := send(e, &e.member, "type", "direct", "to", itoa(e.admin.id), "content", "hi")
	e.expectError(e.call(http.MethodPatch, "/messages/"+ftoa(dm), &e.member, form("topic", "x")),
		http.StatusBadRequest, chat.CodeBadRequest, "Direct messages cannot have topics.")
}

// TestPatchMessageChannel moves a message to another channel over HTTP:
// stream_id and the notification parameters are read, the message shows
// in its new channel, the notice goes to the old topic only, and moving a
// direct message is refused with the reference's text.
func TestPatchMessageChannel(t *testing.T) {
	e := messageEnv(t)
	e.expect(e.call(http.MethodPost, "/users/me/subscriptions", &e.admin,
		form("subscriptions", `[{"name":"Norway"}]`, "principals", "["+itoa(e.admin.id)+","+itoa(e.member.id)+"]")),
		http.StatusOK, success("subscribed", map[string]any{itoa(e.admin.id): []any{"Norway"}, itoa(e.member.id): []any{"Norway"}},
			"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "trip", "content", "fjords")
	res := e.call(http.MethodGet, "/get_stream_id", &e.member, form("stream", "Norway"))
	norway := res.body["stream_id"].(float64)
	e.expect(e.call(http.MethodPatch, "/messages/"+ftoa(id), &e.member, form("stream_id", ftoa(norway),
		"send_notification_to_old_thread", "true", "send_notification_to_new_thread", "false")),
		http.StatusOK, success("detached_uploads", []any{}))
	res = e.call(http.MethodGet, "/messages/"+ftoa(id), &e.member, nil)
	if m := res.body["message"].(map[string]any); m["stream_id"] != norway || m["display_recipient"] != "Norway" || m["subject"] != "trip" {
		t.Errorf("moved message: %s", res.raw)
	}
	res = e.call(http.MethodGet, "/messages", &e.member, form("anchor", "newest", "num_before", "5", "num_after", "0",
		"narrow", `[["channel","Denmark"],["topic","trip"]]`, "apply_markdown", "false"))
	msgs := res.body["messages"].([]any)
	want := "This topic was moved to #**Norway>trip** by @_**Mel Member|" + itoa(e.member.id) + "**."
	if len(msgs) != 1 || msgs[0].(map[string]any)["content"] != want {
		t.Errorf("old topic after the move: %s", res.raw)
	}
	dm := send(e, &e.member, "type", "direct", "to", itoa(e.admin.id), "content", "hi")
	e.expectError(e.call(http.MethodPatch, "/messages/"+ftoa(dm), &e.member, form("stream_id", ftoa(norway))),
		http.StatusBadRequest, chat.CodeBadRequest, "Direct messages cannot be moved to channels.")
}

// TestRenderMessage previews content over HTTP: rendered as a message of
// the caller, with mentions and channel links, and nothing stored.
func TestRenderMessage(t *testing.T) {
	e := messageEnv(t)
	e.expect(e.call(http.MethodPost, "/messages/render", &e.member, form("content", "**hi** @**Adam Admin** in #**Denmark** :octopus:")),
		http.StatusOK, success("rendered", `<p><strong>hi</strong> <span class="user-mention" data-user-id="`+itoa(e.admin.id)+
			`">@Adam Admin</span> in <a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a> `+
			`<span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>`))
	e.expectError(e.call(http.MethodPost, "/messages/render", &e.member, nil),
		http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'content' argument", "var_name", "content")
	res := e.call(http.MethodGet, "/messages", &e.member, form("anchor", "newest", "num_before", "5", "num_after", "0"))
	for _, m := range res.body["messages"].([]any) {
		if strings.Contains(m.(map[string]any)["content"].(string), "octopus") {
			t.Errorf("a rendered preview was stored: %v", m)
		}
	}
}

// TestMessageHistoryHTTP reads a message's history over HTTP after a
// content edit.
func TestMessageHistoryHTTP(t *testing.T) {
	e := messageEnv(t)
	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "notes", "content", "draft")
	e.expect(e.call(http.MethodPatch, "/messages/"+ftoa(id), &e.member, form("content", "done")),
		http.StatusOK, success("detached_uploads", []any{}))
	res := e.call(http.MethodGet, "/messages/"+ftoa(id)+"/history", &e.admin, nil)
	if res.status != http.StatusOK {
		t.Fatalf("history: %s", res.raw)
	}
	h := res.body["message_history"].([]any)
	if len(h) != 2 {
		t.Fatalf("history: %s", res.raw)
	}
	last := h[1].(map[string]any)
	ts := last["timestamp"]
	want := map[string]any{"topic": "notes", "content": "done", "rendered_content": "<p>done</p>",
		"timestamp": ts, "user_id": float64(e.member.id), "prev_content": "draft", "prev_rendered_content": "<p>draft</p>"}
	if d := cmp.Diff(want, last); d != "" {
		t.Errorf("the edit (-want +got):\n%s", d)
	}
	e.expectError(e.call(http.MethodGet, "/messages/9999/history", &e.admin, nil),
		http.StatusBadRequest, chat.CodeBadRequest, "Invalid message(s)")
}

// TestPatchMessageIDInBody: the official Python library repeats the
// message ID in the body of PATCH /messages/{id}; it is not reported as
// ignored.
func TestPatchMessageIDInBody(t *testing.T) {
	e := messageEnv(t)
	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "a", "content", "x")
	e.expect(e.call(http.MethodPatch, "/messages/"+ftoa(id), &e.member, form("message_id", ftoa(id), "topic", "b")),
		http.StatusOK, success("detached_uploads", []any{}))
}
