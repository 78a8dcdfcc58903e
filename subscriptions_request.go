package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// ChannelSpec names a channel to subscribe to, with the description it gets
// when the request creates it.
type ChannelSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Principals names users by ID or by API email address. Its JSON form is an
// array of integers or an array of strings, never mixed.
type Principals struct {
	IDs    []int64
	Emails []string
}

// ErrInvalidPrincipals answers a principals list that is neither all
// integers nor all strings.
var ErrInvalidPrincipals = &Error{Code: CodeBadRequest, Msg: "principals is not a list of integers or a list of strings"}

// UnmarshalJSON reads either form.
func (p *Principals) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return errorf("principals is not a list")
	}
	var out Principals
	for _, r := range raw {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '"' {
			var s string
			if json.Unmarshal(r, &s) != nil || out.IDs != nil {
				return ErrInvalidPrincipals
			}
			out.Emails = append(out.Emails, s)
			continue
		}
		id, err := strconv.ParseInt(string(r), 10, 64)
		if err != nil || out.Emails != nil {
			return ErrInvalidPrincipals
		}
		out.IDs = append(out.IDs, id)
	}
	if out.IDs == nil && out.Emails == nil {
		out.IDs = []int64{}
	}
	*p = out
	return nil
}

// MarshalJSON writes the IDs, or the emails when there are no IDs.
func (p Principals) MarshalJSON() ([]byte, error) {
	if p.Emails != nil {
		return json.Marshal(p.Emails)
	}
	return storage.AppendIDs(nil, p.IDs), nil
}

// empty reports whether the list names nobody.
func (p *Principals) empty() bool { return len(p.IDs) == 0 && len(p.Emails) == 0 }

// RetentionDays is a message retention setting: a positive number of days,
// or (Days 0) the organization's setting, or (Days -1) unlimited. Its JSON
// form is the integer or the string "realm_default" or "unlimited".
type RetentionDays struct{ Days int }

// MarshalJSON writes the wire form.
func (r RetentionDays) MarshalJSON() ([]byte, error) {
	switch r.Days {
	case storage.RetentionRealmDefault:
		return []byte(`"realm_default"`), nil
	case storage.RetentionUnlimited:
		return []byte(`"unlimited"`), nil
	}
	return strconv.AppendInt(nil, int64(r.Days), 10), nil
}

// UnmarshalJSON reads the wire form; anything else is the
// REQUEST_VARIABLE_INVALID error of the reference server.
func (r *RetentionDays) UnmarshalJSON(data []byte) error {
	bad := &Error{Code: CodeRequestVariableInvalid,
		Msg: "Bad value for 'message_retention_days': " + strings.Trim(string(data), `"`)}
	var s string
	if json.Unmarshal(data, &s) == nil {
		switch s {
		case "realm_default":
			r.Days = storage.RetentionRealmDefault
		case "unlimited":
			r.Days = storage.RetentionUnlimited
		default:
			return bad
		}
		return nil
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(data)))
	if err != nil || n <= 0 {
		return bad
	}
	r.Days = n
	return nil
}

// SubscribeRequest is a request to subscribe users to channels, creating
// the channels that do not exist. The fields after Announce apply only to
// channels the request creates. Nil pointers take the documented defaults.
type SubscribeRequest struct {
	Subscriptions []ChannelSpec
	// Principals are the users to subscribe; nil means the actor.
	Principals *Principals
	// AuthorizationErrorsFatal defaults to true.
	AuthorizationErrorsFatal *bool
	Announce                 bool
	InviteOnly               bool
	IsWebPublic              bool
	IsDefaultStream          bool
	// HistoryPublicToSubscribers defaults to true for public channels and
	// false for private ones; public channels always have it.
	HistoryPublicToSubscribers *bool
	MessageRetentionDays       *RetentionDays
	TopicsPolicy               *TopicsPolicy
	FolderID                   *int64
	CanAddSubscribersGroup     *GroupSetting
	CanRemoveSubscribersGroup  *GroupSetting
	CanAdministerChannelGroup  *GroupSetting
	CanDeleteAnyMessageGroup   *GroupSetting
	CanDeleteOwnMessageGroup   *GroupSetting
	CanSendMessageGroup        *GroupSetting
	CanSubscribeGroup          *GroupSetting
	// SendNewSubscriptionMessages defaults to true.
	SendNewSubscriptionMessages *bool
}

