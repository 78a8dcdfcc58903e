package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestUpdateMessageFlags checks UpdateMessageFlags on every backend: the
// flags read back, the events with their unread details, historical rows
// for messages read through a channel's history, and every error.
func TestUpdateMessageFlags(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "flags"}},
			Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		_, err = f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "history"}}})
		wantNoErr(t, "Subscribe history", err)
		flagsID, _ := f.svc.ChannelIDByName(ctx, owner, "flags")
		historyID, _ := f.svc.ChannelIDByName(ctx, owner, "history")
		inChannel, err := f.svc.PostChannelMessage(ctx, owner, flagsID, "lunch", "hi @**Max Member**")
		wantNoErr(t, "PostChannelMessage", err)
		inHistory, err := f.svc.PostChannelMessage(ctx, owner, historyID, "old", "before you came")
		wantNoErr(t, "PostChannelMessage history", err)
		direct, err := f.svc.SendMessage(ctx, owner, chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.member.ID}}, Content: "psst"})
		wantNoErr(t, "SendMessage", err)

		state, err := f.svc.Register(ctx, member, chat.RegisterRequest{EventTypes: []string{"update_message_flags"},
			FetchEventTypes: []string{"realm"}})
		wantNoErr(t, "Register", err)
		queue := state["queue_id"].(string)
		flagsOf := func(id int64) []string {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, member, id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			return *v.Flags
		}
		set := func(op, flag string, ids ...int64) error {
			return f.svc.UpdateMessageFlags(ctx, member, chat.MessageFlagsRequest{Op: op, Flag: flag, Messages: ids})
		}

		wantNoErr(t, "mark read", set("add", "read", inChannel, direct))
		diff(t, "flags of the channel message", flagsOf(inChannel), []string{"read", "mentioned"})
		diff(t, "flags of the direct message", flagsOf(direct), []string{"read"})
		wantNoErr(t, "mark unread", set("remove", "read", direct, inChannel))
		diff(t, "flags after marking unread", flagsOf(inChannel), []string{"mentioned"})
		// Starring a message of a public channel's history makes a row,
		// read and historical.
		wantNoErr(t, "star from history", set("add", "starred", inHistory))
		diff(t, "historical star", flagsOf(inHistory), []string{"read", "starred", "historical"})
		// Marking unread a message of a channel one is not subscribed to
		// changes nothing.
		wantNoErr(t, "unread outside subscriptions", set("remove", "read", inHistory))
		diff(t, "still read", flagsOf(inHistory), []string{"read", "starred", "historical"})

		events, err := f.svc.GetEvents(ctx, member, queue, -1, true)
		wantNoErr(t, "GetEvents", err)
		var got []map[string]any
		for _, e := range events {
			var m map[string]any
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		ids := jsonNumbers
		diff(t, "events", got, []map[string]any{
			{"type": "update_message_flags", "op": "add", "operation": "add", "flag": "read", "all": false, "messages": ids(inChannel, direct)},
			{"type": "update_message_flags", "op": "remove", "operation": "remove", "flag": "read", "all": false,
				"messages": ids(direct, inChannel), "message_details": map[string]any{
					itoa(direct):    map[string]any{"type": "private", "mentioned": false, "user_ids": ids(f.owner.ID)},
					itoa(inChannel): map[string]any{"type": "stream", "mentioned": true, "stream_id": float64(flagsID), "topic": "lunch", "unmuted_stream_msg": true},
				}},
			{"type": "update_message_flags", "op": "add", "operation": "add", "flag": "starred", "all": false, "messages": ids(inHistory)},
			{"type": "update_message_flags", "op": "remove", "operation": "remove", "flag": "read", "all": false, "messages": ids(),
				"message_details": map[string]any{}},
		})

		wantCodeMsg(t, "unknown flag", set("add", "shiny", direct), chat.CodeBadRequest, "Invalid flag: 'shiny'")
		wantCodeMsg(t, "read-only flag", set("add", "mentioned", direct), chat.CodeBadRequest, "Flag not editable: 'mentioned'")
		wantCodeMsg(t, "bad op", set("toggle", "read", direct), chat.CodeBadRequest, "Invalid message flag operation: 'toggle'")
		wantErr(t, "someone else's direct message", f.svc.UpdateMessageFlags(ctx, chat.AsUser(f.admin.ID),
			chat.MessageFlagsRequest{Op: "add", Flag: "starred", Messages: []int64{direct}}), chat.ErrInvalidMessage)
	})
}
