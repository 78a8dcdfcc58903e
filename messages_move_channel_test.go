package chat_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// queueEvents returns the events waiting in a user's queue, decoded,
// without waiting for more.
func queueEvents(t *testing.T, f *fixture, user int64, queue string) []map[string]any {
	t.Helper()
	es, err := f.svc.GetEvents(t.Context(), chat.AsUser(user), queue, -1, true)
	wantNoErr(t, "GetEvents", err)
	var out []map[string]any
	for _, e := range es {
		var m map[string]any
		if err := json.Unmarshal(e.AppendJSON(nil), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestMoveBetweenChannels moves a topic from a public channel to a private
// one with protected history, on every backend: who may, who loses and
// who gains the messages, the events each gets, the notification bot's
// notice, and every refusal.
func TestMoveBetweenChannels(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "pub"}, {Name: "pub2"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID, f.guest.ID}}})
		wantNoErr(t, "Subscribe pub", err)
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "priv"}},
			InviteOnly: true, HistoryPublicToSubscribers: ptr(false), Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.moderator.ID}}})
		wantNoErr(t, "Subscribe priv", err)
		pub, pub2, priv := channelIDOf(t, f, "pub"), channelIDOf(t, f, "pub2"), channelIDOf(t, f, "priv")
		send := func(topic string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), pub, topic, "text "+topic)
			wantNoErr(t, "send", err)
			return id
		}
		m1, m2 := send("t"), send("t")
		moveTo := func(as, id, channel int64, mode string) error {
			return updateMessage(f.svc, ctx, chat.AsUser(as), id, chat.MessageEdit{StreamID: &channel, PropagateMode: mode})
		}

		// Refusals.
		wantErr(t, "a guest moves", moveTo(f.guest.ID, m1, pub2, ""), chat.ErrNoMovePermission)
		wantErr(t, "to a channel the mover cannot read", moveTo(f.member.ID, m1, priv, ""), chat.ErrInvalidChannelID)
		wantErr(t, "with new content", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), m1,
			chat.MessageEdit{StreamID: &pub2, Content: ptr("x")}), chat.ErrContentWithChannelMove)
		dm, err := f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.admin.ID}}, Content: "hi"})
		wantNoErr(t, "dm", err)
		wantErr(t, "a direct message", moveTo(f.member.ID, dm, pub2, ""), chat.ErrDirectMessageToChannel)
		wantErr(t, "to the same channel", moveTo(f.member.ID, m1, pub, ""), chat.ErrNothingToChange)

		queues := map[int64]string{}
		for _, u := range []int64{f.admin.ID, f.member.ID, f.moderator.ID} {
			st, err := f.svc.Register(ctx, chat.AsUser(u), chat.RegisterRequest{EventTypes: []string{"update_message", "delete_message"},
				ClientCapabilities: chat.ClientCapabilities{BulkMessageDeletion: true}})
			wantNoErr(t, "Register", err)
			queues[u] = st["queue_id"].(string)
		}
		wantNoErr(t, "move the topic", moveTo(f.admin.ID, m2, priv, chat.PropagateChangeAll))

		// The member, not in the private channel, lost the messages; the
		// moderator, subscribed to it, gained them, read.
		_, _, err = f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), m1, chat.MessageFormat{})
		wantErr(t, "the member reads a moved message", err, chat.ErrInvalidMessage)
		diff(t, "the moderator's messages of priv", narrowIDs(t, f, f.moderator.ID, `[["channel","priv"]]`), []int64{m1, m2})
		v, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.moderator.ID), m1, chat.MessageFormat{})
		wantNoErr(t, "the moderator reads a moved message", err)
		if v.Subject != "t" || v.DisplayRecipient != "priv" || v.Flags == nil || len(*v.Flags) != 1 || (*v.Flags)[0] != "read" {
			t.Errorf("moved message as the moderator reads it: %+v", v)
		}
		ids := []any{float64(m1), float64(m2)}
		update := func(user int64) map[string]any {
			return map[string]any{"type": "update_message", "user_id": float64(f.admin.ID), "message_id": float64(m2),
				"message_ids": ids, "rendering_only": false, "stream_id": float64(pub), "stream_name": "pub",
				"new_stream_id": float64(priv), "propagate_mode": "change_all", "orig_subject": "t", "flags": []any{}}
		}
		clean := func(es []map[string]any) []map[string]any {
			for _, e := range es {
				delete(e, "id")
				delete(e, "edit_timestamp")
			}
			return es
		}
		diff(t, "the admin's events", clean(queueEvents(t, f, f.admin.ID, queues[f.admin.ID])), []map[string]any{update(f.admin.ID)})
		moderatorEvent := update(f.moderator.ID)
		moderatorEvent["flags"] = []any{"read"}
		diff(t, "the moderator's events", clean(queueEvents(t, f, f.moderator.ID, queues[f.moderator.ID])), []map[string]any{moderatorEvent})
		diff(t, "the member's events", clean(queueEvents(t, f, f.member.ID, queues[f.member.ID])), []map[string]any{
			{"type": "delete_message", "message_ids": ids, "message_type": "stream", "stream_id": float64(pub), "topic": "t"}})

		// The notification bot told the new topic, not the old one.
		res, err := f.svc.GetMessages(ctx, chat.AsUser(f.admin.ID), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](1),
			Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "priv"}, {Operator: "topic", Operand: "t"}}})
		wantNoErr(t, "GetMessages", err)
		want := "This topic was moved here from #**pub>t** by @_**" + f.admin.Name + "|" + itoa(f.admin.ID) + "**."
		if n := res.Messages[0]; n.SenderID != chat.NotificationBotID || n.Content != want {
			t.Errorf("notice: sender %d, %q; want %q", n.SenderID, n.Content, want)
		}
		diff(t, "the old topic", narrowIDs(t, f, f.admin.ID, `[["channel","pub"],["topic","t"]]`), []int64{})

		// Time limits: a member moves only messages of the last week, and
		// a whole topic only when all of it is that recent.
		old := send("aging")
		f.clock.Advance(8 * 24 * time.Hour)
		recent := send("aging")
		wantErr(t, "an old message", moveTo(f.member.ID, old, pub2, ""), chat.ErrChannelMoveTimeLimit)
		wantCodeMsg(t, "a topic with an old message", moveTo(f.member.ID, recent, pub2, chat.PropagateChangeAll),
			chat.CodeMoveMessagesTimeLimitExceeded, "You only have permission to move the 1/2 most recent messages in this topic.")
		wantNoErr(t, "a recent message, old notice asked for", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), recent,
			chat.MessageEdit{StreamID: &pub2, SendNotificationToOldThread: ptr(true), SendNotificationToNewThread: ptr(false)}))
		res, err = f.svc.GetMessages(ctx, chat.AsUser(f.admin.ID), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](1),
			Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "pub"}, {Operator: "topic", Operand: "aging"}}})
		wantNoErr(t, "GetMessages", err)
		if n := res.Messages[0]; n.SenderID != chat.NotificationBotID ||
			n.Content != "[A message](http://localhost:9991/#narrow/channel/"+itoa(pub2)+"-pub2/topic/aging/near/"+itoa(recent)+
				") was moved from this topic to #**pub2>aging** by @_**"+f.member.Name+"|"+itoa(f.member.ID)+"**." {
			t.Errorf("old-topic notice: %q", n.Content)
		}
		wantNoErr(t, "a moderator moves an old message", moveTo(f.moderator.ID, old, pub2, ""))
	})
}

