package httpserver_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
)

func TestReactions(t *testing.T) {
	e := messageEnv(t)
	id := ftoa(send(e, &e.member, "type", "channel", "to", "1", "topic", "t", "content", "react to me"))
	path := "/messages/" + id + "/reactions"
	e.expect(e.call(http.MethodPost, path, &e.admin, form("emoji_name", "+1")), 200, success())
	e.expectError(e.call(http.MethodPost, path, &e.admin, form("emoji_name", "thumbsup")), 400,
		chat.CodeReactionAlreadyExists, "Reaction already exists.")
	// A vote takes the existing reaction's name.
	e.expect(e.call(http.MethodPost, path, &e.member, form("emoji_name", "whatever", "emoji_code", "1f44d",
		"reaction_type", "unicode_emoji")), 200, success())
	e.expect(e.call(http.MethodPost, path, &e.member, form("emoji_name", "zulip")), 200, success())
	res := e.call(http.MethodGet, "/messages/"+id, &e.member, nil)
	want := []any{
		map[string]any{"emoji_name": "+1", "emoji_code": "1f44d", "reaction_type": "unicode_emoji", "user_id": float64(e.admin.id)},
		map[string]any{"emoji_name": "+1", "emoji_code": "1f44d", "reaction_type": "unicode_emoji", "user_id": float64(e.member.id)},
		map[string]any{"emoji_name": "zulip", "emoji_code": "zulip", "reaction_type": "service_extra_emoji", "user_id": float64(e.member.id)},
	}
	if got := res.body["message"].(map[string]any)["reactions"].([]any); !equalAny(got, want) {
		t.Errorf("reactions %v", got)
	}
	for _, c := range []struct {
		form []string
		msg  string
	}{
		{[]string{"emoji_name", "no_such_emoji"}, "Emoji 'no_such_emoji' does not exist"},
		{[]string{"emoji_name", "octopus", "emoji_code", "zzzz", "reaction_type", "unicode_emoji"}, "Invalid emoji code"},
		{[]string{"emoji_name", "octopus", "emoji_code", "1f600", "reaction_type", "unicode_emoji"}, "Invalid emoji name."},
		{[]string{"emoji_name", "x", "emoji_code", "x", "reaction_type", "other"}, "Invalid emoji type."},
		{[]string{"emoji_name", "x", "emoji_code", "77", "reaction_type", "realm_emoji"}, "Invalid custom emoji."},
	} {
		e.expectError(e.call(http.MethodPost, path, &e.moderator, form(c.form...)), 400, chat.CodeBadRequest, c.msg)
	}
	e.expectError(e.call(http.MethodPost, path, &e.moderator, nil), 400, chat.CodeRequestVariableMissing,
		"Missing 'emoji_name' argument", "var_name", "emoji_name")
	e.expectError(e.call(http.MethodPost, "/messages/99/reactions", &e.admin, form("emoji_name", "smile")), 400,
		chat.CodeBadRequest, "Invalid message(s)")
	e.expectError(e.call(http.MethodPost, path, &e.guest, form("emoji_name", "smile")), 400,
		chat.CodeBadRequest, "Invalid message(s)")
	// Removal.
	e.expectError(e.call(http.MethodDelete, path, &e.admin, nil), 400, chat.CodeBadRequest,
		"At least one of the following arguments must be present: emoji_name, emoji_code")
	e.expect(e.call(http.MethodDelete, path, &e.admin, form("emoji_name", "thumbsup")), 200, success())
	e.expectError(e.call(http.MethodDelete, path, &e.admin, form("emoji_code", "1f44d")), 400,
		chat.CodeReactionDoesNotExist, "Reaction doesn't exist.")
	e.expect(e.call(http.MethodDelete, path, &e.member, form("emoji_code", "zulip", "reaction_type", "service_extra_emoji")), 200, success())
}