// SubscribeResult is the answer of Subscribe. The maps are keyed by user ID
// in decimal and list channel names.
type SubscribeResult struct {
	Subscribed        map[string][]string
	AlreadySubscribed map[string][]string
	// Unauthorized lists the channels the actor could not access; it is
	// nil unless the request set AuthorizationErrorsFatal to false.
	Unauthorized []string
	// NewSubscriptionMessagesSent is nil when the request turned the
	// messages off.
	NewSubscriptionMessagesSent *bool
}

// resolvePrincipals reads the users named by p, all or nothing. Emails
// name users by placeholder address or by a real address that viewer may
// see.
func resolvePrincipals(tx storage.Tx, realmID int64, viewer *storage.UserRecord, p *Principals) ([]storage.UserRecord, error) {
	var out []storage.UserRecord
	if p.Emails != nil {
		for _, email := range p.Emails {
			u, err := tx.UserByEmail(realmID, email)
			if err == nil && !emailVisibleTo(viewer, &u) {
				err = storage.ErrNotFound
			}
			if errors.Is(err, storage.ErrNotFound) {
				if id, ok := placeholderIDAny(email); ok {
					u, err = targetUser(tx, realmID, id)
				} else {
					err = ErrNoSuchUser
				}
			}
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
	} else {
		users, err := tx.Users(realmID, p.IDs)
		if err != nil {
			return nil, err
		}
		byID := make(map[int64]int, len(users))
		for i := range users {
			byID[users[i].ID] = i
		}
		for _, id := range p.IDs {
			i, ok := byID[id]
			if !ok {
				return nil, ErrNoSuchUser
			}
			out = append(out, users[i])
		}
	}
	seen := make(map[int64]bool, len(out))
	uniq := out[:0]
	for _, u := range out {
		if !u.IsActive {
			return nil, ErrUserDeactivated
		}
		if !seen[u.ID] {
			seen[u.ID] = true
			uniq = append(uniq, u)
		}
	}
	return uniq, nil
}

// placeholderIDAny extracts the ID of a placeholder address user{id}@...
func placeholderIDAny(email string) (int64, bool) {
	local, _, ok := strings.Cut(email, "@")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutPrefix(local, "user")
	if !ok || digits == "" || !allDigits(digits) {
		return 0, false
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	return id, err == nil
}

// listOfDicts decodes the JSON list of objects of the parameter name,
// with the reference's texts: "{name} is not a list", or "{name}[i] is not
// a dict" for the first element that is no object.
func listOfDicts(name string, data []byte) ([]map[string]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || items == nil {
		return nil, errorf("%s is not a list", name)
	}
	out := make([]map[string]json.RawMessage, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item, &out[i]); err != nil || out[i] == nil {
			return nil, errorf("%s[%d] is not a dict", name, i)
		}
	}
	return out, nil
}

// DecodeChannelSpecs decodes the subscriptions parameter of a subscribe
// request: an array of {"name", "description"?, "color"?} objects (other
// keys are tolerated), with the reference server's texts.
func DecodeChannelSpecs(data []byte) ([]ChannelSpec, error) {
	raw, err := listOfDicts("subscriptions", data)
	if err != nil {
		return nil, err
	}
	out := make([]ChannelSpec, len(raw))
	for i, obj := range raw {
		where := "subscriptions[" + strconv.Itoa(i) + "]"
		name, ok := obj["name"]
		if !ok {
			return nil, errorf(`%s["name"] field is missing: Field required`, where)
		}
		if json.Unmarshal(name, &out[i].Name) != nil {
			return nil, errorf(`%s["name"] is not a string`, where)
		}
		if d, ok := obj["description"]; ok && json.Unmarshal(d, &out[i].Description) != nil {
			return nil, errorf(`%s["description"] is not a string`, where)
		}
		if c, ok := obj["color"]; ok {
			var color string
			if json.Unmarshal(c, &color) != nil || !validColor(color) {
				return nil, errorf("Invalid %s: Value error, add.color is not a valid hex color code", where)
			}
		}
	}
	return out, nil
}
