package httpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teamchat/chat"
)

// TestChannelTypingSubscriberLimit: channel typing notifications reach the
// subscribers of a channel of up to 100 active subscribers, and nobody in a
// larger one (PROTOCOL.md B1.8, C4.3); the same for edit typing.
func TestChannelTypingSubscriberLimit(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	ctx := context.Background()
	ids := []string{itoa(e.member.id), itoa(e.guest.id)}
	for i := range 98 {
		u, err := e.svc.ProvisionUser(ctx, 1, chat.NewUser{Email: fmt.Sprintf("crowd%d@example.com", i), FullName: "Crowd Member"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, itoa(u.UserID))
	}
	subscribe := func(principals []string) {
		t.Helper()
		res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form(
			"subscriptions", `[{"name":"crowd"}]`, "principals", "["+strings.Join(principals, ",")+"]"))
		if res.status != http.StatusOK {
			t.Fatalf("subscribe: %s", res.raw)
		}
	}
	subscribe(ids) // 100 subscribers: the owner is not one of them
	streamID := e.call(http.MethodGet, "/streams", &e.member, nil).body["streams"].([]any)[0].(map[string]any)["stream_id"]
	queue := e.register(&e.guest, "event_types", `["typing","typing_edit_message"]`,
		"client_capabilities", `{"stream_typing_notifications":true}`)
	last := -1
	typing := func() []any {
		t.Helper()
		res := e.call(http.MethodPost, "/typing", &e.member, form(
			"type", "channel", "op", "start", "stream_id", fmt.Sprint(streamID), "topic", "lunch"))
		if res.status != http.StatusOK {
			t.Fatalf("typing: %s", res.raw)
		}
		res = e.events(&e.guest, queue, last, true)
		got, ok := res.body["events"].([]any)
		if !ok {
			t.Fatalf("events: %s", res.raw)
		}
		if len(got) > 0 {
			last = int(got[len(got)-1].(map[string]any)["id"].(float64))
		}
		return got
	}
	if got := typing(); len(got) != 1 || got[0].(map[string]any)["message_type"] != "stream" {
		t.Fatalf("100 subscribers: events %v, want one channel typing event", got)
	}

	// One more subscriber, and nobody hears about typing any more.
	subscribe([]string{itoa(e.owner.id)})
	if got := typing(); len(got) != 0 {
		t.Errorf("101 subscribers: events %v, want none", got)
	}
}
