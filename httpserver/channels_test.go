package httpserver_test

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/teamchat/chat"
)

// subscribeAs subscribes a to the channel by name and returns its ID.
func (e *env) subscribeAs(a *account, name string, extra ...string) int64 {
	e.t.Helper()
	f := form(append([]string{"subscriptions", `[{"name":"` + name + `"}]`}, extra...)...)
	res := e.call(http.MethodPost, "/users/me/subscriptions", a, f)
	if res.status != 200 {
		e.t.Fatalf("subscribe %s: %s", name, res.raw)
	}
	res = e.call(http.MethodGet, "/streams", e.ownerAcc(), form("include_all", "true"))
	for _, s := range res.body["streams"].([]any) {
		m := s.(map[string]any)
		if m["name"] == name {
			return int64(m["stream_id"].(float64))
		}
	}
	e.t.Fatalf("channel %s not found", name)
	return 0
}

func (e *env) ownerAcc() *account { return &e.owner }

func TestSubscribeCreatesChannel(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.member,
		form("subscriptions", `[{"name":" Denmark ","description":"Danish\nthings"}]`))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.member.id): []any{"Denmark"}},
		"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	// Case-insensitive match: the stored name answers.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.member,
		form("subscriptions", `[{"name":"DENMARK"}]`, "invite_only", "true"))
	e.expect(res, 200, success("subscribed", map[string]any{},
		"already_subscribed", map[string]any{itoa(e.member.id): []any{"Denmark"}}, "new_subscription_messages_sent", true))
	res = e.call(http.MethodGet, "/users/me/subscriptions", &e.member, form("include_subscribers", "true"))
	e.expect(res, 200, success("subscriptions", []any{map[string]any{
		"stream_id": float64(1), "name": "Denmark", "description": "Danish things",
		"rendered_description": "<p>Danish things</p>", "date_created": float64(joined.Unix()),
		"creator_id": float64(e.member.id), "invite_only": false, "is_web_public": false,
		"history_public_to_subscribers": true, "first_message_id": float64(1), "is_recently_active": true,
		"message_retention_days": nil, "stream_post_policy": float64(1), "is_announcement_only": false,
		"is_archived": false, "stream_weekly_traffic": nil, "can_add_subscribers_group": float64(1),
		"can_administer_channel_group": map[string]any{"direct_members": []any{float64(e.member.id)}, "direct_subgroups": []any{}},
		"can_delete_any_message_group": float64(1), "can_delete_own_message_group": float64(7),
		"can_remove_subscribers_group": float64(3), "can_send_message_group": float64(7),
		"can_subscribe_group": float64(1), "folder_id": nil, "topics_policy": "inherit",
		"subscriber_count": float64(1), "subscribers": []any{float64(e.member.id)}, "color": "#76ce90",
		"is_muted": false, "in_home_view": true, "pin_to_top": false, "desktop_notifications": nil,
		"audible_notifications": nil, "push_notifications": nil, "email_notifications": nil,
		"wildcard_mentions_notify": nil,
	}}))
}

