package httpserver_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// botMessages returns the content of every stored message after the ID
// after, as "channel/topic: content" or "dm to N: content".
func botMessages(t *testing.T, st storage.Store, after int64) []string {
	t.Helper()
	var out []string
	err := st.View(t.Context(), func(tx storage.Tx) error {
		for id := after + 1; ; id++ {
			m, err := tx.Message(id)
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if m.SenderID != chat.NotificationBotID {
				t.Errorf("message %d sent by %d", id, m.SenderID)
			}
			if m.RecipientType == chat.RecipientChannel {
				c, err := tx.Channel(m.ChannelID)
				if err != nil {
					return err
				}
				out = append(out, c.Name+"/"+m.Topic+": "+m.Content)
			} else {
				out = append(out, fmt.Sprintf("dm to %v: %s", m.DirectUserIDs, m.Content))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSubscribeBotMessages checks the notification bot's messages of B2.1:
// the channel-created message, the announcement and the direct messages to
// users subscribed by someone else to existing channels.
func TestSubscribeBotMessages(t *testing.T) {
	st := memory.New()
	e := newEnvWithStore(t, st)
	news := e.subscribeAs(&e.admin, "news")
	res := e.call(http.MethodPatch, "/realm", &e.admin, form("new_stream_announcements_stream_id", itoa(news)))
	e.expect(res, 200, success("new_stream_announcements_stream_id", float64(news)))
	e.subscribeAs(&e.admin, "quiet", "invite_only", "true", "history_public_to_subscribers", "true")
	e.subscribeAs(&e.admin, "secret", "invite_only", "true")
	created := botMessages(t, st, 0)
	adam := "@_**Adam Admin|" + itoa(e.admin.id) + "**"
	want := []string{
		"news/channel events: **Public** channel created by " + adam + ". **Description:**\n```` quote\n*No description.*\n````",
		"quiet/channel events: **Private, shared history** channel created by " + adam + ". **Description:**\n```` quote\n*No description.*\n````",
		"secret/channel events: **Private, protected history** channel created by " + adam + ". **Description:**\n```` quote\n*No description.*\n````",
	}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Fatalf("channel-created messages (-want +got):\n%s", diff)
	}
	last := int64(len(created))

	// Two new channels announced; the member and the bot are added, and
	// only the member is told, once, about the existing channels.
	mel := "@_**Mel Member|" + itoa(e.member.id) + "**"
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions",
		`[{"name":"b-new","description":"B"},{"name":"a-new"}]`, "announce", "true"))
	if res.status != 200 {
		t.Fatal(res.raw)
	}
	got := botMessages(t, st, last)
	want = []string{
		"b-new/channel events: **Public** channel created by " + mel + ". **Description:**\n```` quote\nB\n````",
		"a-new/channel events: **Public** channel created by " + mel + ". **Description:**\n```` quote\n*No description.*\n````",
		"news/new channels: " + mel + " created the following channels: #**b-new**, #**a-new**.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("announce (-want +got):\n%s", diff)
	}
	last += int64(len(got))
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions",
		`[{"name":"secret"},{"name":"quiet"}]`, "principals", "["+itoa(e.member.id)+","+itoa(e.bot.id)+","+itoa(e.admin.id)+"]"))
	if res.status != 200 {
		t.Fatal(res.raw)
	}
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions",
		`[{"name":"news"}]`, "principals", "["+itoa(e.moderator.id)+"]"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.moderator.id): []any{"news"}},
		"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	got = botMessages(t, st, last)
	admin := "@**Adam Admin|" + itoa(e.admin.id) + "**"
	want = []string{
		fmt.Sprintf("dm to [%d]: %s subscribed you to the following channels:\n\n* #**quiet**\n* #**secret**", e.member.id, admin),
		fmt.Sprintf("dm to [%d]: %s subscribed you to the channel #**news**.", e.moderator.id, admin),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("direct messages (-want +got):\n%s", diff)
	}
	last += int64(len(got))
	// send_new_subscription_messages=false sends none and leaves the field
	// out.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions",
		`[{"name":"news"}]`, "principals", "["+itoa(e.guest.id)+"]", "send_new_subscription_messages", "false"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.guest.id): []any{"news"}}, "already_subscribed", map[string]any{}))
	if got := botMessages(t, st, last); len(got) != 0 {
		t.Errorf("messages with send_new_subscription_messages=false: %q", got)
	}
}

