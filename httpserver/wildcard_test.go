package httpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teamchat/chat"
)

// TestWildcardMentionPermission checks who may notify a crowd: anyone may
// use @all, @everyone and @channel in a channel of at most 15 active
// subscribers and @topic in a topic at most 15 active users wrote to;
// beyond that only administrators may (the reference server's default),
// and a refused message is not stored. Direct messages are not limited.
func TestWildcardMentionPermission(t *testing.T) {
	e := messageEnv(t) // Denmark: the administrator and the member
	ctx := context.Background()
	var extra []account
	for i := range 14 {
		u, err := e.svc.ProvisionUser(ctx, 1, chat.NewUser{Email: fmt.Sprintf("crowd%d@example.com", i), FullName: fmt.Sprintf("Crowd %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, account{u.UserID, u.Email, u.APIKey})
	}
	subscribe := func(a account) {
		t.Helper()
		e.expect(e.call(http.MethodPost, "/users/me/subscriptions", &a, form("subscriptions", `[{"name":"Denmark"}]`)),
			200, success("subscribed", map[string]any{itoa(a.id): []any{"Denmark"}}, "already_subscribed", map[string]any{},
				"new_subscription_messages_sent", true))
	}
	channelMsg := func(as *account, topic, content string) response {
		return e.call(http.MethodPost, "/messages", as, form("type", "channel", "to", "Denmark", "topic", topic, "content", content))
	}
	newest := func() float64 {
		t.Helper()
		res := e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "newest", "num_before", "1", "num_after", "0"))
		msgs, _ := res.body["messages"].([]any)
		if len(msgs) == 0 {
			t.Fatalf("no newest message: %s", res.raw)
		}
		return msgs[len(msgs)-1].(map[string]any)["id"].(float64)
	}
	channelRefused := func(res response) {
		t.Helper()
		e.expectError(res, http.StatusBadRequest, chat.CodeStreamWildcardNotAllowed,
			"You do not have permission to use channel wildcard mentions in this channel.")
	}

	// 15 subscribers: anyone.
	for _, a := range extra[:13] {
		subscribe(a)
	}
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "small", "content", "hello @**all**")

	// 16: administrators only, whichever wildcard; nothing is stored.
	subscribe(extra[13])
	before := newest()
	for _, w := range []string{"@**all**", "@**everyone**", "@**channel**", "@**stream**"} {
		channelRefused(channelMsg(&e.member, "small", "hello "+w))
	}
	if got := newest(); got != before {
		t.Errorf("newest message %v after refused sends, want %v", got, before)
	}
	send(e, &e.admin, "type", "channel", "to", "Denmark", "topic", "small", "content", "hello @**all**")
	send(e, &e.owner, "type", "direct", "to", "["+itoa(e.member.id)+"]", "content", "not a channel: @**all**")
	send(e, &e.member, "type", "direct", "to", "["+itoa(e.admin.id)+"]", "content", "not a channel: @**all**")
	// A silent wildcard notifies nobody; a mention of a user, or the word
	// in code, is no wildcard.
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "small", "content", "quietly @_**all**")
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "small", "content", "`@**all**` and @**Adam Admin**")

	// Deactivated subscribers do not count.
	e.expect(e.call(http.MethodDelete, "/users/"+itoa(extra[13].id), &e.admin, nil), 200, success())
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "small", "content", "hello again @**all**")

	// @topic counts the topic's active writers.
	writers := append([]account{e.admin}, extra[:13]...) // 14 writers, and the member makes 15
	for _, a := range writers {
		send(e, &a, "type", "channel", "to", "Denmark", "topic", "crowd", "content", "present")
	}
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "crowd", "content", "me too @**topic**")
	subscribe(account{e.moderator.id, e.moderator.email, e.moderator.key})
	send(e, &e.moderator, "type", "channel", "to", "Denmark", "topic", "crowd", "content", "sixteenth")
	e.expectError(channelMsg(&e.member, "Crowd", "everyone here @**topic**"), http.StatusBadRequest,
		chat.CodeTopicWildcardNotAllowed, "You do not have permission to use topic wildcard mentions in this topic.")
	send(e, &e.admin, "type", "channel", "to", "Denmark", "topic", "crowd", "content", "everyone here @**topic**")
	send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "quiet", "content", "nobody else @**topic**")

	// The channel's 16 active subscribers again: both wildcards refused,
	// the channel one first.
	channelRefused(channelMsg(&e.member, "crowd", strings.Repeat("@**all** @**topic** ", 2)))
}

// TestWildcardMentionPermissionOnEdit applies the same rule to an edit
// that adds a wildcard mention, and leaves the message as it was.
func TestWildcardMentionPermissionOnEdit(t *testing.T) {
	e := messageEnv(t)
	ctx := context.Background()
	for i := range 14 {
		u, err := e.svc.ProvisionUser(ctx, 1, chat.NewUser{Email: fmt.Sprintf("crowd%d@example.com", i), FullName: fmt.Sprintf("Crowd %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		a := account{u.UserID, u.Email, u.APIKey}
		if res := e.call(http.MethodPost, "/users/me/subscriptions", &a, form("subscriptions", `[{"name":"Denmark"}]`)); res.status != 200 {
			t.Fatal(res.raw)
		}
	}
	id := itoa(int64(send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "t", "content", "plain")))
	e.expectError(e.call(http.MethodPatch, "/messages/"+id, &e.member, form("content", "now @**all**")), http.StatusBadRequest,
		chat.CodeStreamWildcardNotAllowed, "You do not have permission to use channel wildcard mentions in this channel.")
	res := e.call(http.MethodGet, "/messages/"+id, &e.member, form("apply_markdown", "false"))
	if m, _ := res.body["message"].(map[string]any); m == nil || m["content"] != "plain" {
		t.Errorf("message after a refused edit: %s", res.raw)
	}
	adminMsg := itoa(int64(send(e, &e.admin, "type", "channel", "to", "Denmark", "topic", "t", "content", "plain")))
	e.expect(e.call(http.MethodPatch, "/messages/"+adminMsg, &e.admin, form("content", "now @**all**")), 200, success("detached_uploads", []any{}))
}
