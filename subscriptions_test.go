package chat_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

func TestSubscribeScenario(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		res, err := f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "Straße"}, {Name: "general", Description: "All of us"}},
			Principals:    &chat.Principals{IDs: []int64{f.member.ID, f.visEveryone.ID}},
		})
		wantNoErr(t, "Subscribe", err)
		diff(t, "subscribed", res.Subscribed, map[string][]string{
			itoa(f.member.ID): {"Straße", "general"}, itoa(f.visEveryone.ID): {"Straße", "general"}})
		// Unicode case folding matches STRASSE with Straße.
		res, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "STRASSE"}},
			Principals:    &chat.Principals{Emails: []string{"member@example.com", "admins@example.com"}},
		})
		wantNoErr(t, "Subscribe again", err)
		diff(t, "already", res.AlreadySubscribed, map[string][]string{itoa(f.member.ID): {"Straße"}})
		diff(t, "new", res.Subscribed, map[string][]string{itoa(f.visAdmins.ID): {"Straße"}})
		subs, err := f.svc.Subscriptions(ctx, chat.AsUser(f.visAdmins.ID), true)
		wantNoErr(t, "Subscriptions", err)
		if len(subs) != 1 || subs[0].SubscriberCount != 3 || len(*subs[0].Subscribers) != 3 {
			t.Errorf("subscriptions: %+v", subs)
		}
		// The failed request of another realm's user changes nothing.
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "brand new"}},
			Principals:    &chat.Principals{IDs: []int64{f.member.ID, f.only2.ID}},
		})
		wantErr(t, "foreign principal", err, chat.ErrNoSuchUser)
		chans, err := f.svc.Channels(ctx, chat.AsUser(f.member.ID), chat.DefaultChannelQuery)
		wantNoErr(t, "Channels", err)
		if len(chans) != 2 {
			t.Errorf("%d channels, want 2", len(chans))
		}
		// Properties, mute and unsubscribe.
		id := subs[0].StreamID
		wantNoErr(t, "props", f.svc.UpdateSubscriptionProperties(ctx, chat.AsUser(f.visAdmins.ID), []chat.PropertyChange{
			{StreamID: id, Property: "is_muted", Value: chat.BoolValue(true)},
			{StreamID: id, Property: "color", Value: chat.StringValue("#123456")}}))
		wantNoErr(t, "mute", f.svc.MuteTopic(ctx, chat.AsUser(f.visAdmins.ID), chat.MuteTopicRequest{StreamID: &id, Topic: "x", Op: "add"}))
		un, err := f.svc.Unsubscribe(ctx, chat.AsUser(f.visAdmins.ID), []string{"straße"}, nil)
		wantNoErr(t, "Unsubscribe", err)
		diff(t, "removed", un, chat.UnsubscribeResult{Removed: []string{"Straße"}, NotRemoved: []string{}})
	})
}

func TestSubscribeEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc := chat.New(newStore(t), chat.Config{Events: rec})
		org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Ev", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
		wantNoErr(t, "CreateOrg", err)
		rec.take()
		_, err = svc.Subscribe(t.Context(), chat.AsUser(org.UserID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "c"}}})
		wantNoErr(t, "Subscribe", err)
		events := rec.take()
		var kinds []string
		for _, e := range events {
			if e.Payload["type"] == "message" {
				kinds = append(kinds, "message")
				continue
			}
			kinds = append(kinds, e.Payload["type"].(string)+"/"+e.Payload["op"].(string))
		}
		// The notification bot announces the new channel after the
		// channel events.
		diff(t, "events", kinds, []string{"stream/create", "subscription/add", "message"})
		id := events[0].Payload["streams"].([]chat.ChannelView)[0].StreamID
		wantNoErr(t, "mute", svc.UpdateSubscriptionProperties(t.Context(), chat.AsUser(org.UserID), []chat.PropertyChange{
			{StreamID: id, Property: "in_home_view", Value: chat.BoolValue(false)}}))
		events = rec.take()
		if len(events) != 2 || events[0].Payload["property"] != "in_home_view" || events[0].Payload["value"] != false ||
			events[1].Payload["property"] != "is_muted" || events[1].Payload["value"] != true {
			t.Errorf("mute events: %+v", events)
		}
	})
}

func TestDeleteTopicScenario(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "d"}}})
		wantNoErr(t, "Subscribe", err)
		chans, _ := f.svc.Channels(ctx, chat.AsUser(f.admin.ID), chat.DefaultChannelQuery)
		id := chans[0].StreamID
		for i := range 250 {
			topic := "Gone"
			if i%2 == 0 {
				topic = "kept"
			}
			_, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.admin.ID), id, topic, "m")
			wantNoErr(t, "post", err)
		}
		_, err = f.svc.DeleteTopic(ctx, chat.AsUser(f.member.ID), id, "gone")
		wantErr(t, "member", err, chat.ErrMustBeAdmin)
		done, err := f.svc.DeleteTopic(ctx, chat.AsUser(f.admin.ID), id, "GONE")
		wantNoErr(t, "DeleteTopic", err)
		if !done {
			t.Errorf("complete = false")
		}
		done, err = f.svc.DeleteTopic(ctx, chat.AsUser(f.admin.ID), id, chat.EmptyTopicDisplayName)
		if err != nil || !done {
			t.Errorf("empty topic: %v %v", done, err)
		}
	})
}

