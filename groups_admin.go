package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Limits and errors of user group administration, with the reference's
// texts.
const (
	MaxUserGroupNameLength        = 100
	MaxUserGroupDescriptionLength = 1024
)

var (
	ErrInvalidUserGroup     = errorf("Invalid user group")
	ErrUserGroupNameEmpty   = errorf("User group name cannot be empty.")
	ErrUserGroupNameReseved = errorf("User group name cannot start with 'role:'.")
	ErrUserGroupDeactivated = errorf("User group is deactivated.")
	ErrUserGroupCycle       = errorf("A user group cannot contain itself, directly or through its subgroups.")
)

// userGroupSetting is one permission setting of user groups.
type userGroupSetting struct {
	name string
	// def is the default: a system group, or "" for the group's creator.
	def           string
	allowEveryone bool
	field         func(*storage.UserGroupSettings) *GroupSetting
}

// userGroupSettings are the permission settings of user groups, with the
// reference's defaults; system groups have role:nobody for each.
var userGroupSettings = []userGroupSetting{
	{"can_add_members_group", "", false, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanAddMembersGroup }},
	{"can_join_group", GroupNobody, false, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanJoinGroup }},
	{"can_leave_group", GroupEveryone, true, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanLeaveGroup }},
	{"can_manage_group", "", false, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanManageGroup }},
	{"can_mention_group", GroupEveryone, true, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanMentionGroup }},
	{"can_remove_members_group", GroupNobody, false, func(s *storage.UserGroupSettings) *GroupSetting { return &s.CanRemoveMembersGroup }},
}

// UserGroupSettingNames lists the names of user groups' permission
// settings, which NewUserGroup and UserGroupUpdate take.
func UserGroupSettingNames() []string {
	out := make([]string, len(userGroupSettings))
	for i, st := range userGroupSettings {
		out[i] = st.name
	}
	return out
}

// value is the setting's value for grp: the stored one or the default.
func (st *userGroupSetting) value(g *groups, grp *storage.UserGroup) GroupSetting {
	v := *st.field(&grp.Settings)
	switch {
	case v.IsGroup() || len(v.Members)+len(v.Subgroups) > 0:
		return v
	case grp.IsSystem:
		return GroupSettingOf(g.id(GroupNobody))
	case st.def == "":
		return GroupSetting{Members: []int64{grp.CreatorID}, Subgroups: []int64{}}
	}
	return GroupSettingOf(g.id(st.def))
}

// groupSettingValue returns the named setting's value for grp.
func groupSettingValue(g *groups, grp *storage.UserGroup, name string) GroupSetting {
	for i := range userGroupSettings {
		if st := &userGroupSettings[i]; st.name == name {
			return st.value(g, grp)
		}
	}
	return GroupSettingOf(g.id(GroupNobody))
}

// NewUserGroup is a request to POST /user_groups/create.
type NewUserGroup struct {
	Name        string
	Description string
	Members     []int64
	Subgroups   []int64
	// Settings sets permission settings by name (see
	// UserGroupSettingNames); the others take their defaults.
	Settings map[string]GroupSetting
}

// UserGroupUpdate is a request to PATCH /user_groups/{id}: nil fields and
// absent settings stay.
type UserGroupUpdate struct {
	Name        *string
	Description *string
	Settings    map[string]GroupSettingUpdate
}

// groupAdmin is what the user group operations load once.
type groupAdmin struct {
	actor storage.UserRecord
	realm Realm
	g     *groups
}

func (s *Service) groupAdmin(tx storage.Tx, actor Actor, op Operation) (*groupAdmin, error) {
	u, realm, err := s.admit(tx, actor, op)
	if err != nil {
		return nil, err
	}
	g, err := loadGroups(tx, realm.ID)
	if err != nil {
		return nil, err
	}
	return &groupAdmin{actor: u, realm: realm, g: g}, nil
}

// group returns a copy of a user-defined group of the realm; system groups
// answer ErrInsufficientPermission when changing, as the reference's.
func (ga *groupAdmin) group(id int64, changing bool) (storage.UserGroup, error) {
	grp := ga.g.byID[id]
	if grp == nil {
		return storage.UserGroup{}, ErrInvalidUserGroup
	}
	if changing && grp.IsSystem {
		return storage.UserGroup{}, ErrInsufficientPermission
	}
	c := *grp
	c.Members, c.Subgroups, c.Settings = slices.Clone(grp.Members), slices.Clone(grp.Subgroups), grp.Settings.Clone()
	return c, nil
}