func TestSubscribeErrors(t *testing.T) {
	e := newEnv(t)
	private := e.subscribeAs(&e.admin, "secret", "invite_only", "true")
	_ = private
	long := ""
	for range 61 {
		long += "x"
	}
	for _, c := range []struct {
		name string
		as   *account
		f    []string
		code chat.Code
		msg  string
	}{
		{"guest", &e.guest, []string{"subscriptions", `[{"name":"a"}]`}, chat.CodeBadRequest, "Not allowed for guest users"},
		{"missing", &e.member, []string{"announce", "true"}, chat.CodeRequestVariableMissing, "Missing 'subscriptions' argument"},
		{"not json", &e.member, []string{"subscriptions", `[`}, chat.CodeBadRequest, "subscriptions is not valid JSON"},
		{"no name", &e.member, []string{"subscriptions", `[{}]`}, chat.CodeBadRequest, `subscriptions[0]["name"] field is missing: Field required`},
		{"not a list", &e.member, []string{"subscriptions", `{"name":"x"}`}, chat.CodeBadRequest, "subscriptions is not a list"},
		{"not a dict", &e.member, []string{"subscriptions", `[{"name":"x"},3]`}, chat.CodeBadRequest, "subscriptions[1] is not a dict"},
		{"bad color", &e.member, []string{"subscriptions", `[{"name":"a","color":"red"}]`}, chat.CodeBadRequest, "Invalid subscriptions[0]: Value error, add.color is not a valid hex color code"},
		{"empty name", &e.member, []string{"subscriptions", `[{"name":"  "}]`}, chat.CodeBadRequest, "Channel name can't be empty."},
		{"long name", &e.member, []string{"subscriptions", `[{"name":"` + long + `"}]`}, chat.CodeBadRequest, "Channel name too long (limit: 60 characters)."},
		{"bad char", &e.member, []string{"subscriptions", `[{"name":"ab\u0001"}]`}, chat.CodeBadRequest, "Invalid character in channel name, at position 3."},
		{"default by member", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "is_default_stream", "true"}, chat.CodeBadRequest, "Insufficient permission"},
		{"default private", &e.admin, []string{"subscriptions", `[{"name":"a"}]`, "is_default_stream", "true", "invite_only", "true"}, chat.CodeBadRequest, "A default channel cannot be private."},
		{"web public", &e.owner, []string{"subscriptions", `[{"name":"a"}]`, "is_web_public", "true"}, chat.CodeBadRequest, "Web-public channels are not enabled."},
		{"retention by admin", &e.admin, []string{"subscriptions", `[{"name":"a"}]`, "message_retention_days", "30"}, chat.CodeUnauthorizedPrincipal, "Must be an organization owner"},
		{"retention bad", &e.owner, []string{"subscriptions", `[{"name":"a"}]`, "message_retention_days", "0"}, chat.CodeRequestVariableInvalid, "Bad value for 'message_retention_days': 0"},
		{"topics policy", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "topics_policy", "nope"}, chat.CodeBadRequest, "Invalid topics_policy"},
		{"folder", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "folder_id", "99"}, chat.CodeBadRequest, "Invalid channel folder ID"},
		{"group id", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "can_add_subscribers_group", "999"}, chat.CodeBadRequest, "Invalid user group ID: 999"},
		{"everyone", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "can_add_subscribers_group", "7"}, chat.CodeBadRequest, "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group."},
		{"internet", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "can_send_message_group", "8"}, chat.CodeBadRequest, "'can_send_message_group' setting cannot be set to 'role:internet' group."},
		{"unauthorized", &e.member, []string{"subscriptions", `[{"name":"Secret"}]`}, chat.CodeBadRequest, "Unable to access channel (secret)."},
		{"no such principal", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "principals", `[999]`}, chat.CodeBadRequest, "No such user"},
		{"principal email", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "principals", `["nobody@nowhere"]`}, chat.CodeBadRequest, "No such user"},
		{"mixed principals", &e.member, []string{"subscriptions", `[{"name":"a"}]`, "principals", `[1,"a"]`}, chat.CodeBadRequest, "principals is not a list of integers or a list of strings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodPost, "/users/me/subscriptions", c.as, form(c.f...))
			if c.code == chat.CodeRequestVariableMissing {
				e.expectError(res, 400, c.code, c.msg, "var_name", "subscriptions")
				return
			}
			e.expectError(res, 400, c.code, c.msg)
		})
	}
	e.t = t
	// Nothing was created by the failed requests.
	res := e.call(http.MethodGet, "/streams", &e.owner, form("include_all", "true"))
	if n := len(res.body["streams"].([]any)); n != 1 {
		t.Errorf("%d channels after failed requests, want 1", n)
	}
}

