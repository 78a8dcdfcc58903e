package storage

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// RealmSettings are the organization settings that administrators change
// with PATCH /realm and that operations read. They are part of Realm.
type RealmSettings struct {
	// EmailsRestrictedToDomains limits new users to the addresses of the
	// organization's allowed domains (see RealmDomain).
	EmailsRestrictedToDomains bool
	// DisallowDisposableEmailAddresses refuses new users whose address is
	// at a disposable-mail domain, when domains are not restricted.
	DisallowDisposableEmailAddresses bool
	AllowMessageEditing              bool
	// MessageContentEditLimitSeconds and MessageContentDeleteLimitSeconds
	// bound how long after sending a message its sender may edit or delete
	// it; zero means no limit.
	MessageContentEditLimitSeconds   TimeLimit
	MessageContentDeleteLimitSeconds TimeLimit
	TopicsPolicy                     TopicsPolicy
	// DefaultLanguage is a language code of the Languages list.
	DefaultLanguage string
	// DefaultCodeBlockLanguage is the language of the code blocks whose
	// fence names none ("" for none), as highlighting reads it.
	DefaultCodeBlockLanguage string
	// VideoChatProvider is the ID of the video-call provider that clients
	// offer: VideoChatDisabled or the ID of Config.VideoCalls.
	VideoChatProvider int64
	// EnableSpectatorAccess lets people without an account read the
	// organization's web-public channels.
	EnableSpectatorAccess bool
	// WaitingPeriodThreshold is how many days a new member waits before
	// the permissions of "full members" apply.
	WaitingPeriodThreshold int64
	// InviteRequired makes joining take an invitation.
	InviteRequired bool
	// SendChannelEventsMessages makes the service post notices about
	// channel changes.
	SendChannelEventsMessages bool
	// MoveMessagesWithinStreamLimitSeconds and
	// MoveMessagesBetweenStreamsLimitSeconds bound how long after sending
	// a message users below moderator may move it to another topic or
	// channel; zero means no limit.
	MoveMessagesWithinStreamLimitSeconds   TimeLimit
	MoveMessagesBetweenStreamsLimitSeconds TimeLimit
	// MessageEditHistoryVisibilityPolicy says which edit history users
	// see.
	MessageEditHistoryVisibilityPolicy EditHistoryPolicy
	// CanMoveMessagesBetweenTopicsGroup and
	// CanMoveMessagesBetweenChannelsGroup are who may move messages to
	// another topic and to another channel. The zero value stands for the
	// reference's defaults (role:everyone and role:members), which the
	// service resolves: the groups do not exist before the organization.
	CanMoveMessagesBetweenTopicsGroup   GroupSetting
	CanMoveMessagesBetweenChannelsGroup GroupSetting
}

// Clone returns s with its own group-setting lists.
func (s RealmSettings) Clone() RealmSettings {
	s.CanMoveMessagesBetweenTopicsGroup = s.CanMoveMessagesBetweenTopicsGroup.Clone()
	s.CanMoveMessagesBetweenChannelsGroup = s.CanMoveMessagesBetweenChannelsGroup.Clone()
	return s
}

// EditHistoryPolicy says which part of messages' edit history users see.
type EditHistoryPolicy string

// The edit history policies.
const (
	EditHistoryAll   EditHistoryPolicy = "all"
	EditHistoryMoves EditHistoryPolicy = "moves"
	EditHistoryNone  EditHistoryPolicy = "none"
)

// UnmarshalJSON accepts the JSON string of a policy.
func (p *EditHistoryPolicy) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch v := EditHistoryPolicy(s); v {
	case EditHistoryAll, EditHistoryMoves, EditHistoryNone:
		*p = v
		return nil
	}
	return errInvalidEnum
}

// Default setting values, as the reference server gives new organizations.
const (
	// DefaultMessageTimeLimit is the default edit and delete limit: ten
	// minutes.
	DefaultMessageTimeLimit TimeLimit = 600
	// VideoChatDisabled is the VideoChatProvider value that turns video
	// calls off.
	VideoChatDisabled int64 = 0
	// MaxRealmDescriptionLength is the reference server's limit.
	MaxRealmDescriptionLength = 1000
)

// TimeLimit is a time limit in whole seconds; zero means no limit. Its JSON
// form is the number, or null for no limit.
type TimeLimit int64

// Duration is the limit as a duration; zero for no limit.
func (t TimeLimit) Duration() time.Duration { return time.Duration(t) * time.Second }

// MarshalJSON writes null for no limit and the number of seconds otherwise.
func (t TimeLimit) MarshalJSON() ([]byte, error) {
	if t == 0 {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(t), 10), nil
}

// errInvalidEnum is what UnmarshalJSON methods of enumerations return; the
// HTTP adapter reports it as "Invalid {name}".
var errInvalidEnum = errors.New("chat: not one of the possible values")

// UnmarshalJSON accepts the JSON string of a known policy; which ones a
// setting allows is the setting's own check.
func (p *TopicsPolicy) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if v := TopicsPolicy(s); v.Valid() {
		*p = v
		return nil
	}
	return errInvalidEnum
}
