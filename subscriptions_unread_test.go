package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// unreadOf returns a user's unread_msgs from POST /register, decoded.
func unreadOf(t *testing.T, f *fixture, user int64) map[string]any {
	t.Helper()
	st, err := f.svc.Register(t.Context(), chat.AsUser(user), chat.RegisterRequest{
		FetchEventTypes: []string{"message", "update_message_flags"}})
	wantNoErr(t, "Register", err)
	b, err := json.Marshal(st["unread_msgs"])
	wantNoErr(t, "Marshal", err)
	var out map[string]any
	wantNoErr(t, "Unmarshal", json.Unmarshal(b, &out))
	return out
}

// flagsQueue registers a queue of update_message_flags events for a user.
func flagsQueue(t *testing.T, f *fixture, user int64) string {
	t.Helper()
	st, err := f.svc.Register(t.Context(), chat.AsUser(user), chat.RegisterRequest{EventTypes: []string{"update_message_flags"}})
	wantNoErr(t, "Register", err)
	return st["queue_id"].(string)
}

// threeInTwo has the owner create two channels with the owner, the member
// and the admin in both, and returns their IDs.
func threeInTwo(t *testing.T, f *fixture, a, b string) (int64, int64) {
	t.Helper()
	_, err := f.svc.Subscribe(t.Context(), chat.AsUser(f.owner.ID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: a}, {Name: b}},
		Principals:    &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID, f.admin.ID}}})
	wantNoErr(t, "Subscribe", err)
	return channelIDOf(t, f, a), channelIDOf(t, f, b)
}

// readEvent is the update_message_flags event that marks messages read.
func readEvent(id float64, messages ...int64) map[string]any {
	return map[string]any{"id": id, "type": "update_message_flags", "op": "add", "operation": "add",
		"flag": "read", "messages": jsonNumbers(messages...), "all": false}
}

// TestUnsubscribeMarksChannelRead checks, on every backend, that leaving a
// channel marks its unread messages read for whoever left, in batches with
// an update_message_flags event each, as the reference does, and for
// nobody else; and that a user removed by an administrator is treated
// alike.
func TestUnsubscribeMarksChannelRead(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		leaving, staying := threeInTwo(t, f, "leaving", "staying")
		post := func(channel int64, topic string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, topic, "news")
			wantNoErr(t, "PostChannelMessage", err)
			return id
		}
		l1, l2, s1, l3 := post(leaving, "a"), post(leaving, "b"), post(staying, "a"), post(leaving, "a")
		// The notification bot's notices of the channels' creation.
		created := map[int64]int64{}
		for _, s := range unreadOf(t, f, f.member.ID)["streams"].([]any) {
			if s := s.(map[string]any); s["topic"] == "channel events" {
				created[int64(s["stream_id"].(float64))] = int64(s["unread_message_ids"].([]any)[0].(float64))
			}
		}
		before := unreadOf(t, f, f.admin.ID)
		queue := flagsQueue(t, f, f.member.ID)

		defer chat.SetMarkReadBatchForTest(2)()
		res, err := f.svc.Unsubscribe(ctx, chat.AsUser(f.member.ID), []string{"leaving"}, nil)
		wantNoErr(t, "Unsubscribe", err)
		diff(t, "unsubscribe result", res, chat.UnsubscribeResult{Removed: []string{"leaving"}, NotRemoved: []string{}})

		diff(t, "the member's unread after leaving", unreadOf(t, f, f.member.ID), map[string]any{
			"count": float64(2),
			"pms":   []any{},
			"streams": []any{
				map[string]any{"stream_id": float64(staying), "topic": "a", "unread_message_ids": jsonNumbers(s1)},
				map[string]any{"stream_id": float64(staying), "topic": "channel events", "unread_message_ids": jsonNumbers(created[staying])},
			},
			"huddles": []any{}, "mentions": []any{}, "old_unreads_missing": false,
		})
		diff(t, "the member's events", queueEvents(t, f, f.member.ID, queue), []map[string]any{
			readEvent(0, created[leaving], l1), readEvent(1, l2, l3),
		})
		diff(t, "the admin's unread, still subscribed", unreadOf(t, f, f.admin.ID), before)

		// Removed by the owner, two at once, sharing transactions: the
		// same for each, the batches of one user and the next in turn.
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "leaving"}}})
		wantNoErr(t, "Subscribe again", err)
		n1, n2, n3 := post(leaving, "c"), post(leaving, "c"), post(leaving, "d")
		_, err = f.svc.Unsubscribe(ctx, owner, []string{"leaving"}, &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}})
		wantNoErr(t, "Unsubscribe(admin and member by the owner)", err)
		for _, id := range []int64{f.admin.ID, f.member.ID} {
			for _, s := range unreadOf(t, f, id)["streams"].([]any) {
				if s.(map[string]any)["stream_id"] == float64(leaving) {
					t.Errorf("user %d still has unread messages in the channel they were removed from: %v", id, s)
				}
			}
		}
		wantEvents := []map[string]any{readEvent(0, created[leaving], l1), readEvent(1, l2, l3), readEvent(2, n1, n2), readEvent(3, n3)}
		diff(t, "the member's events after being removed", queueEvents(t, f, f.member.ID, queue), wantEvents)
		// Leaving a channel again, with nothing unread, changes nothing.
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "leaving"}}})
		wantNoErr(t, "Subscribe again", err)
		_, err = f.svc.Unsubscribe(ctx, chat.AsUser(f.member.ID), []string{"leaving"}, nil)
		wantNoErr(t, "Unsubscribe again", err)
		diff(t, "the member's events after leaving again", queueEvents(t, f, f.member.ID, queue), wantEvents)
	})
}

// TestArchiveChannelMarksRead checks, on every backend, that archiving a
// channel marks its messages read for its subscribers, the notice of the
// archiving included, without update_message_flags events, as the
// reference does; other channels' messages stay unread.
func TestArchiveChannelMarksRead(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		old, kept := threeInTwo(t, f, "old", "kept")
		for _, c := range []int64{old, old, kept} {
			_, err := f.svc.PostChannelMessage(ctx, owner, c, "t", "news")
			wantNoErr(t, "PostChannelMessage", err)
		}
		queue := flagsQueue(t, f, f.member.ID)
		defer chat.SetMarkReadBatchForTest(2)()
		wantNoErr(t, "ArchiveChannel", f.svc.ArchiveChannel(ctx, owner, old))
		for _, u := range []int64{f.member.ID, f.admin.ID} {
			var channels []float64
			for _, s := range unreadOf(t, f, u)["streams"].([]any) {
				channels = append(channels, s.(map[string]any)["stream_id"].(float64))
			}
			diff(t, "channels with unread messages", channels, []float64{float64(kept), float64(kept)})
		}
		if es := queueEvents(t, f, f.member.ID, queue); len(es) != 0 {
			t.Errorf("events for the archiving's reads: %v", es)
		}
	})
}
