package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestUpdateChannel changes a channel through UpdateChannel on every
// backend: who may, each property and its event, the notices, and every
// refusal; then archives and unarchives it.
func TestUpdateChannel(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		// The member creates the channel, and so administers it.
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "plans"}, {Name: "taken"}},
			Principals: &chat.Principals{IDs: []int64{f.member.ID, f.guest.ID}}})
		wantNoErr(t, "Subscribe", err)
		id := channelIDOf(t, f, "plans")
		update := func(as int64, req chat.ChannelUpdate) error {
			return f.svc.UpdateChannel(ctx, chat.AsUser(as), id, req)
		}
		queues := map[int64]string{}
		for _, u := range []int64{f.member.ID, f.moderator.ID} {
			st, err := f.svc.Register(ctx, chat.AsUser(u), chat.RegisterRequest{EventTypes: []string{"stream"}})
			wantNoErr(t, "Register", err)
			queues[u] = st["queue_id"].(string)
		}

		wantErr(t, "a moderator", update(f.moderator.ID, chat.ChannelUpdate{NewName: ptr("x")}), chat.ErrChannelAdminRequired)
		wantErr(t, "a subscribed guest", update(f.guest.ID, chat.ChannelUpdate{NewName: ptr("x")}), chat.ErrChannelAdminRequired)
		wantErr(t, "an unknown channel", f.svc.UpdateChannel(ctx, chat.AsUser(f.admin.ID), 9999, chat.ChannelUpdate{}), chat.ErrInvalidChannelID)
		wantErr(t, "a taken name", update(f.member.ID, chat.ChannelUpdate{NewName: ptr("TAKEN")}), chat.ErrChannelNameInUse)
		wantCodeMsg(t, "an empty name", update(f.member.ID, chat.ChannelUpdate{NewName: ptr(" ")}), chat.CodeBadRequest, "Channel name can't be empty.")
		wantErr(t, "retention by a member", update(f.member.ID, chat.ChannelUpdate{MessageRetentionDays: &chat.RetentionDays{Days: 3}}), chat.ErrMustBeOwner)
		wantErr(t, "default by a member", update(f.member.ID, chat.ChannelUpdate{IsDefaultStream: ptr(true)}), chat.ErrMustBeAdmin)
		wantErr(t, "a stale old value", update(f.member.ID, chat.ChannelUpdate{Groups: map[string]chat.GroupSettingUpdate{
			"can_send_message_group": {New: chat.GroupSetting{Members: []int64{f.member.ID}}, Old: &chat.GroupSetting{Members: []int64{f.guest.ID}}}}}),
			chat.ErrGroupSettingOldMismatch)

		// The member renames and describes it; the notification bot says so.
		wantNoErr(t, "rename and describe", update(f.member.ID, chat.ChannelUpdate{NewName: ptr("roadmap"), Description: ptr("What *next*")}))
		res, err := f.svc.GetMessages(ctx, chat.AsUser(f.member.ID), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](2),
			Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "roadmap"}, {Operator: "topic", Operand: "channel events"}}})
		wantNoErr(t, "GetMessages", err)
		who := "@_**" + f.member.Name + "|" + itoa(f.member.ID) + "**"
		var notices []string
		for _, m := range res.Messages[1:] {
			notices = append(notices, m.Content)
		}
		diff(t, "notices", notices, []string{who + " changed the description for this channel.\n\n" +
			"* **Old description:**\n```` quote\n*No description.*\n````\n* **New description:**\n```` quote\nWhat *next*\n````"})
		if res.Messages[0].Content != who+" renamed channel **plans** to **roadmap**." {
			t.Errorf("rename notice %q", res.Messages[0].Content)
		}

		// Made private, the channel disappears for the moderator, who
		// gets the event all the same.
		only := chat.GroupSetting{Members: []int64{f.member.ID}, Subgroups: []int64{}}
		wantNoErr(t, "private, and who may post", update(f.member.ID, chat.ChannelUpdate{IsPrivate: ptr(true),
			Groups: map[string]chat.GroupSettingUpdate{"can_send_message_group": {New: only}}}))
		wantEvents := []map[string]any{
			{"type": "stream", "op": "update", "stream_id": float64(id), "name": "plans", "property": "name", "value": "roadmap"},
			{"type": "stream", "op": "update", "stream_id": float64(id), "name": "plans", "property": "description",
				"value": "What *next*", "rendered_description": "<p>What <em>next</em></p>"},
			{"type": "stream", "op": "update", "stream_id": float64(id), "name": "roadmap", "property": "invite_only", "value": true,
				"history_public_to_subscribers": false, "is_web_public": false},
			{"type": "stream", "op": "update", "stream_id": float64(id), "name": "roadmap", "property": "can_send_message_group",
				"value": map[string]any{"direct_members": []any{float64(f.member.ID)}, "direct_subgroups": []any{}}},
		}
		for _, u := range []int64{f.member.ID, f.moderator.ID} {
			got := queueEvents(t, f, u, queues[u])
			for _, e := range got {
				delete(e, "id")
			}
			diff(t, "events", got, wantEvents)
		}
		_, err = f.svc.ChannelByID(ctx, chat.AsUser(f.moderator.ID), id)
		wantErr(t, "the moderator looks it up", err, chat.ErrInvalidChannelID)
		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.guest.ID), id, "t", "hello")
		wantErr(t, "the guest posts", err, chat.ErrNoPostPermission)
		wantErr(t, "a private default channel", f.svc.UpdateChannel(ctx, chat.AsUser(f.admin.ID), id,
			chat.ChannelUpdate{IsDefaultStream: ptr(true)}), chat.ErrDefaultChannelPrivate)
		// An administrator without content access may not open it up.
		wantErr(t, "an administrator who cannot read it", f.svc.UpdateChannel(ctx, chat.AsUser(f.admin.ID), id,
			chat.ChannelUpdate{IsPrivate: ptr(false)}), chat.ErrChannelContentRequired)
		wantNoErr(t, "nothing to change", update(f.member.ID, chat.ChannelUpdate{NewName: ptr("roadmap")}))

		// Archived: nobody posts, nothing changes, until it is unarchived.
		wantErr(t, "archive by the moderator", f.svc.ArchiveChannel(ctx, chat.AsUser(f.moderator.ID), id), chat.ErrInvalidChannelID)
		wantNoErr(t, "archive", f.svc.ArchiveChannel(ctx, chat.AsUser(f.member.ID), id))
		wantErr(t, "archive again", f.svc.ArchiveChannel(ctx, chat.AsUser(f.member.ID), id), chat.ErrChannelArchived)
		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "hello")
		wantCodeMsg(t, "post to an archived channel", err, chat.CodeBadRequest, "Not authorized to send to channel 'roadmap'")
		wantErr(t, "rename an archived channel", update(f.member.ID, chat.ChannelUpdate{NewName: ptr("x")}), chat.ErrChannelArchived)
		v, err := f.svc.ChannelByID(ctx, chat.AsUser(f.member.ID), id)
		wantNoErr(t, "ChannelByID", err)
		if !v.IsArchived || v.Name != "roadmap" || !v.InviteOnly {
			t.Errorf("archived channel: %+v", v)
		}
		wantNoErr(t, "unarchive", update(f.member.ID, chat.ChannelUpdate{IsArchived: ptr(false)}))
		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "back")
		wantNoErr(t, "post after unarchiving", err)
	})
}

