package chat_test

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestCustomEmojiUpload adds custom emoji with images on every backend:
// the checks of name, size and format, the served image, replacing a
// deactivated emoji, who may deactivate, and the events.
func TestCustomEmojiUpload(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		var img bytes.Buffer
		if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
			t.Fatal(err)
		}
		member := chat.AsUser(f.member.ID)
		st, err := f.svc.Register(ctx, member, chat.RegisterRequest{EventTypes: []string{"realm_emoji"}})
		wantNoErr(t, "Register", err)

		wantErr(t, "a guest", f.svc.AddRealmEmoji(ctx, chat.AsUser(f.guest.ID), "party", bytes.NewReader(img.Bytes())), chat.ErrNotAllowedForGuests)
		wantCodeMsg(t, "a bad name", f.svc.AddRealmEmoji(ctx, member, "Party!", bytes.NewReader(img.Bytes())),
			chat.CodeBadRequest, "Invalid custom emoji name")
		wantErr(t, "not an image", f.svc.AddRealmEmoji(ctx, member, "party", strings.NewReader("hello")), chat.ErrEmojiImageFormat)
		wantErr(t, "too large", f.svc.AddRealmEmoji(ctx, member, "party",
			io.MultiReader(bytes.NewReader(img.Bytes()), bytes.NewReader(make([]byte, chat.MaxEmojiFileBytes)))), chat.ErrEmojiFileTooLarge)
		wantNoErr(t, "add", f.svc.AddRealmEmoji(ctx, member, "party", bytes.NewReader(img.Bytes())))
		wantCodeMsg(t, "add again", f.svc.AddRealmEmoji(ctx, member, "party", bytes.NewReader(img.Bytes())),
			chat.CodeBadRequest, "A custom emoji with this name already exists.")

		emoji, err := f.svc.RealmEmoji(ctx, member)
		wantNoErr(t, "RealmEmoji", err)
		var party chat.RealmEmojiView
		for _, v := range emoji {
			if v.Name == "party" {
				party = v
			}
		}
		prefix := "/user_avatars/" + itoa(f.realm) + "/emoji/images/"
		if !strings.HasPrefix(party.SourceURL, prefix) || !strings.HasSuffix(party.SourceURL, ".png") || *party.AuthorID != f.member.ID {
			t.Fatalf("party = %+v", party)
		}
		file := strings.TrimPrefix(party.SourceURL, prefix)
		blob, err := f.svc.OpenRealmEmojiImage(ctx, f.realm, file)
		wantNoErr(t, "OpenRealmEmojiImage", err)
		got, _ := io.ReadAll(blob)
		blob.Close()
		if !bytes.Equal(got, img.Bytes()) {
			t.Error("the served image differs from the uploaded one")
		}
		_, err = f.svc.OpenRealmEmojiImage(ctx, f.realm2, file)
		wantErr(t, "another organization's image", err, chat.ErrFileNotFound)

		// A reaction with it works; then the author and administrators may
		// deactivate it, and it may be added again.
		wantErr(t, "another member deactivates", f.svc.DeactivateRealmEmoji(ctx, chat.AsUser(f.moderator.ID), "party"), chat.ErrEmojiDeleteAllowed)
		wantNoErr(t, "the author deactivates", f.svc.DeactivateRealmEmoji(ctx, member, "party"))
		wantCodeMsg(t, "deactivate again", f.svc.DeactivateRealmEmoji(ctx, member, "party"), chat.CodeBadRequest, "Emoji 'party' does not exist")
		wantNoErr(t, "an administrator adds it again", f.svc.AddRealmEmoji(ctx, chat.AsUser(f.admin.ID), "party", bytes.NewReader(img.Bytes())))
		emoji, err = f.svc.RealmEmoji(ctx, member)
		wantNoErr(t, "RealmEmoji", err)
		if v := emoji[party.ID]; v.Deactivated || *v.AuthorID != f.admin.ID || v.SourceURL == party.SourceURL {
			t.Errorf("re-added party = %+v", v)
		}
		var ops int
		for _, e := range queueEvents(t, f, f.member.ID, st["queue_id"].(string)) {
			if e["type"] == "realm_emoji" {
				ops++
			}
		}
		if ops != 3 {
			t.Errorf("%d realm_emoji events, want 3", ops)
		}
	})
}
