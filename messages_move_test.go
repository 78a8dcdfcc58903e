package chat_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestMoveTopicPropagateModes renames topics with each propagate mode on
// every backend, checks the resulting topics, the update_message event a
// subscriber gets, and the refusals.
func TestMoveTopicPropagateModes(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "mv"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		var channel int64
		cs, err := f.svc.Channels(ctx, chat.AsUser(f.admin.ID), chat.DefaultChannelQuery)
		wantNoErr(t, "Channels", err)
		for _, c := range cs {
			if c.Name == "mv" {
				channel = c.StreamID
			}
		}
		send := func(topic string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), channel, topic, "text")
			wantNoErr(t, "send", err)
			return id
		}
		topicOf := func(id int64) string {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.admin.ID), id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			return v.Subject
		}
		topics := func(ids ...int64) []string {
			out := []string{}
			for _, id := range ids {
				out = append(out, topicOf(id))
			}
			return out
		}
		a1, a2, a3, other := send("a"), send("a"), send("A"), send("b")
		move := func(as, id int64, topic, mode string) error {
			return updateMessage(f.svc, ctx, chat.AsUser(as), id, chat.MessageEdit{Topic: &topic, PropagateMode: mode})
		}

		st, err := f.svc.Register(ctx, chat.AsUser(f.admin.ID), chat.RegisterRequest{EventTypes: []string{"update_message"}})
		wantNoErr(t, "Register", err)
		queue := st["queue_id"].(string)

		wantNoErr(t, "change_one", move(f.member.ID, a2, "one ex.org", ""))
		diff(t, "after change_one", topics(a1, a2, a3, other), []string{"a", "one ex.org", "A", "b"})
		wantNoErr(t, "change_later", move(f.member.ID, a1, "later", chat.PropagateChangeLater))
		// a2 left the topic; a3 is in it (topics match without regard to case).
		diff(t, "after change_later", topics(a1, a2, a3, other), []string{"later", "one ex.org", "later", "b"})
		// The notification bot told the new topic; its notice is in the
		// topic now, so the next move takes it along.
		newest, err := f.svc.GetMessages(ctx, chat.AsUser(f.admin.ID), chat.GetMessagesRequest{Anchor: ptr("newest"),
			NumBefore: ptr[int64](1), Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "mv"}, {Operator: "topic", Operand: "later"}}})
		wantNoErr(t, "GetMessages", err)
		notice := newest.Messages[0]
		if notice.SenderID != chat.NotificationBotID || notice.Content != "This topic was moved here from #**mv>a** by @_**"+
			f.member.Name+"|"+itoa(f.member.ID)+"**." {
			t.Errorf("notice of change_later: sender %d, %q", notice.SenderID, notice.Content)
		}
		wantNoErr(t, "change_all", move(f.admin.ID, a3, "✔ all", chat.PropagateChangeAll))
		diff(t, "after change_all", topics(a1, a2, a3, other), []string{"✔ all", "one ex.org", "✔ all", "b"})

		es, err := f.svc.GetEvents(ctx, chat.AsUser(f.admin.ID), queue, -1, true)
		wantNoErr(t, "GetEvents", err)
		var got []map[string]any
		for _, e := range es {
			var m map[string]any
			if err := json.Unmarshal(e.AppendJSON(nil), &m); err != nil {
				t.Fatal(err)
			}
			delete(m, "id")
			delete(m, "edit_timestamp")
			got = append(got, m)
		}
		event := func(user, id int64, ids []int64, mode, from, to string) map[string]any {
			fids := []any{}
			for _, i := range ids {
				fids = append(fids, float64(i))
			}
			return map[string]any{"type": "update_message", "user_id": float64(user), "message_id": float64(id),
				"message_ids": fids, "rendering_only": false, "stream_id": float64(channel), "stream_name": "mv",
				"propagate_mode": mode, "orig_subject": from, "subject": to, "topic_links": []any{}, "flags": []any{}}
		}
		// The new topic's links come with it.
		changeOne := event(f.member.ID, a2, []int64{a2}, "change_one", "a", "one ex.org")
		changeOne["topic_links"] = []any{map[string]any{"text": "ex.org", "url": "https://ex.org"}}
		diff(t, "events", got, []map[string]any{
			changeOne,
			event(f.member.ID, a1, []int64{a1, a3}, "change_later", "a", "later"),
			event(f.admin.ID, a3, []int64{a1, a3, notice.ID}, "change_all", "later", "✔ all"),
		})

		wantErr(t, "no change", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), a1, chat.MessageEdit{}), chat.ErrNothingToChange)
		wantErr(t, "same topic", move(f.member.ID, a1, "✔ all", ""), chat.ErrNothingToChange)
		wantErr(t, "mode without topic", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), a1,
			chat.MessageEdit{Content: ptr("x"), PropagateMode: chat.PropagateChangeAll}), chat.ErrPropagateWithoutMove)
		wantErr(t, "bad mode", move(f.member.ID, a1, "x", "change_some"), chat.ErrInvalidPropagateMode)
		dm, err := f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.admin.ID}}, Content: "hi"})
		wantNoErr(t, "dm", err)
		wantErr(t, "direct message", move(f.member.ID, dm, "x", ""), chat.ErrDirectMessageTopic)

		// After a week only moderators and administrators may move.
		f.clock.Advance(8 * 24 * time.Hour)
		wantErr(t, "member after a week", move(f.member.ID, other, "late", ""), chat.ErrTopicEditTimeLimit)
		diff(t, "refused move", topicOf(other), "b")
		wantNoErr(t, "admin after a week", move(f.admin.ID, other, "late", ""))
		diff(t, "admin move", topicOf(other), "late")

		// The organization sets the limit: none at all, or a shorter one.
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{MoveMessagesWithinStreamLimitSeconds: &chat.Unlimited})
		wantNoErr(t, "no limit", err)
		wantNoErr(t, "member, no limit", move(f.member.ID, other, "later", ""))
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{
			MoveMessagesWithinStreamLimitSeconds: ptr(chat.Seconds(60))})
		wantNoErr(t, "a minute", err)
		fresh := send("fresh")
		f.clock.Advance(2 * time.Minute)
		wantErr(t, "member after the organization's minute", move(f.member.ID, fresh, "stale", ""), chat.ErrTopicEditTimeLimit)

		// A refused content edit in the same request moves nothing.
		content := "new"
		err = updateMessage(f.svc, ctx, chat.AsUser(f.admin.ID), a1, chat.MessageEdit{Content: &content, Topic: ptr("z")})
		wantErr(t, "content by another", err, chat.ErrNoEditPermission)
		diff(t, "nothing half-written", topicOf(a1), "✔ all")

		// The unchanged content sent with a move, as the terminal client
		// sends it, is no content edit: another user may move, and the
		// history records only the move.
		wantNoErr(t, "move with the same content", updateMessage(f.svc, ctx, chat.AsUser(f.admin.ID), a1,
			chat.MessageEdit{Content: ptr("text \n"), Topic: ptr("z")}))
		diff(t, "moved", topicOf(a1), "z")
		h, err := f.svc.MessageHistory(ctx, chat.AsUser(f.admin.ID), a1)
		wantNoErr(t, "MessageHistory", err)
		if last := h[len(h)-1]; last.PrevContent != nil || last.PrevTopic == nil || *last.PrevTopic != "✔ all" {
			t.Errorf("last history entry %+v, want a move from ✔ all without content", last)
		}
	})
}
