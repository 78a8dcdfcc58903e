package chat_test

import (
	"testing"

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
		wantErr(t, "an outgoing webhook", err, chat.ErrOutgoingBots)
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

		var ops []string
		for _, e := range queueEvents(t, f, f.admin.ID, st["queue_id"].(string)) {
			ops = append(ops, e["op"].(string))
		}
		diff(t, "realm_bot events of an administrator", ops, []string{"add", "update", "update", "remove"})
	})
}