// TestEditRecomputesMentions: an edit that adds or drops a mention sets or
// clears the recipients' mention flags, keeps their read state, and the
// update_message event carries the new flags.
func TestEditRecomputesMentions(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "talk"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), channelIDOf(t, f, "talk"), "t", "hello")
		wantNoErr(t, "send", err)
		wantNoErr(t, "mark read", f.svc.UpdateMessageFlags(ctx, chat.AsUser(f.admin.ID), chat.MessageFlagsRequest{
			Op: "add", Flag: "read", Messages: []int64{id}}))
		flagsOf := func(user int64) []string {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, chat.AsUser(user), id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			return *v.Flags
		}
		st, err := f.svc.Register(ctx, chat.AsUser(f.admin.ID), chat.RegisterRequest{EventTypes: []string{"update_message"}})
		wantNoErr(t, "Register", err)
		for _, c := range []struct {
			content       string
			admin, member []string
		}{
			{"hi @**" + f.admin.Name + "**", []string{"read", "mentioned"}, []string{}},
			{"hi @**all** and @**" + f.member.Name + "**", []string{"read", "stream_wildcard_mentioned"}, []string{}},
			{"hi @_**" + f.admin.Name + "**", []string{"read"}, []string{}},
		} {
			wantNoErr(t, "edit", f.svc.EditMessage(ctx, chat.AsUser(f.member.ID), id, &c.content))
			diff(t, "admin's flags after "+c.content, flagsOf(f.admin.ID), c.admin)
			diff(t, "sender's flags after "+c.content, flagsOf(f.member.ID), c.member)
		}
		es := queueEvents(t, f, f.admin.ID, st["queue_id"].(string))
		var got [][]any
		for _, e := range es {
			got = append(got, e["flags"].([]any))
		}
		diff(t, "flags in the admin's events", got, [][]any{{"read", "mentioned"}, {"read", "stream_wildcard_mentioned"}, {"read"}})
	})
}

