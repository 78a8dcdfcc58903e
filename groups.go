package chat

import (
	"context"
	"slices"

	"github.com/teamchat/chat/storage"
)

// System group names. Every organization has these groups
// from its creation.
const (
	GroupNobody         = "role:nobody"
	GroupOwners         = "role:owners"
	GroupAdministrators = "role:administrators"
	GroupModerators     = "role:moderators"
	GroupFullMembers    = "role:fullmembers"
	GroupMembers        = "role:members"
	GroupEveryone       = "role:everyone"
	GroupInternet       = "role:internet"
)

// systemGroups lists the system groups in creation order, each with its
// description, the one system group it directly contains, and the name a
// mention of it shows.
var systemGroups = []struct{ name, description, subgroup, display string }{
	{GroupNobody, "Nobody", "", "Nobody"},
	{GroupOwners, "Owners of this organization", "", "Owners"},
	{GroupAdministrators, "Administrators of this organization, including owners", GroupOwners, "Administrators"},
	{GroupModerators, "Moderators of this organization, including administrators", GroupAdministrators, "Moderators"},
	{GroupFullMembers, "Members of this organization, not including new accounts and guests", GroupModerators, "Full members"},
	{GroupMembers, "Members of this organization, not including guests", GroupFullMembers, "Members"},
	{GroupEveryone, "Everyone in this organization, including guests", GroupMembers, "Everyone"},
	{GroupInternet, "Everyone on the Internet", GroupEveryone, "Everyone on the internet"},
}

// groupMentionName is the name a mention of the group shows: a system
// group's display name, as the reference server shows it, or the name.
func groupMentionName(g *storage.UserGroup) string {
	if g.IsSystem {
		for _, sg := range systemGroups {
			if sg.name == g.Name {
				return sg.display
			}
		}
	}
	return g.Name
}

// createSystemGroups creates the system groups of a new organization.
func createSystemGroups(tx storage.Tx, realm Realm) error {
	byName := map[string]*storage.UserGroup{}
	for _, sg := range systemGroups {
		g := &storage.UserGroup{RealmID: realm.ID, Name: sg.name, Description: sg.description,
			IsSystem: true, DateCreated: realm.DateCreated}
		if sg.subgroup != "" {
			g.Subgroups = []int64{byName[sg.subgroup].ID}
		}
		// One at a time: each group names the ID of the one before.
		if err := tx.CreateUserGroups([]*storage.UserGroup{g}); err != nil {
			return err
		}
		byName[sg.name] = g
	}
	return nil
}

// groups is the realm's user groups, indexed for permission checks.
type groups struct {
	byID   map[int64]*storage.UserGroup
	byName map[string]*storage.UserGroup
	list   []storage.UserGroup
}

func loadGroups(tx storage.Tx, realmID int64) (*groups, error) {
	list, err := tx.UserGroups(realmID)
	if err != nil {
		return nil, err
	}
	g := &groups{byID: make(map[int64]*storage.UserGroup, len(list)), byName: make(map[string]*storage.UserGroup, len(list)), list: list}
	for i := range list {
		g.byID[list[i].ID] = &list[i]
		if list[i].IsSystem {
			g.byName[list[i].Name] = &list[i]
		}
	}
	return g, nil
}

// id returns the ID of a system group.
func (g *groups) id(name string) int64 {
	if sg := g.byName[name]; sg != nil {
		return sg.ID
	}
	return 0
}

// roleMember reports whether a user with the role is a direct member of the
// system group.
func roleMember(name string, role Role) bool {
	switch name {
	case GroupOwners:
		return role == RoleOwner
	case GroupAdministrators:
		return role == RoleAdmin
	case GroupModerators:
		return role == RoleModerator
	case GroupFullMembers, GroupMembers:
		return role == RoleMember
	case GroupEveryone:
		return role == RoleGuest
	}
	return false
}

