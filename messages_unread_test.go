package chat_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestRegisterUnreadState checks unread_msgs and starred_messages in POST
// /register on every backend, as messages arrive and are read.
func TestRegisterUnreadState(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "unread"}},
			Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		channel, _ := f.svc.ChannelIDByName(ctx, owner, "unread")
		c1, _ := f.svc.PostChannelMessage(ctx, owner, channel, "Lunch", "hi")
		c2, _ := f.svc.PostChannelMessage(ctx, owner, channel, "lunch", "@**Max Member** there?")
		send := func(to ...int64) int64 {
			id, err := f.svc.SendMessage(ctx, owner, chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: to}, Content: "psst"})
			wantNoErr(t, "SendMessage", err)
			return id
		}
		d1 := send(f.member.ID)
		g1 := send(f.member.ID, f.admin.ID)
		state := func() map[string]any {
			t.Helper()
			st, err := f.svc.Register(ctx, member, chat.RegisterRequest{
				FetchEventTypes: []string{"message", "update_message_flags", "starred_messages"}})
			wantNoErr(t, "Register", err)
			b, err := json.Marshal(map[string]any{"unread_msgs": st["unread_msgs"], "starred_messages": st["starred_messages"]})
			wantNoErr(t, "Marshal", err)
			var out map[string]any
			wantNoErr(t, "Unmarshal", json.Unmarshal(b, &out))
			return out
		}
		n := jsonNumbers
		group := itoa(min(f.owner.ID, f.member.ID, f.admin.ID)) + "," + itoa(f.owner.ID+f.member.ID+f.admin.ID-
			min(f.owner.ID, f.member.ID, f.admin.ID)-max(f.owner.ID, f.member.ID, f.admin.ID)) + "," + itoa(max(f.owner.ID, f.member.ID, f.admin.ID))
		diff(t, "unread state", state(), map[string]any{
			"starred_messages": []any{},
			"unread_msgs": map[string]any{
				"count": float64(5),
				"pms":   []any{map[string]any{"other_user_id": float64(f.owner.ID), "sender_id": float64(f.owner.ID), "unread_message_ids": n(d1)}},
				"streams": []any{
					map[string]any{"stream_id": float64(channel), "topic": "Lunch", "unread_message_ids": n(c1, c2)},
					// The notification bot's message of the channel's creation.
					map[string]any{"stream_id": float64(channel), "topic": "channel events", "unread_message_ids": n(c1 - 1)},
				},
				"huddles":             []any{map[string]any{"user_ids_string": group, "unread_message_ids": n(g1)}},
				"mentions":            n(c2),
				"old_unreads_missing": false,
			},
		})
		wantNoErr(t, "read", f.svc.UpdateMessageFlags(ctx, member, chat.MessageFlagsRequest{Op: "add", Flag: "read", Messages: []int64{c1, c2, g1}}))
		wantNoErr(t, "star", f.svc.UpdateMessageFlags(ctx, member, chat.MessageFlagsRequest{Op: "add", Flag: "starred", Messages: []int64{g1, c1}}))
		diff(t, "after reading", state(), map[string]any{
			"starred_messages": n(c1, g1),
			"unread_msgs": map[string]any{
				"count":               float64(2),
				"pms":                 []any{map[string]any{"other_user_id": float64(f.owner.ID), "sender_id": float64(f.owner.ID), "unread_message_ids": n(d1)}},
				"streams":             []any{map[string]any{"stream_id": float64(channel), "topic": "channel events", "unread_message_ids": n(c1 - 1)}},
				"huddles":             []any{},
				"mentions":            []any{},
				"old_unreads_missing": false,
			},
		})
		// Without "message", update_message_flags fetches no unread state.
		st, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"update_message_flags"}})
		wantNoErr(t, "Register(flags only)", err)
		if _, ok := st["unread_msgs"]; ok {
			t.Error("unread_msgs without message")
		}
	})
}

