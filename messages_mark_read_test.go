package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestMarkAsReadAndTopics checks MarkAllAsRead across more than one batch,
// MarkChannelAsRead, MarkTopicAsRead and Topics on every backend.
func TestMarkAsReadAndTopics(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "reads"}},
			Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		channel, _ := f.svc.ChannelIDByName(ctx, owner, "reads")
		post := func(topic string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, topic, "news")
			wantNoErr(t, "PostChannelMessage", err)
			return id
		}
		lunch1, lunch2, other, empty := post("Lunch"), post("lunch"), post("other"), post("")

		topics, err := f.svc.Topics(ctx, member, channel, false)
		wantNoErr(t, "Topics", err)
		diff(t, "topics", topics, []chat.TopicSummary{
			{Name: "general chat", MaxID: empty}, {Name: "other", MaxID: other}, {Name: "lunch", MaxID: lunch2},
			{Name: "channel events", MaxID: lunch1 - 1},
		})
		topics, err = f.svc.Topics(ctx, member, channel, true)
		wantNoErr(t, "Topics(allow empty)", err)
		if topics[0].Name != "" {
			t.Errorf("empty topic named %q with allow_empty_topic_name", topics[0].Name)
		}
		_, err = f.svc.Topics(ctx, chat.AsUser(f.guest.ID), channel, false)
		wantErr(t, "Topics of a channel the guest may not read", err, chat.ErrInvalidChannelID)

		isRead := func(id int64) bool {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, member, id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			for _, fl := range *v.Flags {
				if fl == "read" {
					return true
				}
			}
			return false
		}
		wantNoErr(t, "MarkTopicAsRead", f.svc.MarkTopicAsRead(ctx, member, channel, "LUNCH"))
		if !isRead(lunch1) || !isRead(lunch2) || isRead(other) {
			t.Error("MarkTopicAsRead: lunch read, other unread wanted")
		}
		wantCodeMsg(t, "MarkTopicAsRead(no such topic)", f.svc.MarkTopicAsRead(ctx, member, channel, "nope"),
			chat.CodeBadRequest, "No such topic 'nope'")
		wantNoErr(t, "MarkTopicAsRead(general chat)", f.svc.MarkTopicAsRead(ctx, member, channel, "general chat"))
		if !isRead(empty) {
			t.Error("the empty topic is still unread")
		}
		wantNoErr(t, "MarkChannelAsRead", f.svc.MarkChannelAsRead(ctx, member, channel))
		if !isRead(other) {
			t.Error("MarkChannelAsRead left a message unread")
		}
		wantErr(t, "MarkChannelAsRead(unknown)", f.svc.MarkChannelAsRead(ctx, member, 999999), chat.ErrInvalidChannelID)

		// More unread messages than one batch.
		defer chat.SetMarkReadBatchForTest(10)()
		var last int64
		for range 23 {
			last, err = f.svc.SendMessage(ctx, owner, chat.SendMessageRequest{Type: "direct",
				To: &chat.MessageTo{IDs: []int64{f.member.ID}}, Content: "ping"})
			wantNoErr(t, "SendMessage", err)
		}
		complete, err := f.svc.MarkAllAsRead(ctx, member)
		wantNoErr(t, "MarkAllAsRead", err)
		if !complete || !isRead(last) || !isRead(last-22) {
			t.Errorf("MarkAllAsRead: complete %v, last read %v, first read %v", complete, isRead(last), isRead(last-22))
		}
	})
}