// TestDeleteTopicTimeBudget deletes a topic of 10 000 messages with a time
// budget of 20 clock reads per request: each request stops early, and the
// repeated requests delete the whole topic and nothing else.
func TestDeleteTopicTimeBudget(t *testing.T) {
	var ticks atomic.Int64
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	svc := chat.New(memory.New(), chat.Config{
		Now:                   func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Millisecond) },
		DeleteTopicTimeBudget: 20 * time.Millisecond,
	})
	ctx := t.Context()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Big", OwnerEmail: "o@example.com", OwnerName: "Owen Owner"})
	wantNoErr(t, "CreateOrg", err)
	_, err = svc.Subscribe(ctx, chat.AsUser(org.UserID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "big"}}})
	wantNoErr(t, "Subscribe", err)
	chans, _ := svc.Channels(ctx, chat.AsUser(org.UserID), chat.DefaultChannelQuery)
	id := chans[0].StreamID
	var kept []int64
	for i := range 10000 {
		_, err := svc.PostChannelMessage(ctx, chat.AsUser(org.UserID), id, "huge", "m")
		wantNoErr(t, "post", err)
		if i%1000 == 0 {
			m, err := svc.PostChannelMessage(ctx, chat.AsUser(org.UserID), id, "other", "keep")
			wantNoErr(t, "post", err)
			kept = append(kept, m)
		}
	}
	calls := 0
	for {
		calls++
		done, err := svc.DeleteTopic(ctx, chat.AsUser(org.UserID), id, "HUGE")
		wantNoErr(t, "DeleteTopic", err)
		if done {
			break
		}
		if calls > 1000 {
			t.Fatal("delete_topic never completes")
		}
	}
	if calls < 3 {
		t.Errorf("finished in %d calls; the budget did not stop it", calls)
	}
	got, err := svc.ChannelByID(ctx, chat.AsUser(org.UserID), id)
	wantNoErr(t, "ChannelByID", err)
	// The channel-created message (ID 1) is still the first one.
	if got.FirstMessageID == nil || *got.FirstMessageID != 1 {
		t.Errorf("first_message_id = %v", got.FirstMessageID)
	}
	if n := svc.CountTopicMessages(ctx, id, "huge"); n != 0 {
		t.Errorf("%d messages left in the topic", n)
	}
	if n := svc.CountTopicMessages(ctx, id, "other"); n != len(kept) {
		t.Errorf("%d messages left in the other topic, want %d", n, len(kept))
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// TestSubscriptionsMany checks Subscriptions past the count at which it
// reads the realm's channels in one query, on every backend: each
// subscription with its own channel, settings and subscribers, sorted by
// name, and no channel the user is not subscribed to.
func TestSubscriptionsMany(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member := chat.AsUser(f.member.ID)
		before, err := f.svc.Subscriptions(ctx, member, true)
		wantNoErr(t, "Subscriptions", err)
		specs := make([]chat.ChannelSpec, 60)
		for i := range specs {
			specs[i] = chat.ChannelSpec{Name: fmt.Sprintf("many %02d", 59-i), Description: fmt.Sprintf("number %d", 59-i)}
		}
		_, err = f.svc.Subscribe(ctx, member, chat.SubscribeRequest{Subscriptions: specs,
			Principals: &chat.Principals{IDs: []int64{f.member.ID, f.visEveryone.ID}}})
		wantNoErr(t, "Subscribe", err)
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "not mine"}}})
		wantNoErr(t, "Subscribe admin", err)
		first, _ := f.svc.ChannelIDByName(ctx, member, "many 00")
		wantNoErr(t, "mute", f.svc.UpdateSubscriptionProperties(ctx, member, []chat.PropertyChange{
			{StreamID: first, Property: "is_muted", Value: chat.BoolValue(true)}}))
		subs, err := f.svc.Subscriptions(ctx, member, true)
		wantNoErr(t, "Subscriptions", err)
		if len(subs) != len(before)+60 {
			t.Fatalf("%d subscriptions, want %d", len(subs), len(before)+60)
		}
		var many []chat.SubscriptionView
		for _, s := range subs {
			if strings.HasPrefix(s.Name, "many ") {
				many = append(many, s)
			}
		}
		want := []int64{f.member.ID, f.visEveryone.ID}
		slices.Sort(want)
		for i, s := range many {
			if s.Name != fmt.Sprintf("many %02d", i) || s.Description != fmt.Sprintf("number %d", i) ||
				s.SubscriberCount != 2 || s.Subscribers == nil || !slices.Equal(*s.Subscribers, want) || s.IsMuted != (i == 0) {
				t.Errorf("subscription %d: %+v", i, s)
			}
		}
	})
}