// TestRegisterUnreadStateMutedAndCapped checks whole unread_msgs bodies on
// every backend: a muted channel's messages are listed but not counted, a
// wildcard mention is a mention, topics group ignoring case under the name
// of their oldest message listed, and beyond the cap only the newest
// messages are listed, with old_unreads_missing.
func TestRegisterUnreadStateMutedAndCapped(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		loud, quiet := loudAndQuiet(t, f)
		var err error
		for done := false; !done; {
			done, err = f.svc.MarkAllAsRead(ctx, member)
			wantNoErr(t, "MarkAllAsRead", err)
		}
		post := func(channel int64, topic, content string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, topic, content)
			wantNoErr(t, "PostChannelMessage", err)
			return id
		}
		q1 := post(quiet, "Plans", "shh")
		w1 := post(loud, "News", "@**all** news")
		q2 := post(quiet, "PLANS", "shh again")
		d1, err := f.svc.SendMessage(ctx, owner, chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: []int64{f.member.ID}}, Content: "psst"})
		wantNoErr(t, "SendMessage", err)
		unread := func() any {
			t.Helper()
			st, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"message", "update_message_flags"}})
			wantNoErr(t, "Register", err)
			b, err := json.Marshal(st["unread_msgs"])
			wantNoErr(t, "Marshal", err)
			var out any
			wantNoErr(t, "Unmarshal", json.Unmarshal(b, &out))
			return out
		}
		n := jsonNumbers
		topic := func(channel int64, name string, ids ...int64) any {
			return map[string]any{"stream_id": float64(channel), "topic": name, "unread_message_ids": n(ids...)}
		}
		pms := []any{map[string]any{"other_user_id": float64(f.owner.ID), "sender_id": float64(f.owner.ID), "unread_message_ids": n(d1)}}
		streams := []any{topic(loud, "News", w1), topic(quiet, "Plans", q1, q2)}
		if quiet < loud {
			streams = []any{streams[1], streams[0]}
		}
		diff(t, "unread state", unread(), map[string]any{
			"count": float64(2), "pms": pms, "streams": streams, "huddles": []any{}, "mentions": n(w1), "old_unreads_missing": false,
		})
		defer chat.SetMaxUnreadMessagesForTest(2)()
		diff(t, "unread state beyond the cap", unread(), map[string]any{
			"count": float64(1), "pms": pms, "streams": []any{topic(quiet, "PLANS", q2)}, "huddles": []any{}, "mentions": []any{},
			"old_unreads_missing": true,
		})
	})
}

// TestUnreadWildcardMentionsMuted: unread_msgs lists a wildcard mention
// only outside muted conversations, as the reference: not in a muted
// channel unless its topic is unmuted or followed, not in a muted topic;
// a personal mention always.
func TestUnreadWildcardMentionsMuted(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		loud, quiet := loudAndQuiet(t, f)
		wantNoErr(t, "mute a topic", f.svc.SetUserTopic(ctx, member, loud, "hush", storage.TopicMuted))
		wantNoErr(t, "unmute a topic", f.svc.SetUserTopic(ctx, member, quiet, "open", storage.TopicUnmuted))
		wantNoErr(t, "follow a topic", f.svc.SetUserTopic(ctx, member, quiet, "followed", storage.TopicFollowed))
		post := func(channel int64, topic, content string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, topic, content)
			wantNoErr(t, "PostChannelMessage", err)
			return id
		}
		var want []any
		listed := func(id int64) { want = append(want, float64(id)) }
		listed(post(loud, "news", "@**all** news"))
		post(loud, "HUSH", "@**all** in a muted topic")
		post(quiet, "plans", "@**everyone** in a muted channel")
		post(quiet, "plans", "@**topic** in a muted channel")
		listed(post(quiet, "plans", "@**Max Member** by name in a muted channel"))
		listed(post(quiet, "Open", "@**all** in an unmuted topic of a muted channel"))
		listed(post(quiet, "followed", "@**all** in a followed topic of a muted channel"))
		st, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"message", "update_message_flags"}})
		wantNoErr(t, "Register", err)
		b, err := json.Marshal(st["unread_msgs"])
		wantNoErr(t, "Marshal", err)
		var got struct {
			Mentions []any `json:"mentions"`
		}
		wantNoErr(t, "Unmarshal", json.Unmarshal(b, &got))
		diff(t, "mentions", got.Mentions, want)
	})
}