// allowed reports whether the actor is in grp's setting; the
// organization's administrators may always manage groups.
func (ga *groupAdmin) allowed(grp *storage.UserGroup, setting string) bool {
	if ga.actor.Role.IsAdmin() && ga.actor.Role != RoleGuest {
		return true
	}
	return ga.g.allows(groupSettingValue(ga.g, grp, "can_manage_group"), &ga.actor) ||
		(setting != "" && ga.g.allows(groupSettingValue(ga.g, grp, setting), &ga.actor))
}

func checkUserGroupName(ga *groupAdmin, name string, self int64) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", ErrUserGroupNameEmpty
	case utf8.RuneCountInString(name) > MaxUserGroupNameLength:
		return "", errorf("User group name cannot exceed %d characters.", MaxUserGroupNameLength)
	case strings.HasPrefix(name, "role:"):
		return "", ErrUserGroupNameReseved
	}
	for _, grp := range ga.g.list {
		if grp.Name == name && grp.ID != self {
			return "", errorf("User group '%s' already exists.", name)
		}
	}
	return name, nil
}

func checkUserGroupDescription(d string) error {
	if utf8.RuneCountInString(d) > MaxUserGroupDescriptionLength {
		return errorf("description is too long (limit: %d characters)", MaxUserGroupDescriptionLength)
	}
	return nil
}

// checkMembers checks that the IDs are active users of the realm.
func checkMembers(tx storage.Tx, realmID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	users, err := tx.Users(realmID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		i := slices.IndexFunc(users, func(u storage.UserRecord) bool { return u.ID == id })
		if i < 0 || !users[i].IsActive {
			return errorf("Invalid user ID: %d", id)
		}
	}
	return nil
}

// checkSubgroups checks that the IDs are active groups of the realm that
// would not make grp contain itself.
func (ga *groupAdmin) checkSubgroups(grpID int64, ids []int64) error {
	for _, id := range ids {
		sub := ga.g.byID[id]
		if sub == nil || sub.Deactivated {
			return errorf("Invalid user group ID: %d", id)
		}
		if id == grpID || ga.reaches(id, grpID) {
			return ErrUserGroupCycle
		}
	}
	return nil
}

// reaches reports whether group from contains group to through subgroups.
func (ga *groupAdmin) reaches(from, to int64) bool {
	seen := map[int64]bool{}
	var walk func(int64) bool
	walk = func(id int64) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		grp := ga.g.byID[id]
		if grp == nil {
			return false
		}
		for _, sub := range grp.Subgroups {
			if sub == to || walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

// CreateUserGroup creates a user group (POST /user_groups/create) with
// its members, subgroups and settings, and tells every user with a
// user_group/add event. Users who are not guests may; the creator manages
// the group by default.
//
// Errors: ErrNotAllowedForGuests; ErrUserGroupNameEmpty,
// ErrUserGroupNameReseved, "User group name cannot exceed 100
// characters.", "User group '{name}' already exists."; "description is too
// long (limit: 1024 characters)"; "Invalid user ID: {id}"; "Invalid user
// group ID: {id}"; the group-setting errors of UpdateRealm.
func (s *Service) CreateUserGroup(ctx context.Context, actor Actor, req NewUserGroup) (int64, error) {
	var id int64
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		ga, err := s.groupAdmin(tx, actor, OpCreateUserGroup)
		if err != nil {
			return err
		}
		name, err := checkUserGroupName(ga, req.Name, 0)
		if err != nil {
			return err
		}
		if err := checkUserGroupDescription(req.Description); err != nil {
			return err
		}
		members, subgroups := uniqueIDs(req.Members), uniqueIDs(req.Subgroups)
		if err := checkMembers(tx, ga.realm.ID, members); err != nil {
			return err
		}
		if err := ga.checkSubgroups(0, subgroups); err != nil {
			return err
		}
		grp := &storage.UserGroup{RealmID: ga.realm.ID, Name: name, Description: req.Description, CreatorID: ga.actor.ID,
			DateCreated: s.now(), Members: members, Subgroups: subgroups}
		for i := range userGroupSettings {
			st := &userGroupSettings[i]
			v, ok := req.Settings[st.name]
			if !ok {
				continue
			}
			checked, err := checkGroupSetting(tx, ga.g, ga.realm.ID, st.name, v, groupSettingRule{allowEveryone: st.allowEveryone})
			if err != nil {
				return err
			}
			*st.field(&grp.Settings) = checked
		}
		if err := checkSettingNames(req.Settings); err != nil {
			return err
		}
		if err := tx.CreateUserGroups([]*storage.UserGroup{grp}); errors.Is(err, storage.ErrExists) {
			return errorf("User group '%s' already exists.", name)
		} else if err != nil {
			return err
		}
		id = grp.ID
		ga.g.list = append(ga.g.list, *grp)
		ga.g.byID[grp.ID] = &ga.g.list[len(ga.g.list)-1]
		view, err := s.userGroupView(tx, ga, grp)
		if err != nil {
			return err
		}
		emit(Event{RealmID: ga.realm.ID, AllUsers: true, Payload: map[string]any{"type": "user_group", "op": "add", "group": view}})
		return nil
	})
	return id, err
}