// TestMessageHistory keeps a record of every content edit and move, and
// rebuilds each state of the message from them, on every backend.
func TestMessageHistory(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "one"}, {Name: "two"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		one, two := channelIDOf(t, f, "one"), channelIDOf(t, f, "two")
		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), one, "a", "first *draft*")
		wantNoErr(t, "send", err)
		sent := f.clock.Now().Unix()
		h, err := f.svc.MessageHistory(ctx, chat.AsUser(f.admin.ID), id)
		wantNoErr(t, "MessageHistory", err)
		diff(t, "history of an unedited message", h, []chat.MessageHistoryEntry{
			{Topic: "a", Content: "first *draft*", RenderedContent: "<p>first <em>draft</em></p>", Timestamp: sent, UserID: f.member.ID}})

		f.clock.Advance(time.Minute)
		wantNoErr(t, "edit and rename", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), id,
			chat.MessageEdit{Content: ptr("final"), Topic: ptr("b"), SendNotificationToNewThread: ptr(false)}))
		edited := f.clock.Now().Unix()
		f.clock.Advance(time.Minute)
		wantNoErr(t, "move", updateMessage(f.svc, ctx, chat.AsUser(f.admin.ID), id,
			chat.MessageEdit{StreamID: &two, SendNotificationToNewThread: ptr(false)}))
		moved := f.clock.Now().Unix()

		h, err = f.svc.MessageHistory(ctx, chat.AsUser(f.member.ID), id)
		wantNoErr(t, "MessageHistory", err)
		diff(t, "history", h, []chat.MessageHistoryEntry{
			{Topic: "a", Content: "first *draft*", RenderedContent: "<p>first <em>draft</em></p>", Timestamp: sent, UserID: f.member.ID},
			{Topic: "b", Content: "final", RenderedContent: "<p>final</p>", Timestamp: edited, UserID: f.member.ID,
				PrevContent: ptr("first *draft*"), PrevRenderedContent: ptr("<p>first <em>draft</em></p>"), PrevTopic: ptr("a")},
			{Topic: "b", Content: "final", RenderedContent: "<p>final</p>", Timestamp: moved, UserID: f.admin.ID,
				PrevStream: &one, Stream: &two},
		})
		// The message object carries the same history, newest first, and
		// tells content edits and moves apart.
		v, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{})
		wantNoErr(t, "GetMessage", err)
		diff(t, "edit_history", v.EditHistory, []chat.EditHistoryEntry{
			{UserID: f.admin.ID, Timestamp: moved, PrevStream: &one, Stream: &two},
			{UserID: f.member.ID, Timestamp: edited, PrevContent: ptr("first *draft*"),
				PrevRenderedContent: ptr("<p>first <em>draft</em></p>"), PrevTopic: ptr("a"), Topic: ptr("b")},
		})
		if v.LastEditTimestamp == nil || *v.LastEditTimestamp != edited || v.LastMovedTimestamp == nil || *v.LastMovedTimestamp != moved {
			t.Errorf("last_edit_timestamp %v, last_moved_timestamp %v; want %d, %d", v.LastEditTimestamp, v.LastMovedTimestamp, edited, moved)
		}
		_, err = f.svc.MessageHistory(ctx, chat.AsUser(f.member.ID), 9999)
		wantErr(t, "history of an unknown message", err, chat.ErrInvalidMessage)

		// The organization shows only moves, without what they replaced,
		// or no history at all; the timestamps stay.
		f.clock.Advance(time.Minute)
		wantNoErr(t, "edit", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), id, chat.MessageEdit{Content: ptr("last")}))
		last := f.clock.Now().Unix()
		policy := func(p chat.EditHistoryPolicy) {
			t.Helper()
			_, err := f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{MessageEditHistoryVisibilityPolicy: &p})
			wantNoErr(t, "UpdateRealm", err)
		}
		policy(chat.EditHistoryMoves)
		h, err = f.svc.MessageHistory(ctx, chat.AsUser(f.member.ID), id)
		wantNoErr(t, "MessageHistory, moves", err)
		diff(t, "history, moves", h, []chat.MessageHistoryEntry{
			{Topic: "a", Content: "first *draft*", RenderedContent: "<p>first <em>draft</em></p>", Timestamp: sent, UserID: f.member.ID},
			{Topic: "b", Content: "final", RenderedContent: "<p>final</p>", Timestamp: edited, UserID: f.member.ID, PrevTopic: ptr("a")},
			{Topic: "b", Content: "final", RenderedContent: "<p>final</p>", Timestamp: moved, UserID: f.admin.ID,
				PrevStream: &one, Stream: &two},
		})
		v, _, err = f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{})
		wantNoErr(t, "GetMessage", err)
		diff(t, "edit_history, moves", v.EditHistory, []chat.EditHistoryEntry{
			{UserID: f.admin.ID, Timestamp: moved, PrevStream: &one, Stream: &two},
			{UserID: f.member.ID, Timestamp: edited, PrevTopic: ptr("a"), Topic: ptr("b")},
		})
		policy(chat.EditHistoryNone)
		_, err = f.svc.MessageHistory(ctx, chat.AsUser(f.member.ID), id)
		wantErr(t, "history, none", err, chat.ErrEditHistoryDisabled)
		v, _, err = f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), id, chat.MessageFormat{})
		wantNoErr(t, "GetMessage", err)
		if v.EditHistory != nil || v.LastEditTimestamp == nil || *v.LastEditTimestamp != last || *v.LastMovedTimestamp != moved {
			t.Errorf("policy none: edit_history %v, last_edit_timestamp %v, last_moved_timestamp %v; want none, %d, %d",
				v.EditHistory, v.LastEditTimestamp, v.LastMovedTimestamp, last, moved)
		}
	})
}

