package chat

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/teamchat/chat/storage"
)

// GroupSettingUpdate is a change of a group setting as PATCH requests send
// it: {"new": value, "old": value}. Old is optional; when given, it must be
// the current value, so that two administrators editing at once do not
// overwrite each other unknowingly.
type GroupSettingUpdate struct {
	New GroupSetting
	Old *GroupSetting
}

// UnmarshalJSON reads {"new": …, "old": …}, each value a group ID or an
// anonymous group.
func (u *GroupSettingUpdate) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(b), &raw); err != nil {
		return err
	}
	newRaw, ok := raw["new"]
	if !ok {
		return errorf("new field is missing")
	}
	var out GroupSettingUpdate
	if err := out.New.UnmarshalJSON(newRaw); err != nil {
		return err
	}
	if oldRaw, ok := raw["old"]; ok {
		var old GroupSetting
		if err := old.UnmarshalJSON(oldRaw); err != nil {
			return err
		}
		out.Old = &old
	}
	*u = out
	return nil
}

// ErrGroupSettingOldMismatch refuses a group-setting change whose "old"
// value is not the current one.
var ErrGroupSettingOldMismatch = errorf("'old' value does not match the expected value.")

// realmGroupSetting is one of the organization's group settings.
type realmGroupSetting struct {
	name string
	// defaultGroup is the system group that the zero value stands for.
	defaultGroup string
	rule         groupSettingRule
	field        func(*Realm) *GroupSetting
	update       func(*RealmUpdate) **GroupSettingUpdate
}

// realmGroupSettings is the table of the organization's group settings.
var realmGroupSettings = []realmGroupSetting{
	{"can_move_messages_between_channels_group", GroupMembers, groupSettingRule{},
		func(r *Realm) *GroupSetting { return &r.CanMoveMessagesBetweenChannelsGroup },
		func(u *RealmUpdate) **GroupSettingUpdate { return &u.CanMoveMessagesBetweenChannelsGroup }},
	{"can_move_messages_between_topics_group", GroupEveryone, groupSettingRule{allowEveryone: true},
		func(r *Realm) *GroupSetting { return &r.CanMoveMessagesBetweenTopicsGroup },
		func(u *RealmUpdate) **GroupSettingUpdate { return &u.CanMoveMessagesBetweenTopicsGroup }},
}

// value is the setting's value in r: the stored one, or the default
// group's ID.
func (st *realmGroupSetting) value(r *Realm, g *groups) GroupSetting {
	v := *st.field(r)
	if v.IsGroup() || len(v.Members)+len(v.Subgroups) > 0 {
		return v
	}
	return GroupSettingOf(g.id(st.defaultGroup))
}

// sameGroupSetting reports whether a and b name the same group, or the
// same members and subgroups.
func sameGroupSetting(a, b GroupSetting) bool {
	return a.GroupID == b.GroupID && slices.Equal(a.Members, b.Members) && slices.Equal(a.Subgroups, b.Subgroups)
}

// applyRealmGroups applies the group settings that req carries to realm and
// returns the changes.
func applyRealmGroups(tx storage.Tx, req *RealmUpdate, realm *Realm) ([]RealmSettingChange, error) {
	var g *groups
	var changes []RealmSettingChange
	for i := range realmGroupSettings {
		st := &realmGroupSettings[i]
		u := *st.update(req)
		if u == nil {
			continue
		}
		if g == nil {
			var err error
			if g, err = loadGroups(tx, realm.ID); err != nil {
				return nil, err
			}
		}
		current := st.value(realm, g)
		if u.Old != nil {
			old, err := checkGroupSetting(tx, g, realm.ID, st.name, *u.Old, groupSettingRule{allowEveryone: true})
			if err != nil {
				return nil, err
			}
			if !sameGroupSetting(old, current) {
				return nil, ErrGroupSettingOldMismatch
			}
		}
		v, err := checkGroupSetting(tx, g, realm.ID, st.name, u.New, st.rule)
		if err != nil {
			return nil, err
		}
		if sameGroupSetting(v, current) {
			continue
		}
		*st.field(realm) = v
		changes = append(changes, RealmSettingChange{Name: st.name, Value: v})
	}
	return changes, nil
}

// realmGroupState adds the organization's group settings to a register
// answer's realm block.
func realmGroupState(tx storage.Tx, r *Realm, state RegisterState) error {
	g, err := loadGroups(tx, r.ID)
	if err != nil {
		return err
	}
	for i := range realmGroupSettings {
		st := &realmGroupSettings[i]
		state["realm_"+st.name] = st.value(r, g)
	}
	return nil
}

// realmAllows reports whether the actor is in the organization's group
// setting with the name.
func (cc *channelContext) realmAllows(name string) bool {
	for i := range realmGroupSettings {
		if st := &realmGroupSettings[i]; st.name == name {
			return cc.g.allows(st.value(&cc.realm, cc.g), &cc.actor)
		}
	}
	return false
}
