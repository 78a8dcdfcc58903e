package chat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestTranslateEmoticons: a sender with translate_emoticons on has the
// emoticons of their messages rendered as emoji, as the reference does:
// when sending (short and long messages, which render before their write),
// previewing and editing; others' stay as typed.
func TestTranslateEmoticons(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member, owner := chat.AsUser(f.member.ID), chat.AsUser(f.owner.ID)
		wantNoErr(t, "UpdateSettings", f.svc.UpdateSettings(ctx, member, chat.SettingsUpdate{
			Values: map[string]json.RawMessage{"translate_emoticons": json.RawMessage("true")}}))
		_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "smiles"}},
			Principals: &chat.Principals{IDs: []int64{f.owner.ID, f.member.ID}}})
		wantNoErr(t, "Subscribe", err)
		channel := channelIDOf(t, f, "smiles")
		smile := `<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span>`
		rendered := func(id int64) string {
			t.Helper()
			v, _, err := f.svc.GetMessage(ctx, owner, id, chat.MessageFormat{ApplyMarkdown: true})
			wantNoErr(t, "GetMessage", err)
			return v.Content
		}
		long := strings.Repeat("long text ", 120) + ":)"
		for _, c := range []struct {
			name    string
			as      chat.Actor
			content string
			want    string
		}{
			{"the member's", member, "hi :) see https://example.com/x", "<p>hi " + smile + ` see <a href="https://example.com/x">https://example.com/x</a></p>`},
			{"the member's long one", member, long, "<p>" + strings.Repeat("long text ", 120) + smile + "</p>"},
			{"the owner's", owner, "hi :)", "<p>hi :)</p>"},
		} {
			id, err := f.svc.PostChannelMessage(ctx, c.as, channel, "t", c.content)
			wantNoErr(t, "PostChannelMessage", err)
			if got := rendered(id); got != c.want {
				t.Errorf("%s message:\n got %q\nwant %q", c.name, got, c.want)
			}
		}
		got, err := f.svc.RenderMessage(ctx, member, ":(")
		wantNoErr(t, "RenderMessage", err)
		if want := `<p><span aria-label="frown" class="emoji emoji-1f641" role="img" title="frown">:frown:</span></p>`; got != want {
			t.Errorf("preview: got %q, want %q", got, want)
		}
		id, err := f.svc.PostChannelMessage(ctx, member, channel, "t", "first")
		wantNoErr(t, "PostChannelMessage", err)
		edited := ";) " + strings.Repeat("edited ", 200)
		_, err = f.svc.UpdateMessage(ctx, member, id, chat.MessageEdit{Content: &edited})
		wantNoErr(t, "UpdateMessage", err)
		if got := rendered(id); !strings.HasPrefix(got, `<p><span aria-label="wink" class="emoji emoji-1f609"`) {
			t.Errorf("edited: %q, want a wink", got[:60])
		}
	})
}
