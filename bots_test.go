package chat_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestBotAdministration creates, lists, renames, hands over, rekeys and
// deactivates a bot on every backend, with who may and the refusals.
func TestBotAdministration(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		st, err := f.svc.Register(ctx, chat.AsUser(f.admin.ID), chat.RegisterRequest{EventTypes: []string{"realm_bot"}})
		wantNoErr(t, "Register", err)

		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.guest.ID), chat.NewBot{FullName: "Helper", ShortName: "helper"})
		wantErr(t, "a guest", err, chat.ErrNotAllowedForGuests)
		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Helper", ShortName: "no spaces"})
		wantErr(t, "a bad short name", err, chat.ErrBadBotUsername)
		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Helper", ShortName: "h", BotType: chat.BotOutgoingWebhook})
		wantErr(t, "an outgoing webhook on a server without them", err, chat.ErrOutgoingWebhooksDisabled)
		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Helper", ShortName: "h", BotType: chat.BotEmbedded})
		wantErr(t, "an embedded bot", err, chat.ErrEmbeddedBots)
		bot, err := f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Helper", ShortName: "Helper"})
		wantNoErr(t, "CreateBot", err)
		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Other", ShortName: "helper"})
		wantErr(t, "a taken short name", err, chat.ErrBotUsernameUsed)
		_, err = f.svc.CreateBot(ctx, chat.AsUser(f.admin.ID), chat.NewBot{FullName: "helper", ShortName: "other"})
		wantErr(t, "a taken bot name", err, chat.ErrBotNameUsed)

		// The bot works with its key, and its owner lists it.
		id, err := f.svc.Authenticate(ctx, "localhost:9991", "helper-bot@localhost", bot.APIKey)
		if err != nil || id != bot.UserID {
			t.Fatalf("Authenticate(bot) = %d, %v", id, err)
		}
		bots, err := f.svc.Bots(ctx, chat.AsUser(f.member.ID))
		wantNoErr(t, "Bots", err)
		// The fixture's bot, created first, and the new one.
		if len(bots) != 2 || bots[0].UserID != f.bot.ID {
			t.Fatalf("bots = %+v", bots)
		}
		diff(t, "the new bot", bots[1], chat.BotView{UserID: bot.UserID, Username: "helper-bot@localhost", FullName: "Helper",
			APIKey: bot.APIKey, AvatarURL: bot.AvatarURL, BotType: chat.BotGeneric})
		bots, err = f.svc.Bots(ctx, chat.AsUser(f.admin.ID))
		wantNoErr(t, "Bots of another", err)
		diff(t, "the admin's bots", bots, []chat.BotView{})

		// Changes: the owner and administrators, nobody else.
		_, err = f.svc.UpdateBot(ctx, chat.AsUser(f.moderator.ID), bot.UserID, chat.BotUpdate{FullName: ptr("Mine")})
		wantErr(t, "another member renames", err, chat.ErrInsufficientPermission)
		_, err = f.svc.UpdateBot(ctx, chat.AsUser(f.member.ID), f.member.ID, chat.BotUpdate{FullName: ptr("Mine")})
		wantErr(t, "a human as a bot", err, chat.ErrNoSuchBot)
		_, err = f.svc.UpdateBot(ctx, chat.AsUser(f.member.ID), bot.UserID, chat.BotUpdate{OwnerID: &f.bot.ID})
		wantCodeMsg(t, "a bot as owner", err, chat.CodeBadRequest, "Failed to change owner, no such user")
		v, err := f.svc.UpdateBot(ctx, chat.AsUser(f.member.ID), bot.UserID, chat.BotUpdate{FullName: ptr("Assistant"), OwnerID: &f.moderator.ID})
		wantNoErr(t, "UpdateBot", err)
		if v.FullName != "Assistant" {
			t.Errorf("renamed bot %+v", v)
		}
		_, err = f.svc.RegenerateBotAPIKey(ctx, chat.AsUser(f.member.ID), bot.UserID)
		wantErr(t, "the former owner rekeys", err, chat.ErrInsufficientPermission)
		key, err := f.svc.RegenerateBotAPIKey(ctx, chat.AsUser(f.moderator.ID), bot.UserID)
		wantNoErr(t, "RegenerateBotAPIKey", err)
		if _, err := f.svc.Authenticate(ctx, "localhost:9991", "helper-bot@localhost", bot.APIKey); err == nil {
			t.Error("the old key still works")
		}
		if _, err := f.svc.Authenticate(ctx, "localhost:9991", "helper-bot@localhost", key); err != nil {
			t.Errorf("the new key: %v", err)
		}
		wantNoErr(t, "DeactivateBot", f.svc.DeactivateBot(ctx, chat.AsUser(f.admin.ID), bot.UserID))
		wantErr(t, "deactivate again", f.svc.DeactivateBot(ctx, chat.AsUser(f.admin.ID), bot.UserID), chat.ErrUserDeactivated)
		if _, err := f.svc.Authenticate(ctx, "localhost:9991", "helper-bot@localhost", key); err == nil {
			t.Error("a deactivated bot authenticates")
		}

		got, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{FetchEventTypes: []string{"realm_bot"}})
		wantNoErr(t, "Register", err)
		var names []any
		for _, b := range got["realm_bots"].([]map[string]any) {
			names = append(names, b["full_name"])
		}
		diff(t, "the member's realm_bots", names, []any{"Helper Bot"})
		var ops []string
		for _, e := range queueEvents(t, f, f.admin.ID, st["queue_id"].(string)) {
			ops = append(ops, e["op"].(string))
		}
		diff(t, "realm_bot events of an administrator", ops, []string{"add", "update", "update", "remove"})
	})
}