// contains reports whether u belongs to the group with the ID, directly or
// through nested subgroups. Cycles are harmless.
func (g *groups) contains(id int64, u *storage.UserRecord) bool {
	seen := map[int64]bool{}
	var walk func(int64) bool
	walk = func(id int64) bool {
		grp := g.byID[id]
		if grp == nil || seen[id] || grp.Deactivated {
			return false
		}
		seen[id] = true
		if grp.IsSystem {
			if roleMember(grp.Name, u.Role) {
				return true
			}
		} else if slices.Contains(grp.Members, u.ID) {
			return true
		}
		for _, sub := range grp.Subgroups {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(id)
}

// allows reports whether u is in the group-setting value.
func (g *groups) allows(v GroupSetting, u *storage.UserRecord) bool {
	if v.IsGroup() {
		return g.contains(v.GroupID, u)
	}
	if slices.Contains(v.Members, u.ID) {
		return true
	}
	for _, sub := range v.Subgroups {
		if g.contains(sub, u) {
			return true
		}
	}
	return false
}

// GroupSettingOf returns the value naming the group with the ID.
func GroupSettingOf(id int64) GroupSetting { return GroupSetting{GroupID: id} }

// groupSettingRule says which system groups a setting accepts.
type groupSettingRule struct {
	allowEveryone bool
}

// checkGroupSetting validates a value for the setting of the realm: every
// group and user must exist there, and the setting must accept the system
// group. An anonymous value that is empty becomes role:nobody, as the
// reference server stores it.
func checkGroupSetting(tx storage.Tx, g *groups, realmID int64, setting string, v GroupSetting, rule groupSettingRule) (GroupSetting, error) {
	if v.IsGroup() {
		grp := g.byID[v.GroupID]
		if grp == nil || grp.Deactivated {
			return GroupSetting{}, errorf("Invalid user group ID: %d", v.GroupID)
		}
		if grp.IsSystem {
			switch {
			case grp.Name == GroupInternet:
				return GroupSetting{}, errorf("'%s' setting cannot be set to 'role:internet' group.", setting)
			case grp.Name == GroupEveryone && !rule.allowEveryone:
				return GroupSetting{}, errorf("'%s' setting cannot be set to 'role:everyone' group.", setting)
			}
		}
		return v, nil
	}
	if len(v.Members) == 0 && len(v.Subgroups) == 0 {
		return GroupSettingOf(g.id(GroupNobody)), nil
	}
	for _, id := range v.Subgroups {
		if grp := g.byID[id]; grp == nil || grp.Deactivated {
			return GroupSetting{}, errorf("Invalid user group ID: %d", id)
		}
	}
	if len(v.Members) > 0 {
		users, err := tx.Users(realmID, v.Members)
		if err != nil {
			return GroupSetting{}, err
		}
		if len(users) != len(v.Members) {
			for _, id := range v.Members {
				if !slices.ContainsFunc(users, func(u storage.UserRecord) bool { return u.ID == id }) {
					return GroupSetting{}, errorf("Invalid user ID: %d", id)
				}
			}
		}
	}
	return v.Clone(), nil
}

// UserGroupView is a user group as GET /user_groups shows it.
type UserGroupView struct {
	ID                    int64        `json:"id"`
	Name                  string       `json:"name"`
	Description           string       `json:"description"`
	Members               []int64      `json:"members"`
	DirectSubgroupIDs     []int64      `json:"direct_subgroup_ids"`
	IsSystemGroup         bool         `json:"is_system_group"`
	CreatorID             *int64       `json:"creator_id"`
	DateCreated           *int64       `json:"date_created"`
	Deactivated           bool         `json:"deactivated"`
	CanAddMembersGroup    GroupSetting `json:"can_add_members_group"`
	CanJoinGroup          GroupSetting `json:"can_join_group"`
	CanLeaveGroup         GroupSetting `json:"can_leave_group"`
	CanManageGroup        GroupSetting `json:"can_manage_group"`
	CanMentionGroup       GroupSetting `json:"can_mention_group"`
	CanRemoveMembersGroup GroupSetting `json:"can_remove_members_group"`
}

// UserGroups returns the organization's user groups ordered by ID, system
// groups with their role-derived direct members. Any active user may call
// it; deactivated groups only when includeDeactivated.
// Errors: those of the actor check (ErrNotLoggedIn, ...).
func (s *Service) UserGroups(ctx context.Context, actor Actor, includeDeactivated bool) ([]UserGroupView, error) {
	return s.userGroups(ctx, actor, includeDeactivated, nil)
}

// userGroups is UserGroups with the users of register, when req is one's.
func (s *Service) userGroups(ctx context.Context, actor Actor, includeDeactivated bool, req *RegisterRequest) ([]UserGroupView, error) {
	var out []UserGroupView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		g, err := loadGroups(tx, realm.ID)
		if err != nil {
			return err
		}
		users, err := req.realmUsers(tx, realm.ID)
		if err != nil {
			return err
		}
		out = make([]UserGroupView, 0, len(g.list))
		for i := range g.list {
			grp := &g.list[i]
			if grp.Deactivated && !includeDeactivated {
				continue
			}
			out = append(out, viewUserGroup(g, grp, users))
		}
		return nil
	})
	return out, err
}

// viewUserGroup makes the view of grp: a system group's direct members
// follow from the users' roles, and settings not set are their defaults.
func viewUserGroup(g *groups, grp *storage.UserGroup, users []storage.UserRecord) UserGroupView {
	v := UserGroupView{ID: grp.ID, Name: grp.Name, Description: grp.Description,
		Members: slices.Clone(grp.Members), DirectSubgroupIDs: slices.Clone(grp.Subgroups),
		IsSystemGroup: grp.IsSystem, Deactivated: grp.Deactivated}
	for _, f := range []struct {
		dst  *GroupSetting
		name string
	}{{&v.CanAddMembersGroup, "can_add_members_group"}, {&v.CanJoinGroup, "can_join_group"},
		{&v.CanLeaveGroup, "can_leave_group"}, {&v.CanManageGroup, "can_manage_group"},
		{&v.CanMentionGroup, "can_mention_group"}, {&v.CanRemoveMembersGroup, "can_remove_members_group"}} {
		*f.dst = groupSettingValue(g, grp, f.name)
	}
	if grp.IsSystem {
		v.Members = []int64{}
		for _, u := range users {
			if u.IsActive && roleMember(grp.Name, u.Role) {
				v.Members = append(v.Members, u.ID)
			}
		}
	} else {
		v.CreatorID = ptrTo(grp.CreatorID)
	}
	v.DateCreated = ptrTo(grp.DateCreated.Unix())
	if v.Members == nil {
		v.Members = []int64{}
	}
	if v.DirectSubgroupIDs == nil {
		v.DirectSubgroupIDs = []int64{}
	}
	return v
}

func ptrTo[T any](v T) *T { return &v }

// ParseGroupSetting decodes the JSON form of a group-setting value sent as
// the parameter name. Errors: BAD_REQUEST with the reference server's
// texts, such as "{name} is not an integer or a dict".
func ParseGroupSetting(name string, data []byte) (GroupSetting, error) {
	v, err := storage.ParseGroupSetting(name, data)
	if err != nil {
		return GroupSetting{}, &Error{Code: CodeBadRequest, Msg: err.Error()}
	}
	return v, nil
}
