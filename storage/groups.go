package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// UserGroup is a user group as stored. The members of a system group follow
// from the users' roles and are not stored: Members is empty for them.
type UserGroup struct {
	ID          int64
	RealmID     int64
	Name        string
	Description string
	IsSystem    bool
	// CreatorID is zero for system groups.
	CreatorID   int64
	DateCreated time.Time
	Deactivated bool
	// Members and Subgroups are the direct members and subgroups, sorted.
	Members   []int64
	Subgroups []int64
	// Settings are who may manage, join, leave, mention the group and
	// change its members.
	Settings UserGroupSettings
}

// UserGroupSettings are a user group's permission settings. A zero value
// stands for the setting's default, which the service resolves. The JSON
// form is how the SQL backends store them.
type UserGroupSettings struct {
	CanAddMembersGroup    GroupSetting `json:"can_add_members_group"`
	CanJoinGroup          GroupSetting `json:"can_join_group"`
	CanLeaveGroup         GroupSetting `json:"can_leave_group"`
	CanManageGroup        GroupSetting `json:"can_manage_group"`
	CanMentionGroup       GroupSetting `json:"can_mention_group"`
	CanRemoveMembersGroup GroupSetting `json:"can_remove_members_group"`
}

// Fields returns pointers to the settings, in the order of their names.
func (s *UserGroupSettings) Fields() []*GroupSetting {
	return []*GroupSetting{&s.CanAddMembersGroup, &s.CanJoinGroup, &s.CanLeaveGroup, &s.CanManageGroup,
		&s.CanMentionGroup, &s.CanRemoveMembersGroup}
}

// Clone returns s with its own lists.
func (s UserGroupSettings) Clone() UserGroupSettings {
	for _, f := range s.Fields() {
		*f = f.Clone()
	}
	return s
}

// normalise makes every empty anonymous setting the zero value, so that
// settings read back equal those stored.
func (s *UserGroupSettings) normalise() {
	for _, f := range s.Fields() {
		if !f.IsGroup() && len(f.Members)+len(f.Subgroups) == 0 {
			*f = GroupSetting{}
		}
	}
}

// ParseUserGroupSettings reads the JSON form of UserGroupSettings; empty
// text is the zero value.
func ParseUserGroupSettings(text string) (UserGroupSettings, error) {
	var s UserGroupSettings
	if text == "" {
		return s, nil
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return s, err
	}
	s.normalise()
	return s, nil
}

// GroupTx stores user groups.
type GroupTx interface {
	// CreateUserGroups stores the groups under new increasing IDs, in order,
	// and sets their IDs. It returns ErrExists, storing none, when a realm
	// would have two groups of the same name.
	CreateUserGroups(gs []*UserGroup) error
	// UserGroups returns the realm's groups ordered by ID.
	UserGroups(realmID int64) ([]UserGroup, error)
	// UpdateUserGroup replaces the stored group with g.ID (all but its
	// realm, IsSystem, creator and creation time), or returns ErrNotFound.
	// ErrExists as for CreateUserGroups.
	UpdateUserGroup(g UserGroup) error
}

// GroupSetting is a group-setting value: either a user group (GroupID not
// zero) or an anonymous group of direct members and subgroups. Its JSON form
// is the integer group ID or {"direct_members": [...], "direct_subgroups":
// [...]}.
type GroupSetting struct {
	GroupID   int64
	Members   []int64
	Subgroups []int64
}

// IsGroup reports whether the value names a user group.
func (v GroupSetting) IsGroup() bool { return v.GroupID != 0 }

// Clone returns v with its own slices.
func (v GroupSetting) Clone() GroupSetting {
	return GroupSetting{GroupID: v.GroupID, Members: slices.Clone(v.Members), Subgroups: slices.Clone(v.Subgroups)}
}

// MarshalJSON writes the integer or the object form; the lists are never
// null.
func (v GroupSetting) MarshalJSON() ([]byte, error) { return v.appendJSON(nil), nil }

func (v GroupSetting) appendJSON(b []byte) []byte {
	if v.IsGroup() {
		return strconv.AppendInt(b, v.GroupID, 10)
	}
	b = append(b, `{"direct_members":`...)
	b = AppendIDs(b, v.Members)
	b = append(b, `,"direct_subgroups":`...)
	b = AppendIDs(b, v.Subgroups)
	return append(b, '}')
}