// TestSubscribeManyNewSubscribers: more than 100 newly subscribed users
// get no direct messages, and the answer says so.
func TestSubscribeManyNewSubscribers(t *testing.T) {
	st := memory.New()
	e := newEnvWithStore(t, st)
	e.subscribeAs(&e.admin, "big")
	before := len(botMessages(t, st, 0))
	ids := "["
	for i := range 101 {
		res, err := e.svc.ProvisionUser(t.Context(), 1, chat.NewUser{Email: fmt.Sprintf("many%d@example.com", i), FullName: fmt.Sprintf("Many %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			ids += ","
		}
		ids += itoa(res.UserID)
	}
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions", `[{"name":"big"}]`, "principals", ids+"]"))
	if res.status != 200 || res.body["new_subscription_messages_sent"] != false || len(res.body["subscribed"].(map[string]any)) != 101 {
		t.Errorf("answer: %s", res.raw)
	}
	if got := botMessages(t, st, int64(before)); len(got) != 0 {
		t.Errorf("%d messages sent, want none", len(got))
	}
}

// TestSubscriptionPropertiesAllOrNothing: shape errors anywhere change
// nothing, and neither does a channel error: unlike the reference server,
// which commits element by element (B2.2), the request is one transaction.
func TestSubscriptionPropertiesAllOrNothing(t *testing.T) {
	e := newEnv(t)
	id := e.subscribeAs(&e.member, "props")
	sid := itoa(id)
	res := e.call(http.MethodPost, "/users/me/subscriptions/properties", &e.member, form("subscription_data",
		`[{"stream_id":`+sid+`,"property":"pin_to_top","value":true},{"stream_id":`+sid+`,"property":"nope","value":true}]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Unknown subscription property: nope")
	if e.subscriptionObject(&e.member, id)["pin_to_top"] != false {
		t.Error("a shape error applied an element")
	}
	res = e.call(http.MethodPost, "/users/me/subscriptions/properties", &e.member, form("subscription_data",
		`[{"stream_id":`+sid+`,"property":"pin_to_top","value":true},{"stream_id":999,"property":"is_muted","value":true}]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
	if e.subscriptionObject(&e.member, id)["pin_to_top"] != false {
		t.Error("the element before the channel error was applied")
	}
}

// TestUnsubscribeNames: names are stripped and matched without regard to
// case; several unknown names are listed together (C7.4); channels the
// user cannot see count as unknown.
func TestUnsubscribeNames(t *testing.T) {
	e := newEnv(t)
	e.subscribeAs(&e.member, "Denmark")
	e.subscribeAs(&e.admin, "Rome")
	res := e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `["x","Denmark","y"]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel(s) (x, y) do not exist")
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `[" denmark ","ROME"]`))
	e.expect(res, 200, success("removed", []any{"Denmark"}, "not_removed", []any{"Rome"}))
	// A guest does not learn of public channels it is not in.
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.guest, form("subscriptions", `["Rome"]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Channel(s) (Rome) do not exist")
}

// TestUnsubscribeMarksRead: leaving a channel marks its unread messages
// read, so that the first_unread anchor, which clients such as
// zulip-terminal open on, does not point into a channel they no longer
// show.
func TestUnsubscribeMarksRead(t *testing.T) {
	e := newEnv(t)
	e.subscribeAs(&e.member, "Oslo")
	e.subscribeAs(&e.owner, "Oslo")
	e.expect(e.call(http.MethodPost, "/mark_all_as_read", &e.member, nil), 200, success("complete", true))
	res := e.call(http.MethodPost, "/messages", &e.owner, form("type", "stream", "to", "Oslo", "topic", "t", "content", "hi"))
	id := res.body["id"].(float64)
	firstUnread := func() any {
		t.Helper()
		res := e.call(http.MethodGet, "/messages", &e.member, form("anchor", "first_unread", "num_before", "0", "num_after", "0"))
		if res.status != 200 {
			t.Fatalf("GET /messages: %s", res.raw)
		}
		return res.body["anchor"]
	}
	if got := firstUnread(); got != id {
		t.Fatalf("first_unread before leaving: %v, want %v", got, id)
	}
	e.expect(e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `["Oslo"]`)),
		200, success("removed", []any{"Oslo"}, "not_removed", []any{}))
	if got := firstUnread(); got != float64(10000000000000000) {
		t.Errorf("first_unread after leaving: %v, want 10000000000000000 (nothing unread)", got)
	}
}

// TestSubscribeCreationSettings: retention values, the empty anonymous
// group stored as role:nobody, and the remaining parameter errors of B2.1.
func TestSubscribeCreationSettings(t *testing.T) {
	e := newEnv(t)
	long := "x"
	for len(long) < 1025 {
		long += "x"
	}
	for _, c := range []struct {
		f   []string
		msg string
	}{
		{[]string{"subscriptions", `[{"name":"a"},{"name":"b","description":"` + long + `"}]`}, `subscriptions[1]["description"] is too long (limit: 1024 characters)`},
		{[]string{"subscriptions", `[{"name":"a"}]`, "can_remove_subscribers_group", `{"direct_members":[],"direct_subgroups":[99]}`}, "Invalid user group ID: 99"},
		{[]string{"subscriptions", `[{"name":"a"}]`, "can_remove_subscribers_group", `{"direct_members":[999],"direct_subgroups":[]}`}, "Invalid user ID: 999"},
		{[]string{"subscriptions", `[{"name":"a"}]`, "message_retention_days", `"forever"`}, "Bad value for 'message_retention_days': forever"},
	} {
		res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form(c.f...))
		code := chat.CodeBadRequest
		if c.f[len(c.f)-2] == "message_retention_days" {
			code = chat.CodeRequestVariableInvalid
		}
		e.expectError(res, 400, code, c.msg)
	}
	for i, c := range []struct {
		value string
		want  any
	}{{`"unlimited"`, float64(-1)}, {`"realm_default"`, nil}, {`30`, float64(30)}} {
		id := e.subscribeAs(&e.owner, "kept "+itoa(int64(i)), "message_retention_days", c.value)
		if got := e.streamObject(id)["message_retention_days"]; got != c.want {
			t.Errorf("message_retention_days %s: %v, want %v", c.value, got, c.want)
		}
	}
	id := e.subscribeAs(&e.owner, "nobody", "can_remove_subscribers_group", `{"direct_members":[],"direct_subgroups":[]}`,
		"can_add_subscribers_group", `{"direct_members":[`+itoa(e.member.id)+`],"direct_subgroups":[4]}`)
	stream := e.streamObject(id)
	if stream["can_remove_subscribers_group"] != float64(1) {
		t.Errorf("empty anonymous group stored as %v, want role:nobody (1)", stream["can_remove_subscribers_group"])
	}
	e.expect(response{status: 200, body: map[string]any{"v": stream["can_add_subscribers_group"]}}, 200,
		map[string]any{"v": map[string]any{"direct_members": []any{float64(e.member.id)}, "direct_subgroups": []any{float64(4)}}})
	// Settings of existing channels are not changed by a later request.
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.admin, form("subscriptions", `[{"name":"NOBODY","description":"new"}]`,
		"invite_only", "true", "can_remove_subscribers_group", "3"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.admin.id): []any{"nobody"}}, "already_subscribed", map[string]any{},
		"new_subscription_messages_sent", true))
	after := e.streamObject(id)
	after["subscriber_count"] = stream["subscriber_count"]
	e.expect(response{status: 200, body: after}, 200, stream)
}
