package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestAlertWordsAndMutedUsers: alert words are kept per user and flag the
// messages that hold them as whole words, on delivery and on edit; a
// muted sender's messages arrive read; each change is an event and is in
// register; on every backend.
func TestAlertWordsAndMutedUsers(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		me := chat.AsUser(f.moderator.ID)
		st, err := f.svc.Register(ctx, me, chat.RegisterRequest{EventTypes: []string{"alert_words", "muted_users"},
			FetchEventTypes: []string{"alert_words", "muted_users"}})
		wantNoErr(t, "Register", err)
		diff(t, "initial alert words", st["alert_words"], []string{})
		diff(t, "initial muted users", st["muted_users"], []chat.MutedUserView{})

		words, err := f.svc.AddAlertWords(ctx, me, []string{" Deploy ", "café", "", "deploy"})
		wantNoErr(t, "AddAlertWords", err)
		diff(t, "added", words, []string{"Deploy", "café"})
		_, err = f.svc.AddAlertWords(ctx, me, []string{string(make([]byte, 101))})
		wantCodeMsg(t, "a long word", err, chat.CodeBadRequest, "alert_words[0] is too long (limit: 100 characters)")

		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "ops"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.member.ID, f.moderator.ID}}})
		wantNoErr(t, "Subscribe", err)
		ops := channelIDOf(t, f, "ops")
		flagsOf := func(id int64) []string {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, me, id, chat.MessageFormat{})
			wantNoErr(t, "GetMessage", err)
			if v.Flags == nil {
				return nil
			}
			return *v.Flags
		}
		send := func(as int64, content string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(as), ops, "t", content)
			wantNoErr(t, "send", err)
			return id
		}
		hit, miss, accent := send(f.admin.ID, "Time to DEPLOY!"), send(f.admin.ID, "redeployment"), send(f.admin.ID, "un café?")
		diff(t, "a whole word, any case", flagsOf(hit), []string{"has_alert_word"})
		diff(t, "inside a word", flagsOf(miss), []string{})
		diff(t, "non-ASCII", flagsOf(accent), []string{"has_alert_word"})
		wantNoErr(t, "edit away", updateMessage(f.svc, ctx, chat.AsUser(f.admin.ID), hit, chat.MessageEdit{Content: ptr("done")}))
		diff(t, "after an edit", flagsOf(hit), []string{})
		wantNoErr(t, "edit in", updateMessage(f.svc, ctx, chat.AsUser(f.admin.ID), miss, chat.MessageEdit{Content: ptr("Deploy, then CAFÉ")}))
		diff(t, "after an edit that adds the word", flagsOf(miss), []string{"has_alert_word"})
		words, err = f.svc.RemoveAlertWords(ctx, me, []string{"DEPLOY", "absent"})
		wantNoErr(t, "RemoveAlertWords", err)
		diff(t, "removed", words, []string{"café"})

		// Muted: the member's messages arrive read; the admin's do not.
		wantErr(t, "mute self", f.svc.MuteUser(ctx, me, f.moderator.ID), chat.ErrCannotMuteSelf)
		wantErr(t, "mute nobody", f.svc.MuteUser(ctx, me, 99999), chat.ErrNoSuchUser)
		wantErr(t, "mute another organization's", f.svc.MuteUser(ctx, me, f.owner2.ID), chat.ErrNoSuchUser)
		wantNoErr(t, "mute", f.svc.MuteUser(ctx, me, f.member.ID))
		wantErr(t, "mute twice", f.svc.MuteUser(ctx, me, f.member.ID), chat.ErrAlreadyMuted)
		diff(t, "a muted sender", flagsOf(send(f.member.ID, "hello")), []string{"read"})
		diff(t, "another sender", flagsOf(send(f.admin.ID, "hello")), []string{})
		muted, err := f.svc.MutedUsers(ctx, me)
		wantNoErr(t, "MutedUsers", err)
		diff(t, "muted", muted, []chat.MutedUserView{{ID: f.member.ID, Timestamp: f.clock.Now().Unix()}})
		wantNoErr(t, "unmute", f.svc.UnmuteUser(ctx, me, f.member.ID))
		wantErr(t, "unmute again", f.svc.UnmuteUser(ctx, me, f.member.ID), chat.ErrNotMuted)
		diff(t, "after unmuting", flagsOf(send(f.member.ID, "hello")), []string{})

		var kinds []string
		for _, e := range queueEvents(t, f, f.moderator.ID, st["queue_id"].(string)) {
			kinds = append(kinds, e["type"].(string))
		}
		diff(t, "events", kinds, []string{"alert_words", "alert_words", "muted_users", "muted_users"})
	})
}

// TestPersonalSettings: display and notification settings are kept by
// name on every backend, each change an event, unchanged values none.
func TestPersonalSettings(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		me := chat.AsUser(f.member.ID)
		st, err := f.svc.Register(ctx, me, chat.RegisterRequest{EventTypes: []string{"user_settings"}})
		wantNoErr(t, "Register", err)
		set := func(kv ...string) error {
			req := chat.SettingsUpdate{Values: map[string]json.RawMessage{}}
			for i := 0; i < len(kv); i += 2 {
				req.Values[kv[i]] = json.RawMessage(kv[i+1])
			}
			return f.svc.UpdateSettings(ctx, me, req)
		}
		wantNoErr(t, "set", set("enter_sends", "true", "web_home_view", `"recent_topics"`, "dense_mode", "true"))
		wantCodeMsg(t, "a read-only key", set("emojiset_choices", "[]"), chat.CodeBadRequest, "Invalid emojiset_choices")
		wantCodeMsg(t, "an unknown language", set("default_language", `"xx"`), chat.CodeBadRequest, "Invalid default_language")
		wantErr(t, "a bot", f.svc.UpdateSettings(ctx, chat.AsUser(f.bot.ID), chat.SettingsUpdate{}), chat.ErrBotsNotAllowed)
		got, err := f.svc.Register(ctx, me, chat.RegisterRequest{FetchEventTypes: []string{"user_settings"}})
		wantNoErr(t, "Register", err)
		if s := got["user_settings"].(map[string]any); s["enter_sends"] != true || s["web_home_view"] != "recent_topics" || s["dense_mode"] != true {
			t.Errorf("user_settings = %v", s)
		}
		var props []string
		for _, e := range queueEvents(t, f, f.member.ID, st["queue_id"].(string)) {
			props = append(props, e["property"].(string))
		}
		// dense_mode was already on: no event.
		diff(t, "events", props, []string{"enter_sends", "web_home_view"})
	})
}
