package chat_test

import (
	"slices"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestNewUserDefaultChannels checks, on every backend, what the reference
// does for a human user it creates: subscribed to the organization's
// default channels (not to archived or other ones), with peer_add events
// to those who see them, and given the default channels' messages of the
// last twelve weeks, read but for the newest twenty; a bot gets neither.
func TestNewUserDefaultChannels(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		for _, name := range []string{"lobby", "archived", "other"} {
			_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: name}},
				IsDefaultStream: name != "other"})
			wantNoErr(t, "Subscribe "+name, err)
		}
		lobby, archived, other := channelIDOf(t, f, "lobby"), channelIDOf(t, f, "archived"), channelIDOf(t, f, "other")
		wantNoErr(t, "ArchiveChannel", f.svc.ArchiveChannel(ctx, owner, archived))
		post := func(channel int64) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, owner, channel, "t", "news")
			wantNoErr(t, "PostChannelMessage", err)
			return id
		}
		post(lobby) // older than twelve weeks by the creation
		f.clock.Advance(13 * 7 * 24 * time.Hour)
		var recent []int64
		for i := range 24 {
			recent = append(recent, post(lobby))
			if i == 0 {
				post(other)
			}
		}
		_, err := f.svc.UpdateRealm(ctx, owner, chat.RealmUpdate{Channels: chat.RealmChannels{SignupAnnouncementsStreamID: &other}})
		wantNoErr(t, "UpdateRealm(signup announcements)", err)
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{EventTypes: []string{"subscription"}})
		wantNoErr(t, "Register", err)
		// A guest sees no public channel it is not in.
		guestQueue, err := f.svc.Register(ctx, chat.AsUser(f.guest.ID), chat.RegisterRequest{EventTypes: []string{"subscription"}})
		wantNoErr(t, "Register(guest)", err)

		id, err := f.svc.CreateUser(ctx, owner, "newcomer@example.com", "newcomer-password", "New Comer")
		wantNoErr(t, "CreateUser", err)
		subs, err := f.svc.Subscriptions(ctx, chat.AsUser(id), false)
		wantNoErr(t, "Subscriptions", err)
		var names []string
		for _, s := range subs {
			names = append(names, s.Name)
		}
		diff(t, "the newcomer's channels", names, []string{"lobby"})
		diff(t, "the member's events", queueEvents(t, f, f.member.ID, st["queue_id"].(string)), []map[string]any{
			{"id": float64(0), "type": "subscription", "op": "peer_add", "stream_ids": jsonNumbers(lobby), "user_ids": jsonNumbers(id)},
		})
		if es := queueEvents(t, f, f.guest.ID, guestQueue["queue_id"].(string)); len(es) != 0 {
			t.Errorf("the guest's events: %v", es)
		}
		unread := unreadOf(t, f, id)
		diff(t, "the newcomer's unread", unread["streams"], []any{
			map[string]any{"stream_id": float64(lobby), "topic": "t", "unread_message_ids": jsonNumbers(recent[4:]...)},
		})
		rows, err := f.svc.GetMessages(ctx, chat.AsUser(id), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr(int64(100))})
		wantNoErr(t, "FetchMessages", err)
		var got []int64
		for _, m := range rows.Messages {
			got = append(got, m.ID)
			if read := slices.Contains(*m.Flags, "read"); read != slices.Contains(recent[:4], m.ID) {
				t.Errorf("message %d: read %v", m.ID, read)
			}
		}
		diff(t, "the newcomer's messages", got, recent)

		// The notification bot's announcement in "other", as its
		// subscriber, the owner, reads it (raw Markdown).
		narrow := []chat.NarrowElement{{Operator: "channel", Operand: "other"}}
		last, err := f.svc.GetMessages(ctx, owner, chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr(int64(1)), Narrow: narrow})
		wantNoErr(t, "GetMessages(other)", err)
		if m := last.Messages[0]; m.SenderID != chat.NotificationBotID || m.Subject != "signups" ||
			m.Content != "@_**New Comer|"+itoa(id)+"** joined this organization." {
			t.Errorf("signup announcement: %d %q %q", m.SenderID, m.Subject, m.Content)
		}

		bot, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "helper-bot@localhost", FullName: "Helper", BotType: chat.BotGeneric, BotOwnerID: f.owner.ID})
		wantNoErr(t, "ProvisionUser(bot)", err)
		subs, err = f.svc.Subscriptions(ctx, chat.AsUser(bot.UserID), false)
		wantNoErr(t, "Subscriptions(bot)", err)
		diff(t, "the bot's channels", len(subs), 0)
	})
}