func TestSubscribeDeactivatedPrincipalRollsBack(t *testing.T) {
	e := newEnv(t)
	if res := e.call(http.MethodDelete, "/users/"+itoa(e.nobody.id), &e.admin, nil); res.status != 200 {
		t.Fatal(res.raw)
	}
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.member,
		form("subscriptions", `[{"name":"new"}]`, "principals", "["+itoa(e.member.id)+","+itoa(e.nobody.id)+"]"))
	e.expectError(res, 400, chat.CodeBadRequest, "User is deactivated")
	res = e.call(http.MethodGet, "/streams", &e.member, nil)
	e.expect(res, 200, success("streams", []any{}))
}

func TestSubscribeOthersAndUnauthorized(t *testing.T) {
	e := newEnv(t)
	secret := e.subscribeAs(&e.admin, "secret", "invite_only", "true")
	// Non-fatal authorization errors list the channel.
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.member,
		form("subscriptions", `[{"name":"secret"},{"name":"open"}]`, "authorization_errors_fatal", "false"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.member.id): []any{"open"}},
		"already_subscribed", map[string]any{}, "unauthorized", []any{"secret"}, "new_subscription_messages_sent", true))
	// A member may not add others to a private channel it is not in.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.moderator,
		form("subscriptions", `[{"name":"secret"}]`, "principals", "["+itoa(e.member.id)+"]", "authorization_errors_fatal", "false"))
	e.expect(res, 200, success("subscribed", map[string]any{}, "already_subscribed", map[string]any{},
		"unauthorized", []any{"secret"}, "new_subscription_messages_sent", true))
	// The administrator adds the member and the guest, by email too.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.admin,
		form("subscriptions", `[{"name":"secret"}]`, "principals", `["member@example.com","guest@example.com"]`))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.member.id): []any{"secret"}, itoa(e.guest.id): []any{"secret"}},
		"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	// The guest now sees it.
	res = e.call(http.MethodGet, "/streams/"+itoa(secret), &e.guest, nil)
	if res.status != 200 || res.body["stream"].(map[string]any)["subscriber_count"] != float64(3) {
		t.Errorf("guest view: %s", res.raw)
	}
	res = e.call(http.MethodGet, "/streams/"+itoa(secret), &e.moderator, nil)
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
	// Unsubscribing others needs the permission.
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.member,
		form("subscriptions", `["secret"]`, "principals", "["+itoa(e.guest.id)+"]"))
	e.expectError(res, 400, chat.CodeBadRequest, "Insufficient permission")
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `["secret","open","nope"]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel(s) (nope) do not exist")
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.admin,
		form("subscriptions", `["secret"]`, "principals", "["+itoa(e.guest.id)+","+itoa(e.moderator.id)+"]"))
	e.expect(res, 200, success("removed", []any{"secret"}, "not_removed", []any{"secret"}))
}

func TestSubscriptionProperties(t *testing.T) {
	e := newEnv(t)
	id := e.subscribeAs(&e.member, "props")
	other := e.subscribeAs(&e.admin, "other")
	sid := itoa(id)
	for _, c := range []struct {
		name string
		data string
		msg  string
	}{
		{"not a list", `{"stream_id":` + sid + `}`, "subscription_data is not a list"},
		{"null", `null`, "subscription_data is not a list"},
		{"not a dict", `[{"stream_id":` + sid + `,"property":"pin_to_top","value":true},"x"]`, "subscription_data[1] is not a dict"},
		{"missing key", `[{"stream_id":` + sid + `,"property":"color"}]`, `subscription_data[0]["value"] field is missing: Field required`},
		{"unknown", `[{"stream_id":` + sid + `,"property":"nope","value":true}]`, "Unknown subscription property: nope"},
		{"not bool", `[{"stream_id":` + sid + `,"property":"pin_to_top","value":"x"}]`, "pin_to_top is not a boolean"},
		{"color", `[{"stream_id":` + sid + `,"property":"color","value":"#zzz"}]`, "Invalid subscription_data[0]: Value error, color is not a valid hex color code"},
		{"channel", `[{"stream_id":999,"property":"is_muted","value":true}]`, "Invalid channel ID"},
		{"not subscribed", `[{"stream_id":` + itoa(other) + `,"property":"is_muted","value":true}]`, "Not subscribed to channel ID " + itoa(other)},
	} {
		res := e.call(http.MethodPost, "/users/me/subscriptions/properties", &e.member, form("subscription_data", c.data))
		e.expectError(res, 400, chat.CodeBadRequest, c.msg)
	}
	res := e.call(http.MethodPost, "/users/me/subscriptions/properties", &e.member, form("subscription_data",
		`[{"stream_id":`+sid+`,"property":"in_home_view","value":false},{"stream_id":`+sid+`,"property":"color","value":"#abc"},`+
			`{"stream_id":`+sid+`,"property":"desktop_notifications","value":true}]`))
	e.expect(res, 200, success())
	res = e.call(http.MethodPatch, "/users/me/subscriptions/"+sid, &e.member, form("property", "pin_to_top", "value", "true"))
	e.expect(res, 200, success())
	res = e.call(http.MethodPatch, "/users/me/subscriptions/"+sid, &e.member, form("property", "color", "value", "#zzz"))
	e.expectError(res, 400, chat.CodeBadRequest, "color is not a valid hex color code")
	res = e.call(http.MethodPatch, "/users/me/subscriptions/"+sid, &e.member, form("property", "color", "value", "true"))
	e.expectError(res, 400, chat.CodeBadRequest, "color is not a valid hex color code")
	res = e.call(http.MethodGet, "/users/me/subscriptions", &e.member, nil)
	sub := res.body["subscriptions"].([]any)[0].(map[string]any)
	for k, want := range map[string]any{"is_muted": true, "in_home_view": false, "color": "#abc", "pin_to_top": true, "desktop_notifications": true} {
		if sub[k] != want {
			t.Errorf("%s = %v, want %v", k, sub[k], want)
		}
	}
}

func TestMutedTopicsAndUserTopics(t *testing.T) {
	e := newEnv(t)
	id := itoa(e.subscribeAs(&e.member, "topics"))
	for _, c := range []struct {
		f   []string
		msg string
	}{
		{[]string{"topic", "t", "op", "add"}, "Missing 'stream_id' argument"},
		{[]string{"stream_id", id, "stream", "topics", "topic", "t", "op", "add"}, "Unsupported parameter combination: stream_id, stream"},
		{[]string{"stream_id", id, "topic", "t", "op", "mute"}, "Invalid op"},
		{[]string{"stream_id", id, "topic", "0123456789012345678901234567890123456789012345678901234567890", "op", "add"}, "topic is too long (limit: 60 characters)"},
		{[]string{"stream_id", "999", "topic", "t", "op", "add"}, "Invalid channel ID"},
		{[]string{"stream", "nope", "topic", "t", "op", "add"}, "Invalid channel name 'nope'"},
		{[]string{"stream", "nope", "topic", "t", "op", "remove"}, "Topic is not muted"},
	} {
		res := e.call(http.MethodPatch, "/users/me/subscriptions/muted_topics", &e.member, form(c.f...))
		e.expectError(res, 400, chat.CodeBadRequest, c.msg)
	}
	for _, f := range [][]string{
		{"stream_id", id, "topic", "t", "op", "add"},
		{"stream_id", id, "topic", "t", "op", "add"},
		{"stream", "Topics", "topic", "T", "op", "remove"},
		{"stream", "topics", "topic", "never", "op", "remove"},
	} {
		e.expect(e.call(http.MethodPatch, "/users/me/subscriptions/muted_topics", &e.member, form(f...)), 200, success())
	}
	res := e.call(http.MethodPost, "/user_topics", &e.member, form("stream_id", id, "topic", "x", "visibility_policy", "4"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid visibility_policy: Value error, Not in the list of possible values")
	res = e.call(http.MethodPost, "/user_topics", &e.member, form("stream_id", "999", "topic", "x", "visibility_policy", "0"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
	res = e.call(http.MethodPost, "/user_topics", &e.member, form("stream_id", id, "topic", "general chat", "visibility_policy", "3"))
	e.expect(res, 200, success())
}

func TestChannelFolders(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/channel_folders/create", &e.member, form("name", "x", "description", ""))
	e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	res = e.call(http.MethodPost, "/channel_folders/create", &e.admin, form("name", "Frontend"))
	e.expectError(res, 400, chat.CodeRequestVariableMissing, "Missing 'description' argument", "var_name", "description")
	res = e.call(http.MethodPost, "/channel_folders/create", &e.admin, form("name", " ", "description", ""))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel folder name can't be empty.")
	res = e.call(http.MethodPost, "/channel_folders/create", &e.admin, form("name", "Frontend", "description", "UI *work*"))
	e.expect(res, 200, success("channel_folder_id", float64(1)))
	res = e.call(http.MethodPost, "/channel_folders/create", &e.admin, form("name", "frontend", "description", ""))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel folder 'frontend' already exists")
	res = e.call(http.MethodGet, "/channel_folders", &e.guest, nil)
	folder := map[string]any{"id": float64(1), "name": "Frontend", "order": float64(1), "description": "UI *work*",
		"rendered_description": "<p>UI <em>work</em></p>", "creator_id": float64(e.admin.id),
		"date_created": float64(joined.Unix()), "is_archived": false}
	e.expect(res, 200, success("channel_folders", []any{folder}))
	e.subscribeAs(&e.admin, "ui", "folder_id", "1")
	res = e.call(http.MethodPatch, "/channel_folders/1", &e.member, form("is_archived", "true"))
	e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	res = e.call(http.MethodPatch, "/channel_folders/9", &e.admin, form("is_archived", "true"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel folder ID")
	res = e.call(http.MethodPatch, "/channel_folders/1", &e.admin, form("is_archived", "true"))
	e.expectError(res, 400, chat.CodeBadRequest, "You need to remove all the channels from this folder to archive it.")
	res = e.call(http.MethodPatch, "/channel_folders/1", &e.admin, form("name", "frontend"))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel folder 'frontend' already exists")
	res = e.call(http.MethodPatch, "/channel_folders/1", &e.admin, form("name", "Frontend", "description", "new"))
	e.expect(res, 200, success())
	res = e.call(http.MethodGet, "/channel_folders", &e.member, nil)
	folder["description"], folder["rendered_description"] = "new", "<p>new</p>"
	e.expect(res, 200, success("channel_folders", []any{folder}))
}

func TestDeleteTopicAndRealmChannels(t *testing.T) {
	e := newEnv(t)
	id := e.subscribeAs(&e.admin, "del")
	secret := e.subscribeAs(&e.member, "hidden", "invite_only", "true")
	for i := range 5 {
		if _, err := e.svc.PostChannelMessage(t.Context(), chat.AsUser(e.admin.id), id, "Doomed", "m"+itoa(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	res := e.call(http.MethodPost, "/streams/"+itoa(id)+"/delete_topic", &e.moderator, form("topic_name", "doomed"))
	e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	res = e.call(http.MethodPost, "/streams/"+itoa(secret)+"/delete_topic", &e.admin, form("topic_name", "doomed"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
	res = e.call(http.MethodPost, "/streams/"+itoa(id)+"/delete_topic", &e.admin, form("topic_name", "doomed"))
	e.expect(res, 200, success("complete", true))
	res = e.call(http.MethodGet, "/streams/"+itoa(id), &e.admin, nil)
	// Only the channel-created message is left, and it is the first.
	if got := res.body["stream"].(map[string]any)["first_message_id"]; got == nil {
		t.Errorf("first_message_id is null")
	}
	// PATCH /realm channel settings.
	res = e.call(http.MethodPatch, "/realm", &e.member, form("moderation_request_channel_id", itoa(secret)))
	e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("moderation_request_channel_id", itoa(id)))
	e.expectError(res, 400, chat.CodeBadRequest, "Moderation request channel must be private.")
	// Administrators see every channel's metadata, so a private channel
	// they are not in qualifies; a channel of no one's is invalid.
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("moderation_request_channel_id", itoa(secret)))
	e.expect(res, 200, success("moderation_request_channel_id", float64(secret)))
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("moderation_request_channel_id", itoa(secret)))
	e.expect(res, 200, success())
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("moderation_request_channel_id", "999"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("new_stream_announcements_stream_id", itoa(id), "signup_announcements_stream_id", "-1"))
	e.expect(res, 200, success("new_stream_announcements_stream_id", float64(id)))
	// announce posts in the announcements channel.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", `[{"name":"x"},{"name":"y"}]`, "announce", "true"))
	if res.status != 200 {
		t.Fatal(res.raw)
	}
	res = e.call(http.MethodPatch, "/realm", &e.admin, form("new_stream_announcements_stream_id", "-1"))
	e.expect(res, 200, success("new_stream_announcements_stream_id", float64(-1)))
}

func TestUserGroupsSystem(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/user_groups", &e.guest, nil)
	groups := res.body["user_groups"].([]any)
	if len(groups) != 8 {
		t.Fatalf("%d groups", len(groups))
	}
	admins := groups[2].(map[string]any)
	e.t = t
	want := map[string]any{"id": float64(3), "name": "role:administrators",
		"description": "Administrators of this organization, including owners", "members": []any{float64(e.admin.id)},
		"direct_subgroup_ids": []any{float64(2)}, "is_system_group": true, "creator_id": nil,
		"date_created": float64(joined.Unix()), "deactivated": false, "can_add_members_group": float64(1),
		"can_join_group": float64(1), "can_leave_group": float64(1), "can_manage_group": float64(1),
		"can_mention_group": float64(1), "can_remove_members_group": float64(1)}
	e.expect(response{status: 200, body: admins}, 200, want)
}

// TestChannelLookupRoutes checks the whole answers of GET /get_stream_id,
// GET /streams/{stream_id}/members and GET
// /users/{user_id}/subscriptions/{stream_id}, and their errors.
func TestChannelLookupRoutes(t *testing.T) {
	e := newEnv(t)
	id := e.subscribeAs(&e.member, "Lookups")
	e.expect(e.call(http.MethodGet, "/get_stream_id", &e.guest, form("stream", "Lookups")), 400,
		map[string]any{"result": "error", "code": "BAD_REQUEST", "msg": "Invalid channel name 'Lookups'"})
	e.expect(e.call(http.MethodGet, "/get_stream_id", &e.owner, form("stream", "lookups")), 200,
		success("stream_id", float64(id)))
	e.expectError(e.call(http.MethodGet, "/get_stream_id", &e.owner, nil), 400,
		chat.CodeRequestVariableMissing, "Missing 'stream' argument", "var_name", "stream")

	e.expect(e.call(http.MethodGet, "/streams/"+itoa(id)+"/members", &e.admin, nil), 200,
		success("subscribers", []any{float64(e.member.id)}))
	e.expectError(e.call(http.MethodGet, "/streams/"+itoa(id)+"/members", &e.guest, nil), 400,
		chat.CodeBadRequest, "Invalid channel ID")

	e.expect(e.call(http.MethodGet, "/users/"+itoa(e.member.id)+"/subscriptions/"+itoa(id), &e.owner, nil), 200,
		success("is_subscribed", true))
	e.expect(e.call(http.MethodGet, "/users/"+itoa(e.owner.id)+"/subscriptions/"+itoa(id), &e.member, nil), 200,
		success("is_subscribed", false))
	e.expectError(e.call(http.MethodGet, "/users/999999/subscriptions/"+itoa(id), &e.member, nil), 400,
		chat.CodeBadRequest, "No such user")
}

// TestListOfDictsTexts checks the reference's texts for a list of objects
// that is not one: not a list, or an element that is not an object.
func TestListOfDictsTexts(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ path, name, value, msg string }{
		{"/users/me/subscriptions", "subscriptions", `{"name":"x"}`, "subscriptions is not a list"},
		{"/users/me/subscriptions", "subscriptions", `null`, "subscriptions is not a list"},
		{"/users/me/subscriptions", "subscriptions", `[{"name":"x"}, 1]`, "subscriptions[1] is not a dict"},
		{"/users/me/subscriptions/properties", "subscription_data", `5`, "subscription_data is not a list"},
		{"/users/me/subscriptions/properties", "subscription_data", `[[]]`, "subscription_data[0] is not a dict"},
	} {
		e.expectError(e.call(http.MethodPost, tc.path, &e.member, form(tc.name, tc.value)), 400, chat.CodeBadRequest, tc.msg)
	}
}

// TestUpdateStream: PATCH /streams/{stream_id} reads each parameter in the
// reference's form, and DELETE archives.
func TestUpdateStream(t *testing.T) {
	e := newEnv(t)
	e.subscribeAs(&e.admin, "patchme")
	res := e.call(http.MethodGet, "/get_stream_id", &e.admin, form("stream", "patchme"))
	id := int64(res.body["stream_id"].(float64))
	path := "/streams/" + itoa(id)
	for _, c := range []struct {
		key, value string
		msg        string
	}{
		{"is_private", "yes", "is_private is not valid JSON"},
		{"can_send_message_group", `{"old": 1}`, "Invalid can_send_message_group"},
		{"can_send_message_group", `{"new": 999999}`, "Invalid user group ID: 999999"},
		{"folder_id", `"x"`, "folder_id is not an integer"},
		{"folder_id", "999999", "Invalid channel folder ID"},
		{"topics_policy", `"never"`, "Invalid topics_policy"},
		{"description", stringsRepeat("d", 1025), "description is too long (limit: 1024 characters)"},
	} {
		e.expectError(e.call(http.MethodPatch, path, &e.admin, form(c.key, c.value)), http.StatusBadRequest, chat.CodeBadRequest, c.msg)
	}
	e.expectError(e.call(http.MethodPatch, path, &e.member, form("new_name", "x")),
		http.StatusBadRequest, chat.CodeBadRequest, "You do not have permission to administer this channel.")
	e.expect(e.call(http.MethodPatch, path, &e.admin, form("new_name", "patched", "description", "Now **bold**",
		"is_private", "true", "history_public_to_subscribers", "true", "topics_policy", `"disable_empty_topic"`, "folder_id", "null",
		"can_send_message_group", fmt.Sprintf(`{"new": {"direct_members": [%d], "direct_subgroups": []}}`, e.admin.id))),
		http.StatusOK, success())
	res = e.call(http.MethodGet, path, &e.admin, nil)
	stream := res.body["stream"].(map[string]any)
	for k, want := range map[string]any{"name": "patched", "description": "Now **bold**", "rendered_description": "<p>Now <strong>bold</strong></p>",
		"invite_only": true, "history_public_to_subscribers": true, "topics_policy": "disable_empty_topic", "is_archived": false,
		"can_send_message_group": map[string]any{"direct_members": []any{float64(e.admin.id)}, "direct_subgroups": []any{}}} {
		if !reflect.DeepEqual(stream[k], want) {
			t.Errorf("%s = %#v, want %#v", k, stream[k], want)
		}
	}
	e.expect(e.call(http.MethodDelete, path, &e.admin, nil), http.StatusOK, success())
	e.expectError(e.call(http.MethodDelete, path, &e.admin, nil), http.StatusBadRequest, chat.CodeBadRequest, "Channel is archived.")
	res = e.call(http.MethodGet, path, &e.admin, nil)
	if res.body["stream"].(map[string]any)["is_archived"] != true {
		t.Errorf("after DELETE: %s", res.raw)
	}
}
