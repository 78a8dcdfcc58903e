package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestUserGroupAdministration creates, changes, fills and deactivates a
// user group on every backend: who may, each event, membership through
// subgroups, and every refusal.
func TestUserGroupAdministration(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		st, err := f.svc.Register(ctx, chat.AsUser(f.moderator.ID), chat.RegisterRequest{EventTypes: []string{"user_group"}})
		wantNoErr(t, "Register", err)
		queue := st["queue_id"].(string)

		_, err = f.svc.CreateUserGroup(ctx, chat.AsUser(f.guest.ID), chat.NewUserGroup{Name: "guests"})
		wantErr(t, "a guest creates", err, chat.ErrNotAllowedForGuests)
		for _, c := range []struct {
			name string
			msg  string
		}{{" ", "User group name cannot be empty."}, {"role:x", "User group name cannot start with 'role:'."},
			{"role:members", "User group name cannot start with 'role:'."}} {
			_, err = f.svc.CreateUserGroup(ctx, chat.AsUser(f.member.ID), chat.NewUserGroup{Name: c.name})
			wantCodeMsg(t, "name "+c.name, err, chat.CodeBadRequest, c.msg)
		}
		_, err = f.svc.CreateUserGroup(ctx, chat.AsUser(f.member.ID), chat.NewUserGroup{Name: "x", Members: []int64{9999}})
		wantCodeMsg(t, "an unknown member", err, chat.CodeBadRequest, "Invalid user ID: 9999")

		// The member creates two groups and so manages them.
		design, err := f.svc.CreateUserGroup(ctx, chat.AsUser(f.member.ID), chat.NewUserGroup{Name: "design", Description: "Pixels",
			Members: []int64{f.member.ID}})
		wantNoErr(t, "create design", err)
		web, err := f.svc.CreateUserGroup(ctx, chat.AsUser(f.member.ID), chat.NewUserGroup{Name: "web", Members: []int64{f.guest.ID},
			Subgroups: []int64{design}, Settings: map[string]chat.GroupSetting{"can_join_group": chat.GroupSettingOf(groupIDByName(t, f, "role:members"))}})
		wantNoErr(t, "create web", err)
		_, err = f.svc.CreateUserGroup(ctx, chat.AsUser(f.admin.ID), chat.NewUserGroup{Name: "design"})
		wantCodeMsg(t, "a taken name", err, chat.CodeBadRequest, "User group 'design' already exists.")

		members, err := f.svc.UserGroupMembers(ctx, chat.AsUser(f.guest.ID), web, false)
		wantNoErr(t, "UserGroupMembers", err)
		diff(t, "web's members through design", members, []int64{f.member.ID, f.guest.ID})
		members, err = f.svc.UserGroupMembers(ctx, chat.AsUser(f.guest.ID), web, true)
		wantNoErr(t, "UserGroupMembers direct", err)
		diff(t, "web's direct members", members, []int64{f.guest.ID})
		is, err := f.svc.IsUserGroupMember(ctx, chat.AsUser(f.guest.ID), web, f.member.ID, true)
		wantNoErr(t, "IsUserGroupMember", err)
		if is {
			t.Error("the member is a direct member of web")
		}
		is, err = f.svc.IsUserGroupMember(ctx, chat.AsUser(f.guest.ID), web, f.member.ID, false)
		wantNoErr(t, "IsUserGroupMember through subgroups", err)
		if !is {
			t.Error("the member is not a member of web through design")
		}
		_, err = f.svc.IsUserGroupMember(ctx, chat.AsUser(f.guest.ID), web, 9999, false)
		wantCodeMsg(t, "IsUserGroupMember of an unknown user", err, chat.CodeBadRequest, "Invalid user ID: 9999")
		_, err = f.svc.IsUserGroupMember(ctx, chat.AsUser(f.guest.ID), 9999, f.member.ID, false)
		wantErr(t, "IsUserGroupMember of an unknown group", err, chat.ErrInvalidUserGroup)
		subs, err := f.svc.UserGroupSubgroups(ctx, chat.AsUser(f.guest.ID), web, true)
		wantNoErr(t, "UserGroupSubgroups", err)
		diff(t, "web's subgroups", subs, []int64{design})

		// Who may change what.
		wantErr(t, "the moderator renames", f.svc.UpdateUserGroup(ctx, chat.AsUser(f.moderator.ID), design,
			chat.UserGroupUpdate{Name: ptr("art")}), chat.ErrInsufficientPermission)
		wantErr(t, "an administrator changes a system group", f.svc.UpdateUserGroup(ctx, chat.AsUser(f.admin.ID), groupIDByName(t, f, "role:members"),
			chat.UserGroupUpdate{Name: ptr("art")}), chat.ErrInsufficientPermission)
		wantErr(t, "a cycle", f.svc.UpdateUserGroupSubgroups(ctx, chat.AsUser(f.member.ID), design, []int64{web}, nil), chat.ErrUserGroupCycle)
		wantCodeMsg(t, "a member twice", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.member.ID), design, []int64{f.member.ID}, nil),
			chat.CodeBadRequest, "User "+itoa(f.member.ID)+" is already a member of this group")
		wantCodeMsg(t, "a non-member removed", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.member.ID), design, nil, []int64{f.guest.ID}),
			chat.CodeBadRequest, "There is no member '"+itoa(f.guest.ID)+"' in this user group")
		wantErr(t, "the moderator adds someone", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.moderator.ID), web, []int64{f.admin.ID}, nil),
			chat.ErrInsufficientPermission)
		// Members may join web by its can_join_group; anyone may leave.
		wantNoErr(t, "the moderator joins web", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.moderator.ID), web, []int64{f.moderator.ID}, nil))
		wantNoErr(t, "the guest leaves web", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.guest.ID), web, nil, []int64{f.guest.ID}))
		wantErr(t, "the moderator joins design", f.svc.UpdateUserGroupMembers(ctx, chat.AsUser(f.moderator.ID), design, []int64{f.moderator.ID}, nil),
			chat.ErrInsufficientPermission)
		wantNoErr(t, "the member renames design", f.svc.UpdateUserGroup(ctx, chat.AsUser(f.member.ID), design,
			chat.UserGroupUpdate{Name: ptr("art"), Description: ptr("Pixels"),
				Settings: map[string]chat.GroupSettingUpdate{"can_mention_group": {New: chat.GroupSettingOf(groupIDByName(t, f, "role:moderators"))}}}))
		wantNoErr(t, "the admin deactivates web", f.svc.DeactivateUserGroup(ctx, chat.AsUser(f.admin.ID), web))
		wantErr(t, "deactivate again", f.svc.DeactivateUserGroup(ctx, chat.AsUser(f.admin.ID), web), chat.ErrUserGroupDeactivated)

		groups, err := f.svc.UserGroups(ctx, chat.AsUser(f.member.ID), true)
		wantNoErr(t, "UserGroups", err)
		var art chat.UserGroupView
		for _, g := range groups {
			if g.ID == design {
				art = g
			}
		}
		creator := chat.GroupSetting{Members: []int64{f.member.ID}, Subgroups: []int64{}}
		nobody, everyone := chat.GroupSettingOf(groupIDByName(t, f, "role:nobody")), chat.GroupSettingOf(groupIDByName(t, f, "role:everyone"))
		created := *art.DateCreated
		diff(t, "art", art, chat.UserGroupView{ID: design, Name: "art", Description: "Pixels", Members: []int64{f.member.ID},
			DirectSubgroupIDs: []int64{}, CreatorID: &f.member.ID, DateCreated: &created,
			CanAddMembersGroup: creator, CanJoinGroup: nobody, CanLeaveGroup: everyone, CanManageGroup: creator,
			CanMentionGroup: chat.GroupSettingOf(groupIDByName(t, f, "role:moderators")), CanRemoveMembersGroup: nobody})

		var ops []string
		for _, e := range queueEvents(t, f, f.moderator.ID, queue) {
			ops = append(ops, e["op"].(string))
		}
		diff(t, "event ops", ops, []string{"add", "add", "add_members", "remove_members", "update", "update"})
	})
}

// groupIDByName returns the ID of the organization's group with the name.
func groupIDByName(t *testing.T, f *fixture, name string) int64 {
	t.Helper()
	groups, err := f.svc.UserGroups(t.Context(), chat.AsUser(f.admin.ID), true)
	wantNoErr(t, "UserGroups", err)
	for _, g := range groups {
		if g.Name == name {
			return g.ID
		}
	}
	t.Fatalf("no group %q", name)
	return 0
}
