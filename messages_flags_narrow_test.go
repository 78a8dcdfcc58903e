package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestUpdateMessageFlagsForNarrow checks range flag updates on every
// backend: anchors (an ID, first_unread, newest, oldest), include_anchor,
// the counts and ends of the answer, the flags read back, the one event on
// the actor's queue, and every error.
func TestUpdateMessageFlagsForNarrow(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "range"}},
			Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		channel, _ := f.svc.ChannelIDByName(ctx, owner, "range")
		var ids []int64
		for _, topic := range []string{"a", "b", "a", "b", "a"} {
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, topic, "m")
			wantNoErr(t, "PostChannelMessage", err)
			ids = append(ids, id)
		}
		state, err := f.svc.Register(ctx, member, chat.RegisterRequest{EventTypes: []string{"update_message_flags"},
			FetchEventTypes: []string{"realm"}})
		wantNoErr(t, "Register", err)
		ownerState, err := f.svc.Register(ctx, owner, chat.RegisterRequest{EventTypes: []string{"update_message_flags"},
			FetchEventTypes: []string{"realm"}})
		wantNoErr(t, "Register owner", err)

		topicA := []chat.NarrowElement{{Operator: "channel", Operand: channel}, {Operator: "topic", Operand: "a"}}
		update := func(req chat.FlagsNarrowRequest) chat.FlagsNarrowResult {
			t.Helper()
			res, err := f.svc.UpdateMessageFlagsForNarrow(ctx, member, req)
			wantNoErr(t, "UpdateMessageFlagsForNarrow", err)
			return res
		}
		p := func(v int64) *int64 { return &v }

		// Topic a's messages are ids[0], ids[2], ids[4]: two from the
		// second on, the anchor included.
		diff(t, "read from ids[2]", update(chat.FlagsNarrowRequest{Op: "add", Flag: "read", Anchor: itoa(ids[2]),
			IncludeAnchor: true, NumAfter: 5, Narrow: topicA}),
			chat.FlagsNarrowResult{ProcessedCount: 2, UpdatedCount: 2, FirstProcessedID: p(ids[2]), LastProcessedID: p(ids[4]),
				FoundOldest: false, FoundNewest: true})
		// first_unread of topic a is now ids[0]; the range ends there.
		diff(t, "read from first_unread", update(chat.FlagsNarrowRequest{Op: "add", Flag: "read", Anchor: "first_unread",
			IncludeAnchor: true, NumBefore: 10, NumAfter: 10, Narrow: topicA}),
			chat.FlagsNarrowResult{ProcessedCount: 3, UpdatedCount: 1, FirstProcessedID: p(ids[0]), LastProcessedID: p(ids[4]),
				FoundOldest: true, FoundNewest: true})
		// Every message before the newest, without it: ids[0..3], of which
		// the two of topic a were read.
		diff(t, "unread before newest", update(chat.FlagsNarrowRequest{Op: "remove", Flag: "read", Anchor: itoa(ids[4]),
			IncludeAnchor: false, NumBefore: 4, Narrow: nil}),
			chat.FlagsNarrowResult{ProcessedCount: 4, UpdatedCount: 2, FirstProcessedID: p(ids[0]), LastProcessedID: p(ids[3]),
				FoundOldest: false, FoundNewest: false})
		// "newest" as anchor is past every message: nothing is processed.
		diff(t, "newest, nothing after", update(chat.FlagsNarrowRequest{Op: "add", Flag: "starred", Anchor: "newest",
			IncludeAnchor: true, NumAfter: 3}),
			chat.FlagsNarrowResult{FoundOldest: false, FoundNewest: true})
		diff(t, "star the oldest", update(chat.FlagsNarrowRequest{Op: "add", Flag: "starred", Anchor: "oldest",
			IncludeAnchor: true, NumAfter: 1, Narrow: topicA}),
			chat.FlagsNarrowResult{ProcessedCount: 1, UpdatedCount: 1, FirstProcessedID: p(ids[0]), LastProcessedID: p(ids[0]),
				FoundOldest: true, FoundNewest: false})

		flags := func(id int64) []string {
			v, _, err := f.svc.GetMessage(ctx, member, id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			return *v.Flags
		}
		diff(t, "flags", [][]string{flags(ids[0]), flags(ids[1]), flags(ids[3]), flags(ids[4])},
			[][]string{{"starred"}, {}, {}, {"read"}})

		events := func(queue string) []map[string]any {
			evs, err := f.svc.GetEvents(ctx, member, queue, -1, true)
			wantNoErr(t, "GetEvents", err)
			var out []map[string]any
			for _, e := range evs {
				var m map[string]any
				if err := json.Unmarshal(e.Data, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "id")
				delete(m, "message_details")
				out = append(out, m)
			}
			return out
		}
		ev := func(op, flag string, msgs ...int64) map[string]any {
			return map[string]any{"type": "update_message_flags", "op": op, "operation": op, "flag": flag, "all": false, "messages": jsonNumbers(msgs...)}
		}
		diff(t, "events", events(state["queue_id"].(string)), []map[string]any{
			ev("add", "read", ids[2], ids[4]), ev("add", "read", ids[0], ids[2], ids[4]),
			ev("remove", "read", ids[0], ids[1], ids[2], ids[3]), ev("add", "starred"), ev("add", "starred", ids[0])})
		ownerEvents, err := f.svc.GetEvents(ctx, owner, ownerState["queue_id"].(string), -1, true)
		wantNoErr(t, "owner GetEvents", err)
		diff(t, "no events for the owner", len(ownerEvents), 0)

		bad := func(req chat.FlagsNarrowRequest, msg string) {
			t.Helper()
			_, err := f.svc.UpdateMessageFlagsForNarrow(ctx, member, req)
			wantCodeMsg(t, msg, err, chat.CodeBadRequest, msg)
		}
		ok := chat.FlagsNarrowRequest{Op: "add", Flag: "read", Anchor: "newest", IncludeAnchor: true}
		with := func(fn func(r *chat.FlagsNarrowRequest)) chat.FlagsNarrowRequest { r := ok; fn(&r); return r }
		bad(with(func(r *chat.FlagsNarrowRequest) { r.Flag = "mentioned" }), "Flag not editable: 'mentioned'")
		bad(with(func(r *chat.FlagsNarrowRequest) { r.Flag = "shiny" }), "Invalid flag: 'shiny'")
		bad(with(func(r *chat.FlagsNarrowRequest) { r.Op = "flip" }), "Invalid message flag operation: 'flip'")
		bad(with(func(r *chat.FlagsNarrowRequest) { r.NumBefore = -1 }), "num_before and num_after must not be negative")
		bad(with(func(r *chat.FlagsNarrowRequest) { r.NumBefore, r.NumAfter, r.IncludeAnchor = 1, 1, false }),
			"The anchor can only be excluded at an end of the range")
		bad(with(func(r *chat.FlagsNarrowRequest) { r.Anchor = "soon" }), "Invalid anchor")
	})
}