// TestNotificationBotIsNamed: the notification bot's messages carry its
// stable user ID, and POST /register lists it in cross_realm_bots, so that
// clients can name the sender.
func TestNotificationBotIsNamed(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "news"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		res, err := f.svc.GetMessages(ctx, chat.AsUser(f.member.ID), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](1)})
		wantNoErr(t, "GetMessages", err)
		m := res.Messages[0]
		if chat.NotificationBotID != 2147483647 || m.SenderID != chat.NotificationBotID || m.SenderFullName != "Notification Bot" ||
			m.SenderEmail != "notification-bot@zulip.com" {
			t.Errorf("the bot's message: sender %d %q %q", m.SenderID, m.SenderFullName, m.SenderEmail)
		}
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{FetchEventTypes: []string{"realm_user"}})
		wantNoErr(t, "Register", err)
		raw, err := json.Marshal(st["cross_realm_bots"])
		wantNoErr(t, "Marshal", err)
		var bots []map[string]any
		wantNoErr(t, "Unmarshal", json.Unmarshal(raw, &bots))
		if len(bots) != 1 || bots[0]["user_id"] != float64(chat.NotificationBotID) || bots[0]["full_name"] != "Notification Bot" ||
			bots[0]["is_bot"] != true || bots[0]["email"] != "notification-bot@zulip.com" {
			t.Errorf("cross_realm_bots: %s", raw)
		}
	})
}

