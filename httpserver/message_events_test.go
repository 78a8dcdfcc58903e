package httpserver_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMessageEventsOverHTTP follows one channel message through two event
// queues: sent (with the sender's local ID echoed to the sender's queue
// only), edited, reacted to, edit-typed and deleted. Every event is
// compared whole, and each GET /events answer is also checked against the
// message event schemas of openapi.json.
func TestMessageEventsOverHTTP(t *testing.T) {
	e := messageEnv(t)
	types := `["message","update_message","reaction","typing_edit_message","delete_message"]`
	adminQ := e.register(&e.admin, "event_types", types, "apply_markdown", "true",
		"client_capabilities", `{"bulk_message_deletion":true}`)
	memberQ := e.register(&e.member, "event_types", `["message","delete_message"]`)

	res := e.call(http.MethodPost, "/register", &e.admin, form("fetch_event_types", `["message"]`, "event_types", `["message"]`))
	if res.body["max_message_id"] != float64(1) {
		t.Errorf("max_message_id %v, want 1 (the channel announcement)", res.body["max_message_id"])
	}

	id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "t", "content", "hello **all**",
		"queue_id", memberQ, "local_id", "1.01")
	path := "/messages/" + ftoa(id)
	e.expect(e.call(http.MethodPatch, path, &e.member, form("content", "after")), 200, success("detached_uploads", []any{}))
	e.expect(e.call(http.MethodPost, path+"/reactions", &e.admin, form("emoji_name", "octopus")), 200, success())
	e.expect(e.call(http.MethodPost, path+"/typing", &e.member, form("op", "start")), 200, success())
	e.expect(e.call(http.MethodDelete, path, &e.member, nil), 200, success())

	message := func(content, contentType string) map[string]any {
		return map[string]any{
			"id": id, "sender_id": float64(e.member.id), "sender_full_name": "Mel Member",
			"sender_email": "member@example.com", "sender_realm_str": "", "avatar_url": nil,
			"content": content, "content_type": contentType, "recipient_id": float64(4*1 + 2),
			"timestamp": float64(joined.Unix()), "client": "Unspecified", "subject": "t",
			"topic_links": []any{}, "is_me_message": false, "reactions": []any{}, "submessages": []any{},
			"display_recipient": "Denmark", "type": "stream", "stream_id": float64(1),
		}
	}
	admin := e.events(&e.admin, adminQ, -1, true)
	wantAdmin := []any{
		map[string]any{"id": float64(0), "type": "message", "flags": []any{},
			"message": message("<p>hello <strong>all</strong></p>", "text/html")},
		map[string]any{"id": float64(1), "type": "update_message", "user_id": float64(e.member.id),
			"edit_timestamp": float64(joined.Unix()), "message_id": id, "message_ids": []any{id}, "rendering_only": false,
			"orig_content": "hello **all**", "orig_rendered_content": "<p>hello <strong>all</strong></p>",
			"content": "after", "rendered_content": "<p>after</p>", "is_me_message": false,
			"stream_id": float64(1), "stream_name": "Denmark", "flags": []any{}},
		map[string]any{"id": float64(2), "type": "reaction", "op": "add", "user_id": float64(e.admin.id),
			"user":       map[string]any{"user_id": float64(e.admin.id), "email": "admin@example.com", "full_name": "Adam Admin"},
			"message_id": id, "emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "unicode_emoji"},
		map[string]any{"id": float64(3), "type": "typing_edit_message", "op": "start", "sender_id": float64(e.member.id),
			"message_id": id, "recipient": map[string]any{"type": "channel", "channel_id": float64(1), "topic": "t"}},
		map[string]any{"id": float64(4), "type": "delete_message", "message_ids": []any{id}, "message_type": "stream",
			"stream_id": float64(1), "topic": "t"},
	}
	if diff := cmp.Diff(wantAdmin, admin.body["events"]); diff != "" {
		t.Errorf("admin's queue (-want +got):\n%s", diff)
	}

	// The member's queue takes Markdown (apply_markdown defaults to false
	// for queues), gets the local ID back, and one delete_message event
	// per message without bulk_message_deletion.
	member := e.events(&e.member, memberQ, -1, true)
	wantMember := []any{
		map[string]any{"id": float64(0), "type": "message", "flags": []any{}, "local_message_id": "1.01",
			"message": message("hello **all**", "text/x-markdown")},
		map[string]any{"id": float64(1), "type": "delete_message", "message_id": id, "message_type": "stream",
			"stream_id": float64(1), "topic": "t"},
	}
	if diff := cmp.Diff(wantMember, member.body["events"]); diff != "" {
		t.Errorf("member's queue (-want +got):\n%s", diff)
	}
}
