package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestChannelTypingTrimsTopic checks that the operation itself trims the
// topic of a channel typing notification, as it trims a message's (the
// HTTP adapter passes it as sent): the subscriber's event names the
// trimmed topic.
func TestChannelTypingTrimsTopic(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "typing"}},
			Principals:    &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}},
		})
		wantNoErr(t, "Subscribe", err)
		var channel int64
		views, err := f.svc.Subscriptions(ctx, owner, false)
		wantNoErr(t, "Subscriptions", err)
		for _, v := range views {
			if v.Name == "typing" {
				channel = v.StreamID
			}
		}
		state, err := f.svc.Register(ctx, member, chat.RegisterRequest{EventTypes: []string{"typing"}, FetchEventTypes: []string{"realm"},
			ClientCapabilities: chat.ClientCapabilities{StreamTypingNotifications: true}})
		wantNoErr(t, "Register", err)
		queue := state["queue_id"].(string)
		topic := "  spaced out \t"
		wantNoErr(t, "SetTyping", f.svc.SetTyping(ctx, owner, chat.TypingRequest{Type: "channel", Op: "start",
			StreamID: &channel, Topic: &topic}))
		events, err := f.svc.GetEvents(ctx, member, queue, -1, true)
		wantNoErr(t, "GetEvents", err)
		if len(events) != 1 {
			t.Fatalf("%d events, want 1: %v", len(events), events)
		}
		var got struct {
			Topic string `json:"topic"`
		}
		if err := json.Unmarshal(events[0].Data, &got); err != nil {
			t.Fatal(err)
		}
		if got.Topic != "spaced out" {
			t.Errorf("typing event topic %q, want %q", got.Topic, "spaced out")
		}
	})
}
