package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestMessageEventsPerQueue checks that message and delete_message events
// take each queue's form: apply_markdown, narrow, flags, local_message_id,
// bulk_message_deletion and empty_topic_name.
func TestMessageEventsPerQueue(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "ev"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		register := func(as int64, req chat.RegisterRequest) string {
			req.EventTypes = []string{"message", "delete_message"}
			st, err := f.svc.Register(ctx, chat.AsUser(as), req)
			wantNoErr(t, "Register", err)
			return st["queue_id"].(string)
		}
		html := register(f.admin.ID, chat.RegisterRequest{ApplyMarkdown: true,
			ClientCapabilities: chat.ClientCapabilities{BulkMessageDeletion: true, EmptyTopicName: true}})
		raw := register(f.member.ID, chat.RegisterRequest{})
		narrowed := register(f.member.ID, chat.RegisterRequest{Narrow: []chat.NarrowTerm{{Operator: "topic", Operand: "other"}}})
		topic := ""
		id, err := f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "channel",
			To: &chat.MessageTo{Names: []string{"ev"}}, Topic: &topic, Content: "**hi**", Client: "website",
			QueueID: raw, LocalID: "7.01"})
		wantNoErr(t, "send", err)
		wantNoErr(t, "delete", f.svc.DeleteMessage(ctx, chat.AsUser(f.admin.ID), id))
		events := func(as int64, q string) []map[string]any {
			es, err := f.svc.GetEvents(ctx, chat.AsUser(as), q, -1, true)
			wantNoErr(t, "GetEvents", err)
			var out []map[string]any
			for _, e := range es {
				var m map[string]any
				if err := json.Unmarshal(e.AppendJSON(nil), &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "id")
				if msg, ok := m["message"].(map[string]any); ok {
					m["message"] = map[string]any{"content": msg["content"], "subject": msg["subject"],
						"content_type": msg["content_type"]}
				}
				out = append(out, m)
			}
			return out
		}
		fid := float64(id)
		diff(t, "html queue", events(f.admin.ID, html), []map[string]any{
			{"type": "message", "flags": []any{}, "message": map[string]any{"content": "<p><strong>hi</strong></p>",
				"subject": "", "content_type": "text/html"}},
			{"type": "delete_message", "message_ids": []any{fid}, "message_type": "stream", "stream_id": float64(1), "topic": ""},
		})
		diff(t, "raw queue", events(f.member.ID, raw), []map[string]any{
			{"type": "message", "flags": []any{"read"}, "local_message_id": "7.01", "message": map[string]any{
				"content": "**hi**", "subject": "general chat", "content_type": "text/x-markdown"}},
			{"type": "delete_message", "message_id": fid, "message_type": "stream", "stream_id": float64(1), "topic": "general chat"},
		})
		diff(t, "narrowed queue", events(f.member.ID, narrowed), []map[string]any{
			{"type": "delete_message", "message_id": fid, "message_type": "stream", "stream_id": float64(1), "topic": "general chat"},
		})
	})
}
