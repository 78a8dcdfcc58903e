package chat_test

import (
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestGroupMentions: @*group* renders as the reference server renders it
// and mentions the group's members, through its subgroups too, when the
// sender may mention the group (can_mention_group); @_*group* and a
// deactivated group mention no one and need no permission; a system
// group's mention shows its display name; edits are checked and flagged
// in the same way; a name that is no group stays text.
func TestGroupMentions(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		admin := chat.AsUser(f.admin.ID)
		_, err := f.svc.Subscribe(ctx, admin, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "talk"}},
			Principals: &chat.Principals{IDs: []int64{f.admin.ID, f.moderator.ID, f.member.ID, f.guest.ID}}})
		wantNoErr(t, "Subscribe", err)
		talk := channelIDOf(t, f, "talk")
		leads, err := f.svc.CreateUserGroup(ctx, admin, chat.NewUserGroup{Name: "leads", Description: "d", Members: []int64{f.admin.ID}})
		wantNoErr(t, "create leads", err)
		oncall, err := f.svc.CreateUserGroup(ctx, admin, chat.NewUserGroup{Name: "Oncall", Description: "d",
			Members: []int64{f.moderator.ID}, Subgroups: []int64{leads}})
		wantNoErr(t, "create Oncall", err)
		quiet, err := f.svc.CreateUserGroup(ctx, admin, chat.NewUserGroup{Name: "quiet", Description: "d", Members: []int64{f.member.ID},
			Settings: map[string]chat.GroupSetting{"can_mention_group": chat.GroupSettingOf(groupIDByName(t, f, "role:moderators"))}})
		wantNoErr(t, "create quiet", err)
		gone, err := f.svc.CreateUserGroup(ctx, admin, chat.NewUserGroup{Name: "gone", Description: "d", Members: []int64{f.guest.ID}})
		wantNoErr(t, "create gone", err)
		wantNoErr(t, "deactivate gone", f.svc.DeactivateUserGroup(ctx, admin, gone))
		staff, err := f.svc.CreateUserGroup(ctx, admin, chat.NewUserGroup{Name: "staff", Description: "d",
			Subgroups: []int64{groupIDByName(t, f, "role:moderators")}})
		wantNoErr(t, "create staff", err)
		members := groupIDByName(t, f, "role:members")

		type seen struct {
			Content string
			Flags   map[int64][]string // by recipient, the sender left out
		}
		read := func(id int64) seen {
			t.Helper()
			s := seen{Flags: map[int64][]string{}}
			for _, u := range []*account{f.admin, f.moderator, f.member, f.guest} {
				v, _, err := f.svc.GetMessage(ctx, chat.AsUser(u.ID), id, chat.MessageFormat{ApplyMarkdown: true})
				wantNoErr(t, "GetMessage", err)
				s.Content = v.Content
				if u.ID != v.SenderID {
					s.Flags[u.ID] = *v.Flags
				}
			}
			return s
		}
		span := func(class string, id int64, text string) string {
			return `<span class="` + class + `" data-user-group-id="` + itoa(id) + `">` + text + `</span>`
		}
		long := strings.TrimSpace(strings.Repeat("word ", 300))
		none := []string{}
		mentioned := []string{"mentioned"}
		for _, c := range []struct {
			sender  *account
			content string
			want    seen
		}{
			{f.member, "@*oncall* ping", seen{"<p>" + span("user-group-mention", oncall, "@Oncall") + " ping</p>",
				map[int64][]string{f.admin.ID: mentioned, f.moderator.ID: mentioned, f.guest.ID: none}}},
			{f.member, "@_*Oncall* quietly", seen{"<p>" + span("user-group-mention silent", oncall, "Oncall") + " quietly</p>",
				map[int64][]string{f.admin.ID: none, f.moderator.ID: none, f.guest.ID: none}}},
			{f.moderator, "@*quiet* hi", seen{"<p>" + span("user-group-mention", quiet, "@quiet") + " hi</p>",
				map[int64][]string{f.admin.ID: none, f.member.ID: mentioned, f.guest.ID: none}}},
			{f.guest, "@_*quiet* hi", seen{"<p>" + span("user-group-mention silent", quiet, "quiet") + " hi</p>",
				map[int64][]string{f.admin.ID: none, f.moderator.ID: none, f.member.ID: none}}},
			{f.member, "@*gone* hi", seen{"<p>" + span("user-group-mention silent", gone, "gone") + " hi</p>",
				map[int64][]string{f.admin.ID: none, f.moderator.ID: none, f.guest.ID: none}}},
			{f.member, "@_*role:members* hi", seen{"<p>" + span("user-group-mention silent", members, "Members") + " hi</p>",
				map[int64][]string{f.admin.ID: none, f.moderator.ID: none, f.guest.ID: none}}},
			{f.member, "@*staff* by role", seen{"<p>" + span("user-group-mention", staff, "@staff") + " by role</p>",
				map[int64][]string{f.admin.ID: mentioned, f.moderator.ID: mentioned, f.guest.ID: none}}},
			// Long content is rendered before the write transaction.
			{f.member, "@*oncall* " + long, seen{"<p>" + span("user-group-mention", oncall, "@Oncall") + " " + long + "</p>",
				map[int64][]string{f.admin.ID: mentioned, f.moderator.ID: mentioned, f.guest.ID: none}}},
			{f.member, "@*nosuch* hi @**Adam Admin**", seen{`<p>@<em>nosuch</em> hi <span class="user-mention" data-user-id="` +
				itoa(f.admin.ID) + `">@Adam Admin</span></p>`,
				map[int64][]string{f.admin.ID: mentioned, f.moderator.ID: none, f.guest.ID: none}}},
		} {
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(c.sender.ID), talk, "t", c.content)
			wantNoErr(t, c.content, err)
			diff(t, c.content, read(id), c.want)
		}

		for _, c := range []struct {
			sender  *account
			content string
			group   string
		}{
			{f.member, "@*quiet* hi", "quiet"},
			{f.member, "@*role:members* hi", "role:members"},
			{f.admin, "@*leads* and @*role:everyone*", "role:everyone"},
		} {
			_, err := f.svc.PostChannelMessage(ctx, chat.AsUser(c.sender.ID), talk, "t", c.content)
			wantCodeMsg(t, c.content, err, chat.CodeBadRequest, "You are not allowed to mention user group '"+c.group+"'.")
		}

		id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.moderator.ID), talk, "t", "hello")
		wantNoErr(t, "send", err)
		content := "now @*oncall*"
		wantNoErr(t, "edit", f.svc.EditMessage(ctx, chat.AsUser(f.moderator.ID), id, &content))
		diff(t, "after an edit", read(id), seen{"<p>now " + span("user-group-mention", oncall, "@Oncall") + "</p>",
			map[int64][]string{f.admin.ID: mentioned, f.member.ID: none, f.guest.ID: none}})
		id, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), talk, "t", "hello")
		wantNoErr(t, "send", err)
		content = "now @*quiet*"
		wantCodeMsg(t, "an edit mentioning quiet", f.svc.EditMessage(ctx, chat.AsUser(f.member.ID), id, &content),
			chat.CodeBadRequest, "You are not allowed to mention user group 'quiet'.")

		html, err := f.svc.RenderMessage(ctx, chat.AsUser(f.member.ID), "@*oncall*")
		wantNoErr(t, "RenderMessage", err)
		diff(t, "a preview", html, "<p>"+span("user-group-mention", oncall, "@Oncall")+"</p>")
	})
}