func checkSettingNames[V any](m map[string]V) error {
	for name := range m {
		if !slices.Contains(UserGroupSettingNames(), name) {
			return errorf("Invalid %s", name)
		}
	}
	return nil
}

// userGroupView is the group as GET /user_groups shows it.
func (s *Service) userGroupView(tx storage.Tx, ga *groupAdmin, grp *storage.UserGroup) (UserGroupView, error) {
	users, err := tx.Users(ga.realm.ID, nil)
	if err != nil {
		return UserGroupView{}, err
	}
	return viewUserGroup(ga.g, grp, users), nil
}

// UpdateUserGroup changes a group's name, description and permission
// settings (PATCH /user_groups/{id}) and tells every user with a
// user_group/update event. The organization's administrators and the
// group's can_manage_group may.
//
// Errors: ErrInvalidUserGroup; ErrInsufficientPermission (system groups
// too); the name, description and group-setting errors of
// CreateUserGroup; ErrGroupSettingOldMismatch.
func (s *Service) UpdateUserGroup(ctx context.Context, actor Actor, id int64, req UserGroupUpdate) error {
	return s.changeGroup(ctx, actor, id, true, func(tx storage.Tx, emit func(Event), ga *groupAdmin, grp storage.UserGroup) error {
		data := map[string]any{}
		if req.Name != nil {
			name, err := checkUserGroupName(ga, *req.Name, grp.ID)
			if err != nil {
				return err
			}
			if name != grp.Name {
				grp.Name, data["name"] = name, name
			}
		}
		if req.Description != nil {
			if err := checkUserGroupDescription(*req.Description); err != nil {
				return err
			}
			if *req.Description != grp.Description {
				grp.Description, data["description"] = *req.Description, *req.Description
			}
		}
		if err := checkSettingNames(req.Settings); err != nil {
			return err
		}
		for i := range userGroupSettings {
			st := &userGroupSettings[i]
			u, ok := req.Settings[st.name]
			if !ok {
				continue
			}
			current := st.value(ga.g, &grp)
			if u.Old != nil {
				old, err := checkGroupSetting(tx, ga.g, ga.realm.ID, st.name, *u.Old, groupSettingRule{allowEveryone: true})
				if err != nil {
					return err
				}
				if !sameGroupSetting(old, current) {
					return ErrGroupSettingOldMismatch
				}
			}
			v, err := checkGroupSetting(tx, ga.g, ga.realm.ID, st.name, u.New, groupSettingRule{allowEveryone: st.allowEveryone})
			if err != nil {
				return err
			}
			if !sameGroupSetting(v, current) {
				*st.field(&grp.Settings), data[st.name] = v, v
			}
		}
		return ga.save(tx, emit, &grp, data)
	})
}

// changeGroup runs change in a write transaction on a copy of the
// user-defined group id, which the actor must manage when managersOnly.
func (s *Service) changeGroup(ctx context.Context, actor Actor, id int64, managersOnly bool,
	change func(tx storage.Tx, emit func(Event), ga *groupAdmin, grp storage.UserGroup) error) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		ga, err := s.groupAdmin(tx, actor, OpUpdateUserGroup)
		if err != nil {
			return err
		}
		grp, err := ga.group(id, true)
		if err != nil {
			return err
		}
		if managersOnly && !ga.allowed(&grp, "") {
			return ErrInsufficientPermission
		}
		return change(tx, emit, ga, grp)
	})
}

// save stores grp and emits user_group/update with data, when data has
// changes.
func (ga *groupAdmin) save(tx storage.Tx, emit func(Event), grp *storage.UserGroup, data map[string]any) error {
	if len(data) == 0 {
		return nil
	}
	if err := tx.UpdateUserGroup(*grp); errors.Is(err, storage.ErrExists) {
		return errorf("User group '%s' already exists.", grp.Name)
	} else if err != nil {
		return err
	}
	emit(Event{RealmID: ga.realm.ID, AllUsers: true, Payload: map[string]any{
		"type": "user_group", "op": "update", "group_id": grp.ID, "data": data}})
	return nil
}

