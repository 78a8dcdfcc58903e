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
}

// GroupTx stores user groups.
type GroupTx interface {
	// CreateUserGroups stores the groups under new increasing IDs, in order,
	// and sets their IDs. It returns ErrExists, storing none, when a realm
	// would have two groups of the same name.
	CreateUserGroups(gs []*UserGroup) error
	// UserGroups returns the realm's groups ordered by ID.
	UserGroups(realmID int64) ([]UserGroup, error)
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
