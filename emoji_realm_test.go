package chat_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// RealmEmoji lists one organization's custom emoji, with the author where
// known, on every backend; deactivated accounts may not ask.
func TestRealmEmoji(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		if err != nil {
			t.Fatal(err)
		}
		other, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Other", Host: "other.example.com", OwnerEmail: "boss@other.example.com", OwnerName: "Other Boss"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.RealmEmoji(ctx, chat.AsUser(org.UserID))
		if err != nil || len(got) != 0 || got == nil {
			t.Fatalf("no emoji yet: %v, %v", got, err)
		}
		a, err := svc.ProvisionRealmEmoji(ctx, org.RealmID, "party", org.UserID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := svc.ProvisionRealmEmoji(ctx, org.RealmID, "anon", 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ProvisionRealmEmoji(ctx, other.RealmID, "elsewhere", 0); err != nil {
			t.Fatal(err)
		}
		member, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "m@example.com", FullName: "Max Member"})
		if err != nil {
			t.Fatal(err)
		}
		ida, idb := strconv.FormatInt(a, 10), strconv.FormatInt(b, 10)
		want := map[string]chat.RealmEmojiView{
			ida: {ID: ida, Name: "party", AuthorID: &org.UserID},
			idb: {ID: idb, Name: "anon"},
		}
		got, err = svc.RealmEmoji(ctx, chat.AsUser(member.UserID))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("emoji (-want +got):\n%s", diff)
		}
		if err := svc.DeactivateUser(ctx, chat.AsUser(org.UserID), member.UserID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.RealmEmoji(ctx, chat.AsUser(member.UserID)); err == nil {
			t.Error("a deactivated account listed the emoji")
		}
	})
}