// DeactivateUserGroup deactivates a group (POST
// /user_groups/{id}/deactivate), the reference's way of removing one:
// it stays in settings that name it, but contains nobody there. Who may is
// as for UpdateUserGroup.
//
// Errors: ErrInvalidUserGroup; ErrInsufficientPermission;
// ErrUserGroupDeactivated for a group deactivated already.
func (s *Service) DeactivateUserGroup(ctx context.Context, actor Actor, id int64) error {
	return s.changeGroup(ctx, actor, id, true, func(tx storage.Tx, emit func(Event), ga *groupAdmin, grp storage.UserGroup) error {
		if grp.Deactivated {
			return ErrUserGroupDeactivated
		}
		grp.Deactivated = true
		return ga.save(tx, emit, &grp, map[string]any{"deactivated": true})
	})
}

// UpdateUserGroupMembers adds and removes direct members of a group (POST
// /user_groups/{id}/members), with user_group/add_members and
// remove_members events. The organization's administrators and the
// group's can_manage_group may add and remove anyone, its
// can_add_members_group add and its can_remove_members_group remove; any
// user may add themselves when in can_join_group and remove themselves
// when in can_leave_group.
//
// Errors: ErrInvalidUserGroup; ErrInsufficientPermission;
// ErrUserGroupDeactivated; "Invalid user ID: {id}"; "User {id} is already
// a member of this group"; "There is no member '{id}' in this user group".
func (s *Service) UpdateUserGroupMembers(ctx context.Context, actor Actor, id int64, add, remove []int64) error {
	return s.changeGroup(ctx, actor, id, false, func(tx storage.Tx, emit func(Event), ga *groupAdmin, grp storage.UserGroup) error {
		if grp.Deactivated {
			return ErrUserGroupDeactivated
		}
		add, remove = uniqueIDs(add), uniqueIDs(remove)
		self := func(ids []int64) bool { return len(ids) == 1 && ids[0] == ga.actor.ID }
		if len(add) > 0 && !ga.allowed(&grp, "can_add_members_group") &&
			!(self(add) && ga.g.allows(groupSettingValue(ga.g, &grp, "can_join_group"), &ga.actor)) {
			return ErrInsufficientPermission
		}
		if len(remove) > 0 && !ga.allowed(&grp, "can_remove_members_group") &&
			!(self(remove) && ga.g.allows(groupSettingValue(ga.g, &grp, "can_leave_group"), &ga.actor)) {
			return ErrInsufficientPermission
		}
		if err := checkMembers(tx, ga.realm.ID, add); err != nil {
			return err
		}
		for _, u := range add {
			if slices.Contains(grp.Members, u) {
				return errorf("User %d is already a member of this group", u)
			}
		}
		for _, u := range remove {
			if !slices.Contains(grp.Members, u) {
				return errorf("There is no member '%d' in this user group", u)
			}
		}
		return ga.changeLists(tx, emit, &grp, &grp.Members, add, remove, "members", "user_ids")
	})
}

// changeLists applies additions and removals to one of grp's lists and
// emits the add_/remove_ events of kind.
func (ga *groupAdmin) changeLists(tx storage.Tx, emit func(Event), grp *storage.UserGroup, list *[]int64, add, remove []int64,
	kind, key string) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	*list = slices.DeleteFunc(append(*list, add...), func(id int64) bool { return slices.Contains(remove, id) })
	slices.Sort(*list)
	if *list == nil {
		*list = []int64{}
	}
	if err := tx.UpdateUserGroup(*grp); err != nil {
		return err
	}
	for _, ch := range []struct {
		op  string
		ids []int64
	}{{"add_" + kind, add}, {"remove_" + kind, remove}} {
		if len(ch.ids) > 0 {
			emit(Event{RealmID: ga.realm.ID, AllUsers: true, Payload: map[string]any{
				"type": "user_group", "op": ch.op, "group_id": grp.ID, key: ch.ids}})
		}
	}
	return nil
}