func TestEditDeleteReportTyping(t *testing.T) {
	e := messageEnv(t)
	id := ftoa(send(e, &e.member, "type", "channel", "to", "1", "topic", "t", "content", "before"))
	path := "/messages/" + id
	e.expect(e.call(http.MethodPatch, path, &e.member, form("content", "after *edit*")), 200, success("detached_uploads", []any{}))
	res := e.call(http.MethodGet, path, &e.admin, nil)
	if m := res.body["message"].(map[string]any); m["content"] != "<p>after <em>edit</em></p>" ||
		m["last_edit_timestamp"] != float64(joined.Unix()) {
		t.Errorf("edited: %s", res.raw)
	}
	e.expectError(e.call(http.MethodPatch, path, &e.admin, form("content", "x")), 400, chat.CodeBadRequest,
		"You don't have permission to edit this message")
	e.expectError(e.call(http.MethodPatch, path, &e.member, nil), 400, chat.CodeBadRequest, "Nothing to change")
	e.expectError(e.call(http.MethodPost, path+"/typing", &e.admin, form("op", "start")), 400, chat.CodeBadRequest,
		"You don't have permission to edit this message")
	e.expectError(e.call(http.MethodPost, path+"/typing", &e.member, form("op", "go")), 400, chat.CodeBadRequest, "Invalid op")
	e.expect(e.call(http.MethodPost, path+"/typing", &e.member, form("op", "start")), 200, success())

	// Reports.
	report := path + "/report"
	e.expectError(e.call(http.MethodPost, report, &e.admin, form("report_type", "rude")), 400, chat.CodeBadRequest,
		"Invalid report_type: Value error, Not in the list of possible values")
	e.expectError(e.call(http.MethodPost, report, &e.admin, form("report_type", "spam", "description", stringsRepeat("x", 1001))),
		400, chat.CodeBadRequest, "description is too long (limit: 1000 characters)")
	e.expectError(e.call(http.MethodPost, report, &e.admin, form("report_type", "other")), 400, chat.CodeBadRequest,
		"An explanation is required.")
	e.expectError(e.call(http.MethodPost, report, &e.admin, form("report_type", "spam")), 400, chat.CodeBadRequest,
		"Message reporting is not enabled in this organization.")
	e.expect(e.call(http.MethodPost, "/users/me/subscriptions", &e.admin,
		form("subscriptions", `[{"name":"mods"}]`, "invite_only", "true")), 200, success(
		"subscribed", map[string]any{itoa(e.admin.id): []any{"mods"}}, "already_subscribed", map[string]any{},
		"new_subscription_messages_sent", true))
	e.expect(e.call(http.MethodPatch, "/realm", &e.admin, form("moderation_request_channel_id", "2")), 200,
		success("moderation_request_channel_id", float64(2)))
	e.expect(e.call(http.MethodPost, report, &e.admin, form("report_type", "harassment", "description", "rude")), 200, success())
	res = e.call(http.MethodGet, "/messages", &e.admin, form("anchor", "newest", "num_before", "1", "apply_markdown", "false",
		"narrow", `[["channel","mods"]]`))
	got := res.body["messages"].([]any)[0].(map[string]any)
	wantContent := "@_**Adam Admin|" + itoa(e.admin.id) + "** reported a message sent by @_**Mel Member|" + itoa(e.member.id) +
		"** at <time:2025-03-30T12:34:56+00:00>.\n```quote\n**Harassment**. rude\n```\n\n``` spoiler Original message at #**Denmark>t@" +
		id + "**\nafter *edit*\n```"
	if got["content"] != wantContent || got["subject"] != "Mel Member moderation" || got["sender_full_name"] != "Notification Bot" {
		t.Errorf("report message:\n%v\nwant content:\n%s", got, wantContent)
	}
	e.expectError(e.call(http.MethodPost, "/messages/999/report", &e.admin, form("report_type", "spam")), 400,
		chat.CodeBadRequest, "Invalid message(s)")

	// Deletion: not someone else's, unless an administrator.
	e.expectError(e.call(http.MethodDelete, path, &e.moderator, nil), 400, chat.CodeBadRequest,
		"You don't have permission to delete this message")
	e.expect(e.call(http.MethodDelete, path, &e.member, nil), 200, success())
	e.expectError(e.call(http.MethodDelete, path, &e.admin, nil), 400, chat.CodeBadRequest, "Invalid message(s)")

	// Channel typing.
	e.expectError(e.call(http.MethodPost, "/typing", &e.member, form("type", "channel", "op", "start")), 400,
		chat.CodeBadRequest, "Missing 'stream_id' argument")
	e.expectError(e.call(http.MethodPost, "/typing", &e.member, form("type", "channel", "op", "start", "stream_id", "1")), 400,
		chat.CodeBadRequest, "Missing topic")
	e.expectError(e.call(http.MethodPost, "/typing", &e.member, form("type", "channel", "op", "start", "stream_id", "2", "topic", "x")), 400,
		chat.CodeBadRequest, "Invalid channel ID")
	e.expect(e.call(http.MethodPost, "/typing", &e.member, form("type", "channel", "op", "stop", "stream_id", "1", "topic", "general chat")),
		200, success())
}

// TestReactionAudience: a reaction's events go to the users who received
// the message and to the reacting user, who may not have received it (a
// channel's history is open to non-subscribers), and to nobody else; on
// both stores, since SQLite finds who received a message in a list of its
// own.
func TestReactionAudience(t *testing.T) {
	forBothStores(t, 0, func(t *testing.T, e *env, _ []account) {
		e.expect(e.call(http.MethodPost, "/users/me/subscriptions", &e.admin,
			form("subscriptions", `[{"name":"Denmark"}]`, "principals", "["+itoa(e.admin.id)+","+itoa(e.member.id)+"]")), 200,
			success("subscribed", map[string]any{itoa(e.admin.id): []any{"Denmark"}, itoa(e.member.id): []any{"Denmark"}},
				"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
		queues := map[*account]string{}
		for _, a := range []*account{&e.admin, &e.member, &e.moderator, &e.owner} {
			queues[a] = e.register(a, "event_types", `["reaction"]`)
		}
		id := send(e, &e.member, "type", "channel", "to", "Denmark", "topic", "t", "content", "react to me")
		path := "/messages/" + ftoa(id) + "/reactions"
		// The moderator, not subscribed, reacts and takes it back.
		e.expect(e.call(http.MethodPost, path, &e.moderator, form("emoji_name", "octopus")), 200, success())
		e.expect(e.call(http.MethodDelete, path, &e.moderator, form("emoji_name", "octopus")), 200, success())
		reaction := func(eventID int, op string) map[string]any {
			return map[string]any{"id": float64(eventID), "type": "reaction", "op": op, "user_id": float64(e.moderator.id),
				"user":       map[string]any{"user_id": float64(e.moderator.id), "email": "moderator@example.com", "full_name": "Mona Moderator"},
				"message_id": id, "emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "unicode_emoji"}
		}
		both := []any{reaction(0, "add"), reaction(1, "remove")}
		for _, c := range []struct {
			who  string
			a    *account
			want []any
		}{{"admin", &e.admin, both}, {"member", &e.member, both}, {"moderator", &e.moderator, both}, {"owner", &e.owner, []any{}}} {
			res := e.events(c.a, queues[c.a], -1, true)
			if diff := cmp.Diff(c.want, res.body["events"]); diff != "" {
				t.Errorf("%s's queue (-want +got):\n%s", c.who, diff)
			}
		}
	})
}
