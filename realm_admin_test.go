package chat_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

func TestRealmAdministration(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()

		// Settings persist, and only changes are reported.
		changes, err := f.svc.UpdateRealm(ctx, chat.AsUser(f.owner.ID), chat.RealmUpdate{
			Name: ptr("Test Org"), MessageContentEditLimitSeconds: &chat.Unlimited,
			WaitingPeriodThreshold: ptr(int64(4)), TopicsPolicy: ptr(chat.TopicsDisableEmpty),
		})
		wantNoErr(t, "UpdateRealm", err)
		diff(t, "changes", changes, []chat.RealmSettingChange{
			{Name: "message_content_edit_limit_seconds", Value: chat.TimeLimit(0)},
			{Name: "topics_policy", Value: chat.TopicsDisableEmpty},
			{Name: "waiting_period_threshold", Value: int64(4)},
		})
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.admin.ID), chat.RealmUpdate{InviteRequired: ptr(false)})
		wantErr(t, "admin sets invite_required", err, chat.ErrMustBeOwner)
		orgs, err := f.svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		want := chat.DefaultRealmSettings()
		want.MessageContentEditLimitSeconds = 0
		want.WaitingPeriodThreshold = 4
		want.TopicsPolicy = chat.TopicsDisableEmpty
		diff(t, "stored settings", orgs[0].RealmSettings, want)
		diff(t, "other org untouched", orgs[1].RealmSettings, chat.DefaultRealmSettings())

		// Allowed domains and the address rules of new users.
		d, err := f.svc.AddRealmDomain(ctx, chat.AsUser(f.owner.ID), "Example.org", true)
		wantNoErr(t, "AddRealmDomain", err)
		_, err = f.svc.AddRealmDomain(ctx, chat.AsUser(f.owner.ID), "example.org", false)
		wantCodeMsg(t, "duplicate", err, chat.CodeBadRequest, "The domain example.org is already a part of your organization.")
		_, err = f.svc.AddRealmDomain(ctx, chat.AsUser(f.owner2.ID), "example.org", false)
		wantNoErr(t, "same domain in the other organization", err)
		_, err = f.svc.UpdateRealm(ctx, chat.AsUser(f.owner.ID), chat.RealmUpdate{EmailsRestrictedToDomains: ptr(true)})
		wantNoErr(t, "restrict", err)
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "a@example.com", FullName: "A Person"})
		wantCodeMsg(t, "outside the domains", err, chat.CodeBadRequest, "Email 'a@example.com' not allowed in this organization")
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "a@mail.example.org", FullName: "A Person"})
		wantNoErr(t, "subdomain", err)
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "bot@bots.invalid.net", FullName: "Some Bot", BotType: chat.BotGeneric})
		wantNoErr(t, "bots are not restricted", err)
		_, err = f.svc.ProvisionUser(ctx, f.realm2, chat.NewUser{Email: "a@mailinator.com", FullName: "A Person"})
		wantErr(t, "disposable in the other organization", err, chat.ErrDisposableEmail)
		wantNoErr(t, "UpdateRealmDomain", f.svc.UpdateRealmDomain(ctx, chat.AsUser(f.owner.ID), "example.org", false))
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "b@mail.example.org", FullName: "B Person"})
		wantCodeMsg(t, "subdomains no longer allowed", err, chat.CodeBadRequest, "Email 'b@mail.example.org' not allowed in this organization")
		domains, err := f.svc.RealmDomains(ctx, chat.AsUser(f.guest.ID))
		wantNoErr(t, "RealmDomains", err)
		diff(t, "domains", domains, []chat.RealmDomain{{ID: d.ID, RealmID: f.realm, Domain: "example.org"}})
		wantNoErr(t, "DeleteRealmDomain", f.svc.DeleteRealmDomain(ctx, chat.AsUser(f.owner.ID), "example.org"))
		orgs, _ = f.svc.Orgs(ctx)
		if orgs[0].EmailsRestrictedToDomains {
			t.Error("deleting the last domain left the restriction on")
		}
		wantErr(t, "delete again", f.svc.DeleteRealmDomain(ctx, chat.AsUser(f.owner.ID), "example.org"), &chat.Error{Code: chat.CodeBadRequest, Msg: "No entry found for domain example.org."})

		// Linkifiers keep their order and are per organization.
		id1, err := f.svc.AddLinkifier(ctx, chat.AsUser(f.admin.ID), chat.LinkifierRequest{Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://x/{id}"})
		wantNoErr(t, "AddLinkifier", err)
		id2, err := f.svc.AddLinkifier(ctx, chat.AsUser(f.admin.ID), chat.LinkifierRequest{Pattern: "T(?P<id>[0-9]+)", URLTemplate: "https://t/{id}",
			ExampleInput: ptr("T1"), ReverseTemplate: ptr("T{id}"), AlternativeURLTemplates: []string{"https://u/{id}"}})
		wantNoErr(t, "AddLinkifier 2", err)
		_, err = f.svc.AddLinkifier(ctx, chat.AsUser(f.moderator.ID), chat.LinkifierRequest{Pattern: "x", URLTemplate: "https://x/"})
		wantErr(t, "moderator", err, chat.ErrMustBeAdmin)
		wantNoErr(t, "UpdateLinkifier", f.svc.UpdateLinkifier(ctx, chat.AsUser(f.admin.ID), id1, chat.LinkifierRequest{Pattern: "#(?P<n>[0-9]+)", URLTemplate: "https://y/{n}"}))
		wantErr(t, "update other org's", f.svc.UpdateLinkifier(ctx, chat.AsUser(f.owner2.ID), id1, chat.LinkifierRequest{Pattern: "a", URLTemplate: "https://a/"}), chat.ErrLinkifierNotFound)
		list, err := f.svc.Linkifiers(ctx, chat.AsUser(f.member.ID))
		wantNoErr(t, "Linkifiers", err)
		diff(t, "linkifiers", list, []chat.Linkifier{
			{ID: id1, Pattern: "#(?P<n>[0-9]+)", URLTemplate: "https://y/{n}", AlternativeURLTemplates: []string{}},
			{ID: id2, Pattern: "T(?P<id>[0-9]+)", URLTemplate: "https://t/{id}", ExampleInput: ptr("T1"), ReverseTemplate: ptr("T{id}"),
				AlternativeURLTemplates: []string{"https://u/{id}"}},
		})
		diff(t, "rendering", chat.Linkify("see #5 and T6", list), []chat.LinkMatch{
			{Start: 4, End: 6, URL: "https://y/5", LinkifierID: id1}, {Start: 11, End: 13, URL: "https://t/6", LinkifierID: id2}})
		wantNoErr(t, "DeleteLinkifier", f.svc.DeleteLinkifier(ctx, chat.AsUser(f.admin.ID), id1))
		list2, _ := f.svc.Linkifiers(ctx, chat.AsUser(f.owner2.ID))
		diff(t, "other org's linkifiers", list2, []chat.Linkifier{})
	})
}

