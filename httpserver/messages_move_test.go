package httpserver_test

import (
	"net/http"
	"testing"

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