// TestOutgoingWebhookBot: a mention in a channel and a direct message are
// POSTed to the bot's URL with the reference's payload, and the answer's
// content comes back as the bot's reply in the same place; a bot's own
// messages trigger nothing; on every backend.
func TestOutgoingWebhookBot(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		type hit struct {
			Token   string         `json:"token"`
			Trigger string         `json:"trigger"`
			Data    string         `json:"data"`
			Message map[string]any `json:"message"`
		}
		hits := make(chan hit, 10)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var h hit
			if err := json.NewDecoder(r.Body).Decode(&h); err != nil {
				t.Errorf("payload: %v", err)
			}
			hits <- h
			if strings.Contains(h.Data, "quiet") {
				io.WriteString(w, `{"response_not_required": true}`)
				return
			}
			json.NewEncoder(w).Encode(map[string]string{"content": "echo: " + h.Data})
		}))
		defer hook.Close()
		f := newFixtureWith(t, newStore, chat.Config{OutgoingWebhookClient: hook.Client()})
		ctx := t.Context()
		_, err := f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Echo", ShortName: "echo",
			BotType: chat.BotOutgoingWebhook, PayloadURL: "ftp://example.com"})
		wantCodeMsg(t, "a bad URL", err, chat.CodeBadRequest, "payload_url is not a URL")
		bot, err := f.svc.CreateBot(ctx, chat.AsUser(f.member.ID), chat.NewBot{FullName: "Echo", ShortName: "echo",
			BotType: chat.BotOutgoingWebhook, PayloadURL: hook.URL})
		wantNoErr(t, "CreateBot", err)
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "ops"}},
			Principals: &chat.Principals{IDs: []int64{f.member.ID, bot.UserID}}})
		wantNoErr(t, "Subscribe", err)
		ops := channelIDOf(t, f, "ops")
		wait := func(what string) hit {
			t.Helper()
			select {
			case h := <-hits:
				return h
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: no request reached the bot", what)
			}
			return hit{}
		}
		newest := func(narrow string) chat.MessageView {
			t.Helper()
			elems, err := chat.ParseNarrow("narrow", []byte(narrow))
			wantNoErr(t, "ParseNarrow", err)
			for range 100 {
				res, err := f.svc.GetMessages(ctx, chat.AsUser(f.member.ID), chat.GetMessagesRequest{Anchor: ptr("newest"),
					NumBefore: ptr[int64](1), Narrow: elems})
				wantNoErr(t, "GetMessages", err)
				if len(res.Messages) == 1 && res.Messages[0].SenderID == bot.UserID {
					return res.Messages[0]
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Fatalf("no reply of the bot in %s", narrow)
			return chat.MessageView{}
		}

		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), ops, "deploys", "no mention")
		wantNoErr(t, "a message without a mention", err)
		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), ops, "deploys", "@**Echo** status?")
		wantNoErr(t, "a mention", err)
		h := wait("the mention")
		if h.Trigger != "mention" || h.Data != "@**Echo** status?" || h.Token == "" ||
			h.Message["id"] != float64(id) || h.Message["display_recipient"] != "ops" || h.Message["topic"] != "deploys" {
			t.Errorf("mention payload %+v", h)
		}
		// The token the bot's server gets is the one its owner is shown
		// (the store keeps it sealed, as API keys).
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{FetchEventTypes: []string{"realm_bot"}})
		wantNoErr(t, "Register", err)
		var shown any
		for _, b := range st["realm_bots"].([]map[string]any) {
			if b["user_id"] == bot.UserID {
				shown = b["services"].([]any)[0].(map[string]any)["token"]
			}
		}
		if len(h.Token) != 32 || shown != h.Token {
			t.Errorf("the bot's server got the token %q, its owner is shown %v", h.Token, shown)
		}
		if reply := newest(`[["channel","ops"],["topic","deploys"]]`); reply.Content != "echo: @**Echo** status?" {
			t.Errorf("reply %q", reply.Content)
		}
		_, err = f.svc.SendMessage(ctx, chat.AsUser(f.member.ID), chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{bot.UserID}}, Content: "hello"})
		wantNoErr(t, "a direct message", err)
		if h := wait("the direct message"); h.Trigger != "direct_message" {
			t.Errorf("direct payload %+v", h)
		}
		if reply := newest(`[["dm",[` + itoa(bot.UserID) + `]]]`); reply.Content != "echo: hello" {
			t.Errorf("direct reply %q", reply.Content)
		}
		// The bot's replies triggered nothing, and no other message did.
		select {
		case h := <-hits:
			t.Errorf("an unexpected request: %+v", h)
		case <-time.After(100 * time.Millisecond):
		}
	})
}