// fixedReader is a deterministic randomness source.
type fixedReader byte

func (r fixedReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestVideoCalls(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx := t.Context()
		jitsi, err := chat.NewJitsiMeet("https://meet.example.org/")
		wantNoErr(t, "NewJitsiMeet", err)
		svc, _ := newService(t, newStore, chat.Config{VideoCalls: jitsi})
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "o@example.com", OwnerName: "Owner O"})
		wantNoErr(t, "CreateOrg", err)
		url, err := svc.CreateVideoCall(ctx, chat.AsUser(org.UserID))
		wantNoErr(t, "CreateVideoCall", err)
		if !regexp.MustCompile(`^https://meet\.example\.org/[a-z2-7]{26}$`).MatchString(url) {
			t.Errorf("url %q", url)
		}
		url2, _ := svc.CreateVideoCall(ctx, chat.AsUser(org.UserID))
		if url2 == url {
			t.Error("two calls got the same room")
		}
		has, err := svc.HasVideoCallToken(ctx, chat.AsUser(org.UserID))
		if err != nil || !has {
			t.Errorf("HasVideoCallToken = %v, %v", has, err)
		}
		_, err = svc.UpdateRealm(ctx, chat.AsUser(org.UserID), chat.RealmUpdate{VideoChatProvider: ptr(chat.VideoChatDisabled)})
		wantNoErr(t, "disable", err)
		_, err = svc.CreateVideoCall(ctx, chat.AsUser(org.UserID))
		wantErr(t, "disabled", err, chat.ErrVideoCallsDisabled)

		// The OAuth shape: a token per user.
		tokens := &chat.MemoryVideoCallTokens{}
		oauth := &chat.OAuthVideoCalls{ProviderID: chat.VideoChatZoom, DisplayName: "Zoom", Tokens: tokens,
			Meet: func(_ context.Context, token string) (string, error) {
				if token == "revoked" {
					return "", chat.ErrInvalidVideoCallToken
				}
				if token == "broken" {
					return "", errors.New("provider is down")
				}
				return "https://zoom.example/j/" + token, nil
			}}
		rec := &recorder{}
		svc2, _ := newService(t, newStore, chat.Config{VideoCalls: oauth, Rand: fixedReader(1), Events: rec})
		org2, err := svc2.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "o@example.com", OwnerName: "Owner O"})
		wantNoErr(t, "CreateOrg", err)
		_, err = svc2.UpdateRealm(ctx, chat.AsUser(org2.UserID), chat.RealmUpdate{VideoChatProvider: ptr(chat.VideoChatZoom)})
		wantNoErr(t, "choose zoom", err)
		has, _ = svc2.HasVideoCallToken(ctx, chat.AsUser(org2.UserID))
		if has {
			t.Error("has a token before OAuth")
		}
		_, err = svc2.CreateVideoCall(ctx, chat.AsUser(org2.UserID))
		wantCodeMsg(t, "no token", err, chat.CodeInvalidVideoCallProviderToken, "Invalid Zoom access token")
		wantNoErr(t, "SetToken", tokens.SetToken(ctx, org2.UserID, "abc"))
		url, err = svc2.CreateVideoCall(ctx, chat.AsUser(org2.UserID))
		if err != nil || url != "https://zoom.example/j/abc" {
			t.Errorf("CreateVideoCall = %q, %v", url, err)
		}
		_ = tokens.SetToken(ctx, org2.UserID, "broken")
		_, err = svc2.CreateVideoCall(ctx, chat.AsUser(org2.UserID))
		wantCodeMsg(t, "provider failure", err, chat.CodeBadRequest, "Failed to create Zoom call")
		_ = tokens.SetToken(ctx, org2.UserID, "revoked")
		_, err = svc2.CreateVideoCall(ctx, chat.AsUser(org2.UserID))
		wantCodeMsg(t, "revoked", err, chat.CodeInvalidVideoCallProviderToken, "Invalid Zoom access token")
		if has, _ := svc2.HasVideoCallToken(ctx, chat.AsUser(org2.UserID)); has {
			t.Error("a revoked token was kept")
		}
		// Each refusal told the user's clients that there is no token.
		var tokenEvents []any
		for _, ev := range rec.take() {
			if ev.Payload["type"] == "has_videocall_token" {
				if !slices.Equal(ev.UserIDs, []int64{org2.UserID}) {
					t.Errorf("has_videocall_token sent to %v", ev.UserIDs)
				}
				tokenEvents = append(tokenEvents, ev.Payload["value"])
			}
		}
		if !slices.Equal(tokenEvents, []any{false, false}) {
			t.Errorf("has_videocall_token events %v, want two false", tokenEvents)
		}
	})
}
