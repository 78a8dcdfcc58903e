package chat_test

import (
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestBotStorage checks the bot storage through the Go API on every
// backend: writes and replacements, reads of every key or of named ones,
// removals, the missing-key error, the size limit (in code points, all or
// nothing), and that each user's storage is their own.
func TestBotStorage(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{BotStorageLimit: 100})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Bots", Host: "bots.example", OwnerEmail: "o@bots.example", OwnerName: "Owner"})
		wantNoErr(t, "CreateOrg", err)
		bot, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "b-bot@bots.example", FullName: "Bot",
			BotType: chat.BotGeneric, BotOwnerID: org.UserID})
		wantNoErr(t, "ProvisionUser", err)
		as, owner := chat.AsUser(bot.UserID), chat.AsUser(org.UserID)

		wantNoErr(t, "SetBotStorage", svc.SetBotStorage(ctx, as, map[string]string{"count": "1", "wörd": "äpfel"}))
		wantNoErr(t, "SetBotStorage again", svc.SetBotStorage(ctx, as, map[string]string{"count": "2"}))
		got, err := svc.BotStorage(ctx, as, nil)
		wantNoErr(t, "BotStorage", err)
		diff(t, "all keys", got, map[string]string{"count": "2", "wörd": "äpfel"})
		got, err = svc.BotStorage(ctx, as, []string{"wörd"})
		wantNoErr(t, "BotStorage(keys)", err)
		diff(t, "named key", got, map[string]string{"wörd": "äpfel"})
		_, err = svc.BotStorage(ctx, as, []string{"count", "nope"})
		wantErr(t, "missing key", err, chat.ErrBotStorageKeyMissing)
		// Each user's storage is their own.
		got, err = svc.BotStorage(ctx, owner, nil)
		wantNoErr(t, "owner's", err)
		diff(t, "owner's storage", got, map[string]string{})

		// count 2 (6) + wörd äpfel (9) = 15 of 100 code points: 86 more
		// is one too many, and nothing of the request is stored.
		err = svc.SetBotStorage(ctx, as, map[string]string{"ok": "x", "big": strings.Repeat("ä", 80)})
		wantCodeMsg(t, "over the limit", err, chat.CodeBadRequest,
			"Request exceeds storage limit by 1 characters. The limit is 100 characters.")
		// Replacing a value counts only the difference.
		wantNoErr(t, "up to the limit", svc.SetBotStorage(ctx, as, map[string]string{"wörd": strings.Repeat("ü", 89)}))
		got, err = svc.BotStorage(ctx, as, []string{"ok"})
		wantErr(t, "nothing of the refused request", err, chat.ErrBotStorageKeyMissing)

		wantErr(t, "removing a missing key", svc.DeleteBotStorage(ctx, as, []string{"count", "nope"}), chat.ErrBotStorageKeyMissing)
		got, err = svc.BotStorage(ctx, as, []string{"count"})
		wantNoErr(t, "kept after a refused removal", err)
		wantNoErr(t, "DeleteBotStorage", svc.DeleteBotStorage(ctx, as, []string{"count"}))
		got, err = svc.BotStorage(ctx, as, nil)
		wantNoErr(t, "BotStorage after removal", err)
		if len(got) != 1 {
			t.Errorf("after removing count: %v", got)
		}
		wantNoErr(t, "DeleteBotStorage(all)", svc.DeleteBotStorage(ctx, as, nil))
		got, err = svc.BotStorage(ctx, as, nil)
		wantNoErr(t, "BotStorage after removing all", err)
		diff(t, "after removing all", got, map[string]string{})
		wantErr(t, "nobody", svc.SetBotStorage(ctx, chat.Actor{}, map[string]string{"k": "v"}), chat.ErrNotLoggedIn)
	})
}