// TestMoveGroupSettings: the organization's can_move_messages_between_*_group
// settings decide who may move, administrators always may; their "old"
// value is checked; each change is a realm/update_dict event, and register
// shows the values (the defaults by ID).
func TestMoveGroupSettings(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "a"}, {Name: "b"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.moderator.ID, f.member.ID, f.guest.ID}}})
		wantNoErr(t, "Subscribe", err)
		a, b := channelIDOf(t, f, "a"), channelIDOf(t, f, "b")
		groups, err := f.svc.UserGroups(ctx, chat.AsUser(f.admin.ID), false)
		wantNoErr(t, "UserGroups", err)
		group := map[string]int64{}
		for _, g := range groups {
			group[g.Name] = g.ID
		}
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{FetchEventTypes: []string{"realm"}, EventTypes: []string{"realm"}})
		wantNoErr(t, "Register", err)
		for name, want := range map[string]int64{"realm_can_move_messages_between_topics_group": group["role:everyone"],
			"realm_can_move_messages_between_channels_group": group["role:members"]} {
			if got, ok := st[name].(chat.GroupSetting); !ok || got.GroupID != want {
				t.Errorf("%s = %#v, want group %d", name, st[name], want)
			}
		}
		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), a, "t", "text")
		wantNoErr(t, "send", err)
		topic := func(as int64, name string) error {
			return updateMessage(f.svc, ctx, chat.AsUser(as), id, chat.MessageEdit{Topic: &name})
		}
		channel := func(as, to int64) error {
			return updateMessage(f.svc, ctx, chat.AsUser(as), id, chat.MessageEdit{StreamID: &to})
		}
		// The defaults: everyone between topics, members between channels.
		wantNoErr(t, "a guest renames", topic(f.guest.ID, "by guest"))
		wantErr(t, "a guest moves to another channel", channel(f.guest.ID, b), chat.ErrNoMovePermission)
		wantNoErr(t, "a member moves to another channel", channel(f.member.ID, b))

		admins := chat.GroupSettingOf(group["role:administrators"])
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{
			CanMoveMessagesBetweenTopicsGroup: &chat.GroupSettingUpdate{New: admins, Old: ptr(chat.GroupSettingOf(group["role:members"]))}})
		wantErr(t, "a stale old value", err, chat.ErrGroupSettingOldMismatch)
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{
			CanMoveMessagesBetweenChannelsGroup: &chat.GroupSettingUpdate{New: chat.GroupSettingOf(group["role:everyone"])}})
		wantCodeMsg(t, "everyone between channels", err, chat.CodeBadRequest,
			"'can_move_messages_between_channels_group' setting cannot be set to 'role:everyone' group.")
		changes, err := f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{
			CanMoveMessagesBetweenTopicsGroup: &chat.GroupSettingUpdate{New: admins, Old: ptr(chat.GroupSettingOf(group["role:everyone"]))},
			CanMoveMessagesBetweenChannelsGroup: &chat.GroupSettingUpdate{
				New: chat.GroupSetting{Members: []int64{f.member.ID}, Subgroups: []int64{group["role:administrators"]}}}})
		wantNoErr(t, "UpdateRealm", err)
		anon := chat.GroupSetting{Members: []int64{f.member.ID}, Subgroups: []int64{group["role:administrators"]}}
		diff(t, "changes", changes, []chat.RealmSettingChange{
			{Name: "can_move_messages_between_channels_group", Value: anon},
			{Name: "can_move_messages_between_topics_group", Value: admins}})
		events := queueEvents(t, f, f.member.ID, st["queue_id"].(string))
		for _, e := range events {
			delete(e, "id")
		}
		diff(t, "events", events, []map[string]any{
			{"type": "realm", "op": "update_dict", "property": "default",
				"data": map[string]any{"can_move_messages_between_channels_group": map[string]any{
					"direct_members": []any{float64(f.member.ID)}, "direct_subgroups": []any{float64(group["role:administrators"])}}}},
			{"type": "realm", "op": "update_dict", "property": "default",
				"data": map[string]any{"can_move_messages_between_topics_group": float64(admins.GroupID)}}})

		wantErr(t, "a moderator renames", topic(f.moderator.ID, "by moderator"), chat.ErrNoEditPermission)
		wantErr(t, "the sender renames", topic(f.member.ID, "by sender"), chat.ErrNoEditPermission)
		wantNoErr(t, "an administrator renames", topic(f.admin.ID, "by admin"))
		wantNoErr(t, "a direct member moves back", channel(f.member.ID, a))
		wantErr(t, "a moderator moves", channel(f.moderator.ID, b), chat.ErrNoMovePermission)
		wantNoErr(t, "an administrator moves", channel(f.admin.ID, b))
	})
}