// loudAndQuiet subscribes the owner and the member to the channels "loud"
// and "quiet", and mutes "quiet" for the member.
func loudAndQuiet(t *testing.T, f *fixture) (loud, quiet int64) {
	t.Helper()
	ctx := t.Context()
	owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
	_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "loud"}, {Name: "quiet"}},
		Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
	wantNoErr(t, "Subscribe", err)
	loud, _ = f.svc.ChannelIDByName(ctx, owner, "loud")
	quiet, _ = f.svc.ChannelIDByName(ctx, owner, "quiet")
	wantNoErr(t, "mute", f.svc.UpdateSubscriptionProperties(ctx, member, []chat.PropertyChange{
		{StreamID: quiet, Property: "is_muted", Value: chat.BoolValue(true)}}))
	return loud, quiet
}

// jsonNumbers is ids as encoding/json decodes them into an any: float64s,
// and an empty list rather than nil.
func jsonNumbers(ids ...int64) []any {
	out := []any{}
	for _, id := range ids {
		out = append(out, float64(id))
	}
	return out
}

// TestBigChannelUnreadRightAfterSend reads a big channel's messages, as a
// recipient, right after they are sent: the SQLite store writes such rows a
// moment later (storage/sqlite/fanout.go), and the unread state, the
// flags and the fetches must not show it.
func TestBigChannelUnreadRightAfterSend(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		ids := []int64{f.owner.ID, f.member.ID}
		for i := range 70 {
			u, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: fmt.Sprintf("crowd%d@example.com", i), FullName: "Crowd"})
			wantNoErr(t, "ProvisionUser", err)
			ids = append(ids, u.UserID)
		}
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "big"}},
			Principals: &chat.Principals{IDs: ids}})
		wantNoErr(t, "Subscribe", err)
		big, _ := f.svc.ChannelIDByName(ctx, owner, "big")
		type unread struct {
			Count    int   `json:"count"`
			Mentions []any `json:"mentions"`
			Streams  []struct {
				Topic     string `json:"topic"`
				UnreadIDs []any  `json:"unread_message_ids"`
				StreamID  int64  `json:"stream_id"`
			} `json:"streams"`
		}
		state := func() (got unread) {
			t.Helper()
			st, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"message", "update_message_flags"}})
			wantNoErr(t, "Register", err)
			b, err := json.Marshal(st["unread_msgs"])
			wantNoErr(t, "Marshal", err)
			wantNoErr(t, "Unmarshal", json.Unmarshal(b, &got))
			return got
		}
		// The notification bot's message about the new channel is unread
		// too.
		base := state().Count
		first, err := f.svc.PostChannelMessage(ctx, owner, big, "news", "first")
		wantNoErr(t, "PostChannelMessage", err)
		second, err := f.svc.PostChannelMessage(ctx, owner, big, "news", "@**Max Member** second")
		wantNoErr(t, "PostChannelMessage", err)
		third, err := f.svc.PostChannelMessage(ctx, owner, big, "other", "third")
		wantNoErr(t, "PostChannelMessage", err)

		read := func(when string, wantCount int, wantTopics map[string][]any) {
			t.Helper()
			got := state()
			if got.Count != base+wantCount {
				t.Errorf("%s: %d unread, want %d more than the %d before", when, got.Count, wantCount, base)
			}
			diff(t, when+": mentions", got.Mentions, jsonNumbers(second))
			topics := map[string][]any{}
			for _, s := range got.Streams {
				if s.StreamID == big && (s.Topic == "news" || s.Topic == "other") {
					topics[s.Topic] = s.UnreadIDs
				}
			}
			diff(t, when+": unread by topic", topics, wantTopics)
		}
		read("right after the sends", 3, map[string][]any{"news": jsonNumbers(first, second), "other": jsonNumbers(third)})
		wantNoErr(t, "mark read", f.svc.UpdateMessageFlags(ctx, member, chat.MessageFlagsRequest{Op: "add", Flag: "read", Messages: []int64{first}}))
		read("after marking the first read", 2, map[string][]any{"news": jsonNumbers(second), "other": jsonNumbers(third)})
	})
}
