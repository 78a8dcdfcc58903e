package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestRegisterClientState checks the register blocks the reference's
// clients read at start, on every backend: user_settings (modelled values
// and the reference's defaults, also at the top level without the
// user_settings_object capability), realm_emoji and the realm keys of
// retention and edit history.
func TestRegisterClientState(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member := chat.AsUser(f.member.ID)
		emojiID, err := f.svc.ProvisionRealmEmoji(ctx, f.realm, "party", f.owner.ID)
		wantNoErr(t, "ProvisionRealmEmoji", err)
		st, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"user_settings", "realm_emoji", "realm"},
			ClientCapabilities: chat.ClientCapabilities{UserSettingsObject: true}})
		wantNoErr(t, "Register", err)
		settings, _ := st["user_settings"].(map[string]any)
		for k, want := range map[string]any{"timezone": "Europe/Berlin", "email_address_visibility": chat.EmailVisibleEveryone,
			"presence_enabled": true, "enter_sends": false, "emojiset": "google"} {
			if settings[k] != want {
				t.Errorf("user_settings[%s] = %#v, want %#v", k, settings[k], want)
			}
		}
		if _, ok := st["enter_sends"]; ok {
			t.Error("settings at the top level despite user_settings_object")
		}
		diff(t, "realm_emoji", st["realm_emoji"], map[string]chat.RealmEmojiView{itoa(emojiID): {ID: itoa(emojiID),
			Name: "party", AuthorID: &f.owner.ID}})
		for k, want := range map[string]any{"realm_message_retention_days": -1, "realm_allow_edit_history": true,
			"realm_message_edit_history_visibility_policy": chat.EditHistoryAll} {
			if st[k] != want {
				t.Errorf("%s = %#v, want %#v", k, st[k], want)
			}
		}
		legacy, err := f.svc.Register(ctx, member, chat.RegisterRequest{FetchEventTypes: []string{"user_settings"}})
		wantNoErr(t, "Register(legacy)", err)
		if legacy["enter_sends"] != false || legacy["timezone"] != "Europe/Berlin" {
			t.Errorf("legacy top-level settings: enter_sends %#v, timezone %#v", legacy["enter_sends"], legacy["timezone"])
		}
	})
}