// UpdateUserGroupSubgroups adds and removes direct subgroups of a group
// (POST /user_groups/{id}/subgroups), with user_group/add_subgroups and
// remove_subgroups events. Who may is as for UpdateUserGroup.
//
// Errors: ErrInvalidUserGroup; ErrInsufficientPermission;
// ErrUserGroupDeactivated; "Invalid user group ID: {id}";
// ErrUserGroupCycle; "User group {id} is already a subgroup of this
// group."; "User group {id} is not a subgroup of this group."
func (s *Service) UpdateUserGroupSubgroups(ctx context.Context, actor Actor, id int64, add, remove []int64) error {
	return s.changeGroup(ctx, actor, id, true, func(tx storage.Tx, emit func(Event), ga *groupAdmin, grp storage.UserGroup) error {
		if grp.Deactivated {
			return ErrUserGroupDeactivated
		}
		add, remove = uniqueIDs(add), uniqueIDs(remove)
		if err := ga.checkSubgroups(grp.ID, add); err != nil {
			return err
		}
		for _, g := range add {
			if slices.Contains(grp.Subgroups, g) {
				return errorf("User group %d is already a subgroup of this group.", g)
			}
		}
		for _, g := range remove {
			if !slices.Contains(grp.Subgroups, g) {
				return errorf("User group %d is not a subgroup of this group.", g)
			}
		}
		return ga.changeLists(tx, emit, &grp, &grp.Subgroups, add, remove, "subgroups", "direct_subgroup_ids")
	})
}

// viewGroup runs fn in a read transaction with the group context loaded
// and group id looked up, for the read operations any user may call.
func (s *Service) viewGroup(ctx context.Context, actor Actor, id int64, fn func(tx storage.Tx, ga *groupAdmin, grp *storage.UserGroup) error) error {
	return s.view(ctx, actor, func(tx storage.Tx) error {
		ga, err := s.groupAdmin(tx, actor, OpUserGroups)
		if err != nil {
			return err
		}
		grp := ga.g.byID[id]
		if grp == nil {
			return ErrInvalidUserGroup
		}
		return fn(tx, ga, grp)
	})
}

// UserGroupMembers returns the IDs of a group's members, ascending: its
// direct members only, or everyone it contains through its subgroups too
// (active users only). Any user may ask.
//
// Errors: ErrInvalidUserGroup; those of the actor check.
func (s *Service) UserGroupMembers(ctx context.Context, actor Actor, id int64, directOnly bool) ([]int64, error) {
	var out []int64
	err := s.viewGroup(ctx, actor, id, func(tx storage.Tx, ga *groupAdmin, grp *storage.UserGroup) (err error) {
		out, err = ga.members(tx, grp, directOnly)
		return err
	})
	return out, err
}

// members lists grp's active members, ascending.
func (ga *groupAdmin) members(tx storage.Tx, grp *storage.UserGroup, directOnly bool) ([]int64, error) {
	users, err := tx.Users(ga.realm.ID, nil)
	if err != nil {
		return nil, err
	}
	out := []int64{}
	for i := range users {
		u := &users[i]
		if !u.IsActive {
			continue
		}
		direct := (grp.IsSystem && roleMember(grp.Name, u.Role)) || slices.Contains(grp.Members, u.ID)
		if direct || (!directOnly && ga.g.contains(grp.ID, u)) {
			out = append(out, u.ID)
		}
	}
	return out, nil
}

// IsUserGroupMember reports whether a user is a member of a group,
// directly or (unless directOnly) through its subgroups. Any user may ask.
//
// Errors: ErrInvalidUserGroup; "Invalid user ID: {id}"; those of the actor
// check.
func (s *Service) IsUserGroupMember(ctx context.Context, actor Actor, id, userID int64, directOnly bool) (bool, error) {
	var is bool
	err := s.viewGroup(ctx, actor, id, func(tx storage.Tx, ga *groupAdmin, grp *storage.UserGroup) error {
		if err := checkMembers(tx, ga.realm.ID, []int64{userID}); err != nil {
			return err
		}
		members, err := ga.members(tx, grp, directOnly)
		is = slices.Contains(members, userID)
		return err
	})
	return is, err
}

// UserGroupSubgroups returns the IDs of a group's subgroups, ascending:
// direct ones only, or all it contains. Any user may ask.
//
// Errors: ErrInvalidUserGroup; those of the actor check.
func (s *Service) UserGroupSubgroups(ctx context.Context, actor Actor, id int64, directOnly bool) ([]int64, error) {
	var out []int64
	err := s.viewGroup(ctx, actor, id, func(_ storage.Tx, ga *groupAdmin, grp *storage.UserGroup) error {
		out = []int64{}
		for _, other := range ga.g.list {
			if other.ID == grp.ID {
				continue
			}
			if slices.Contains(grp.Subgroups, other.ID) || (!directOnly && ga.reaches(grp.ID, other.ID)) {
				out = append(out, other.ID)
			}
		}
		return nil
	})
	return out, err
}