// TestDefaultChannels adds and removes default channels on every backend:
// who may, private channels refused, and the event.
func TestDefaultChannels(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "welcome"}}})
		wantNoErr(t, "Subscribe", err)
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "hidden"}}, InviteOnly: true})
		wantNoErr(t, "Subscribe private", err)
		welcome, hidden := channelIDOf(t, f, "welcome"), channelIDOf(t, f, "hidden")
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{EventTypes: []string{"default_streams"}})
		wantNoErr(t, "Register", err)
		wantErr(t, "a member", f.svc.SetDefaultChannel(ctx, chat.AsUser(f.member.ID), welcome, true), chat.ErrMustBeAdmin)
		wantErr(t, "a private channel", f.svc.SetDefaultChannel(ctx, chat.AsUser(f.admin.ID), hidden, true), chat.ErrPrivateDefaultChannel)
		wantErr(t, "an unknown channel", f.svc.SetDefaultChannel(ctx, chat.AsUser(f.admin.ID), 9999, true), chat.ErrInvalidChannelID)
		wantNoErr(t, "add", f.svc.SetDefaultChannel(ctx, chat.AsUser(f.admin.ID), welcome, true))
		got, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{FetchEventTypes: []string{"default_streams"}})
		wantNoErr(t, "Register", err)
		diff(t, "realm_default_streams", got["realm_default_streams"], []int64{welcome})
		wantNoErr(t, "remove", f.svc.SetDefaultChannel(ctx, chat.AsUser(f.admin.ID), welcome, false))
		var lengths []int
		for _, e := range queueEvents(t, f, f.member.ID, st["queue_id"].(string)) {
			lengths = append(lengths, len(e["default_streams"].([]any)))
		}
		diff(t, "default_streams events", lengths, []int{1, 0})
	})
}