// AppendIDs appends ids to b as a JSON array of integers.
func AppendIDs(b []byte, ids []int64) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, ']')
}

// UnmarshalJSON reads either form; errors name the value "value".
func (v *GroupSetting) UnmarshalJSON(data []byte) error {
	parsed, err := ParseGroupSetting("value", data)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}

// ParseGroupSetting decodes the JSON form of a group-setting value sent as
// the parameter name, with the reference server's error texts.
func ParseGroupSetting(name string, data []byte) (GroupSetting, error) {
	data = bytes.TrimSpace(data)
	// The forms that MarshalJSON writes, which are what the stores hold,
	// skip the decoder, which allocates: every channel listed has 7
	// settings.
	if id, ok := plainInt(data); ok {
		return GroupSetting{GroupID: id}, nil
	}
	if v, ok := canonicalGroupSetting(data); ok {
		return v, nil
	}
	if len(data) > 0 && data[0] == '{' {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return GroupSetting{}, errorf("%s is not valid JSON", name)
		}
		for key := range raw {
			if key != "direct_members" && key != "direct_subgroups" {
				return GroupSetting{}, errorf("Argument \"%s\" at %s is unexpected", key, name)
			}
		}
		var v GroupSetting
		for _, f := range []struct {
			key string
			dst *[]int64
		}{{"direct_members", &v.Members}, {"direct_subgroups", &v.Subgroups}} {
			r, ok := raw[f.key]
			if !ok {
				return GroupSetting{}, errorf("%s[\"%s\"] field is missing: Field required", name, f.key)
			}
			ids, err := intList(r)
			if err != nil {
				return GroupSetting{}, errorf("%s[\"%s\"] is not a list of integers", name, f.key)
			}
			slices.Sort(ids)
			*f.dst = slices.Compact(ids)
		}
		return v, nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return GroupSetting{}, errorf("%s is not an integer or a dict", name)
	}
	id, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return GroupSetting{}, errorf("%s is not an integer or a dict", name)
	}
	return GroupSetting{GroupID: id}, nil
}

// intList decodes a JSON array of integers (never null).
// canonicalGroupSetting reads the object form exactly as appendJSON
// writes it, with the IDs in plainInt's form; anything else is left to
// the decoder. The lists come out sorted and without duplicates, as the
// decoder's.
func canonicalGroupSetting(data []byte) (GroupSetting, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"direct_members":[`))
	if !ok {
		return GroupSetting{}, false
	}
	members, rest, ok := plainIntList(rest)
	if !ok {
		return GroupSetting{}, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"direct_subgroups":[`)); !ok {
		return GroupSetting{}, false
	}
	subgroups, rest, ok := plainIntList(rest)
	if !ok || string(rest) != "}" {
		return GroupSetting{}, false
	}
	slices.Sort(members)
	slices.Sort(subgroups)
	return GroupSetting{Members: slices.Compact(members), Subgroups: slices.Compact(subgroups)}, true
}

// plainIntList reads the integers of a JSON array whose "[" is already
// read, up to its "]", each in plainInt's form, and returns them (never
// nil) with what follows the array.
func plainIntList(data []byte) ([]int64, []byte, bool) {
	end := bytes.IndexByte(data, ']')
	if end < 0 {
		return nil, nil, false
	}
	out := []int64{}
	if end == 0 {
		return out, data[1:], true
	}
	for field := range bytes.SplitSeq(data[:end], []byte(",")) {
		n, ok := plainInt(field)
		if !ok {
			return nil, nil, false
		}
		out = append(out, n)
	}
	return out, data[end+1:], true
}

// plainInt reads data made of ASCII digits only (at most 18, so that it
// cannot overflow) as a non-negative integer. Anything else, a leading
// zero included (which the decoder reads as the JSON value 0 followed by
// more), is left to the decoder.
func plainInt(data []byte) (int64, bool) {
	if len(data) == 0 || len(data) > 18 || (data[0] == '0' && len(data) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range data {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func intList(data []byte) ([]int64, error) {
	var raw []json.Number
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, errorf("not a list")
	}
	out := make([]int64, len(raw))
	for i, n := range raw {
		id, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, errorf("not an integer")
		}
		out[i] = id
	}
	return out, nil
}

// errorf is fmt.Errorf for the texts of ParseGroupSetting, which the API
// shows its clients as they are.
func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }
