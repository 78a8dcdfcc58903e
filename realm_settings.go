package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// DefaultRealmSettings returns the settings of a new organization.
func DefaultRealmSettings() RealmSettings {
	return RealmSettings{
		DisallowDisposableEmailAddresses: true,
		AllowMessageEditing:              true,
		MessageContentEditLimitSeconds:   DefaultMessageTimeLimit,
		MessageContentDeleteLimitSeconds: DefaultMessageTimeLimit,
		TopicsPolicy:                     TopicsAllowEmpty,
		DefaultLanguage:                  "en",
		VideoChatProvider:                VideoChatJitsiMeet,
		InviteRequired:                   true,
		SendChannelEventsMessages:        true,
		// A week, as the reference's defaults.
		MoveMessagesWithinStreamLimitSeconds:   7 * 24 * 3600,
		MoveMessagesBetweenStreamsLimitSeconds: 7 * 24 * 3600,
		MessageEditHistoryVisibilityPolicy:     EditHistoryAll,
	}
}

// Unlimited is the TimeLimitValue that removes a time limit.
var Unlimited = TimeLimitValue{Word: "unlimited"}

// TimeLimitValue is a requested time-limit setting as clients send it: a
// JSON integer of seconds or a JSON string naming a special value (only
// "unlimited" is one). It is checked by the operation that reads it, which
// knows the setting's name for its error message.
type TimeLimitValue struct {
	Seconds int64
	// Word is the string sent instead of a number; empty for a number.
	Word string
}

// Seconds returns the TimeLimitValue of a limit of n seconds.
func Seconds(n int64) TimeLimitValue { return TimeLimitValue{Seconds: n} }

// UnmarshalJSON accepts a JSON integer or a JSON string.
func (v *TimeLimitValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*v = TimeLimitValue{}
		return json.Unmarshal(b, &v.Word)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var n json.Number
	if err := dec.Decode(&n); err != nil {
		return err
	}
	i, err := n.Int64()
	if err != nil {
		return err
	}
	*v = TimeLimitValue{Seconds: i}
	return nil
}

// MarshalJSON writes the value as it was sent.
func (v TimeLimitValue) MarshalJSON() ([]byte, error) {
	if v.Word != "" {
		return json.Marshal(v.Word)
	}
	return strconv.AppendInt(nil, v.Seconds, 10), nil
}

// limit converts a requested value to a TimeLimit:
// "unlimited" or a positive number of seconds; anything else is a
// REQUEST_VARIABLE_INVALID error naming the setting.
func (v TimeLimitValue) limit(name string) (TimeLimit, error) {
	switch {
	case v.Word == "unlimited":
		return 0, nil
	case v.Word != "":
		return 0, badValue(name, v.Word)
	case v.Seconds <= 0:
		return 0, badValue(name, strconv.FormatInt(v.Seconds, 10))
	}
	return TimeLimit(v.Seconds), nil
}

// badValue is the reference server's error for a value it cannot convert.
func badValue(name, value string) *Error {
	return &Error{Code: CodeRequestVariableInvalid, Msg: "Bad value for '" + name + "': " + value}
}

// Languages are the language codes that default_language accepts: the
// languages the reference server's interface is translated into.
var Languages = []string{
	"ar", "be", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "en_GB", "eo", "es", "fa", "fi",
	"fr", "gl", "gu", "hi", "hu", "id", "it", "ja", "ko", "lt", "lv", "ml", "mn", "nl", "no", "pa",
	"pl", "pt", "pt_BR", "pt_PT", "ro", "ru", "si", "sk", "sr", "sv", "ta", "te", "tl", "tr", "uk",
	"uz", "vi", "zh-hans", "zh-hant", "zh_TW",
}

// RealmUpdate is a request to change organization settings: only the
// fields that are not nil are changed. See UpdateRealm.
type RealmUpdate struct {
	Name                             *string
	Description                      *string
	EmailsRestrictedToDomains        *bool
	DisallowDisposableEmailAddresses *bool
	AllowMessageEditing              *bool
	MessageContentEditLimitSeconds   *TimeLimitValue
	MessageContentDeleteLimitSeconds *TimeLimitValue
	TopicsPolicy                     *TopicsPolicy
	DefaultLanguage                  *string
	// DefaultCodeBlockLanguage is the language of code blocks whose fence
	// names none; "" for none.
	DefaultCodeBlockLanguage  *string
	VideoChatProvider         *int64
	EnableSpectatorAccess     *bool
	WaitingPeriodThreshold    *int64
	InviteRequired            *bool
	SendChannelEventsMessages *bool
	// MoveMessagesWithinStreamLimitSeconds and
	// MoveMessagesBetweenStreamsLimitSeconds are the time limits of moves.
	MoveMessagesWithinStreamLimitSeconds   *TimeLimitValue
	MoveMessagesBetweenStreamsLimitSeconds *TimeLimitValue
	// MessageEditHistoryVisibilityPolicy is which edit history users see.
	MessageEditHistoryVisibilityPolicy *EditHistoryPolicy
	// CanMoveMessagesBetweenChannelsGroup and
	// CanMoveMessagesBetweenTopicsGroup change who may move messages.
	CanMoveMessagesBetweenChannelsGroup *GroupSettingUpdate
	CanMoveMessagesBetweenTopicsGroup   *GroupSettingUpdate
	// Channels are the announcement and moderation request channels; an
	// ID of -1 (or 0) clears one.
	Channels RealmChannels
}

// RealmUpdateParam names one field of a RealmUpdate by its wire name. Dest
// points at the field: a **string (a plain-text parameter), **bool,
// **int64, or **T for a type T whose pointer implements json.Unmarshaler
// (JSON-encoded parameters).
type RealmUpdateParam struct {
	Name string
	Dest any
}

// Params lists the fields of u by wire name, in the order the settings are
// read, so that a decoder can fill u from request parameters.
func (u *RealmUpdate) Params() []RealmUpdateParam {
	out := make([]RealmUpdateParam, len(realmSettings), len(realmSettings)+len(realmGroupSettings)+4)
	for i, st := range realmSettings {
		out[i] = RealmUpdateParam{Name: st.name, Dest: st.dest(u)}
	}
	for _, st := range realmGroupSettings {
		out = append(out, RealmUpdateParam{Name: st.name, Dest: st.update(u)})
	}
	return append(out,
		RealmUpdateParam{"new_stream_announcements_stream_id", &u.Channels.NewStreamAnnouncementsStreamID},
		RealmUpdateParam{"signup_announcements_stream_id", &u.Channels.SignupAnnouncementsStreamID},
		RealmUpdateParam{"zulip_update_announcements_stream_id", &u.Channels.ZulipUpdateAnnouncementsStreamID},
		RealmUpdateParam{"moderation_request_channel_id", &u.Channels.ModerationRequestChannelID},
	)
}

// realmSetting is one row of the table of settings that UpdateRealm
// changes.
type realmSetting struct {
	name string
	// ownerOnly settings take an owner even to be sent unchanged.
	ownerOnly bool
	// dest returns a pointer to the request's field.
	dest func(*RealmUpdate) any
	// sent reports whether the request carries the setting.
	sent func(*RealmUpdate) bool
	// apply checks the requested value and stores it in r, reporting the
	// new value when it differs from the old one.
	apply func(s *Service, u *RealmUpdate, r *Realm) (value any, changed bool, err error)
	// get returns the stored value, as the register answer shows it.
	get func(r *Realm) any
}

// setting builds a row: in selects the request field (holding a T), field
// the stored value (an S) and check turns the one into the other.
func setting[T any, S comparable](name string, ownerOnly bool, in func(*RealmUpdate) **T,
	field func(*Realm) *S, check func(s *Service, name string, v T) (S, error)) realmSetting {
	return realmSetting{
		name:      name,
		ownerOnly: ownerOnly,
		dest:      func(u *RealmUpdate) any { return in(u) },
		sent:      func(u *RealmUpdate) bool { return *in(u) != nil },
		get:       func(r *Realm) any { return *field(r) },
		apply: func(s *Service, u *RealmUpdate, r *Realm) (any, bool, error) {
			v, err := check(s, name, **in(u))
			if err != nil {
				return nil, false, err
			}
			f := field(r)
			if *f == v {
				return nil, false, nil
			}
			*f = v
			return v, true, nil
		},
	}
}

// same accepts any value.
func same[T any](_ *Service, _ string, v T) (T, error) { return v, nil }

// realmSettings is the table of settings, in the order they are checked
// and echoed. A new setting is one field of RealmSettings, one of
// RealmUpdate and one row here.
var realmSettings = []realmSetting{
	setting("name", false, func(u *RealmUpdate) **string { return &u.Name },
		func(r *Realm) *string { return &r.Name }, checkRealmName),
	setting("description", false, func(u *RealmUpdate) **string { return &u.Description },
		func(r *Realm) *string { return &r.Description }, checkRealmDescription),
	setting("emails_restricted_to_domains", true, func(u *RealmUpdate) **bool { return &u.EmailsRestrictedToDomains },
		func(r *Realm) *bool { return &r.EmailsRestrictedToDomains }, same[bool]),
	setting("disallow_disposable_email_addresses", true, func(u *RealmUpdate) **bool { return &u.DisallowDisposableEmailAddresses },
		func(r *Realm) *bool { return &r.DisallowDisposableEmailAddresses }, same[bool]),
	setting("allow_message_editing", false, func(u *RealmUpdate) **bool { return &u.AllowMessageEditing },
		func(r *Realm) *bool { return &r.AllowMessageEditing }, same[bool]),
	setting("message_content_edit_limit_seconds", false, func(u *RealmUpdate) **TimeLimitValue { return &u.MessageContentEditLimitSeconds },
		func(r *Realm) *TimeLimit { return &r.MessageContentEditLimitSeconds }, checkTimeLimit),
	setting("message_content_delete_limit_seconds", false, func(u *RealmUpdate) **TimeLimitValue { return &u.MessageContentDeleteLimitSeconds },
		func(r *Realm) *TimeLimit { return &r.MessageContentDeleteLimitSeconds }, checkTimeLimit),
	setting("topics_policy", false, func(u *RealmUpdate) **TopicsPolicy { return &u.TopicsPolicy },
		func(r *Realm) *TopicsPolicy { return &r.TopicsPolicy }, checkTopicsPolicy),
	setting("default_language", false, func(u *RealmUpdate) **string { return &u.DefaultLanguage },
		func(r *Realm) *string { return &r.DefaultLanguage }, checkLanguage),
	setting("default_code_block_language", false, func(u *RealmUpdate) **string { return &u.DefaultCodeBlockLanguage },
		func(r *Realm) *string { return &r.DefaultCodeBlockLanguage }, checkCodeBlockLanguage),
	setting("video_chat_provider", false, func(u *RealmUpdate) **int64 { return &u.VideoChatProvider },
		func(r *Realm) *int64 { return &r.VideoChatProvider }, (*Service).checkVideoChatProvider),
	setting("enable_spectator_access", false, func(u *RealmUpdate) **bool { return &u.EnableSpectatorAccess },
		func(r *Realm) *bool { return &r.EnableSpectatorAccess }, same[bool]),
	setting("waiting_period_threshold", true, func(u *RealmUpdate) **int64 { return &u.WaitingPeriodThreshold },
		func(r *Realm) *int64 { return &r.WaitingPeriodThreshold }, checkNonNegative),
	setting("invite_required", true, func(u *RealmUpdate) **bool { return &u.InviteRequired },
		func(r *Realm) *bool { return &r.InviteRequired }, same[bool]),
	setting("send_channel_events_messages", false, func(u *RealmUpdate) **bool { return &u.SendChannelEventsMessages },
		func(r *Realm) *bool { return &r.SendChannelEventsMessages }, same[bool]),
	setting("move_messages_within_stream_limit_seconds", false,
		func(u *RealmUpdate) **TimeLimitValue { return &u.MoveMessagesWithinStreamLimitSeconds },
		func(r *Realm) *TimeLimit { return &r.MoveMessagesWithinStreamLimitSeconds }, checkTimeLimit),
	setting("move_messages_between_streams_limit_seconds", false,
		func(u *RealmUpdate) **TimeLimitValue { return &u.MoveMessagesBetweenStreamsLimitSeconds },
		func(r *Realm) *TimeLimit { return &r.MoveMessagesBetweenStreamsLimitSeconds }, checkTimeLimit),
	setting("message_edit_history_visibility_policy", false,
		func(u *RealmUpdate) **EditHistoryPolicy { return &u.MessageEditHistoryVisibilityPolicy },
		func(r *Realm) *EditHistoryPolicy { return &r.MessageEditHistoryVisibilityPolicy }, same[EditHistoryPolicy]),
}

func checkRealmName(_ *Service, name, v string) (string, error) {
	switch {
	case strings.TrimSpace(v) == "":
		return "", errorf("%s cannot be blank", name)
	case utf8.RuneCountInString(v) > maxRealmNameLength:
		return "", errorf("%s is too long (limit: %d characters)", name, maxRealmNameLength)
	}
	return v, nil
}

func checkRealmDescription(_ *Service, name, v string) (string, error) {
	if utf8.RuneCountInString(v) > storage.MaxRealmDescriptionLength {
		return "", errorf("%s is too long (limit: %d characters)", name, storage.MaxRealmDescriptionLength)
	}
	return v, nil
}

func checkTimeLimit(_ *Service, name string, v TimeLimitValue) (TimeLimit, error) {
	return v.limit(name)
}

func checkTopicsPolicy(_ *Service, name string, v TopicsPolicy) (TopicsPolicy, error) {
	if v != TopicsAllowEmpty && v != TopicsDisableEmpty {
		return "", errorf("Invalid %s", name)
	}
	return v, nil
}

func checkLanguage(_ *Service, _ string, v string) (string, error) {
	if !slices.Contains(Languages, v) {
		return "", errorf("Invalid language '%s'", v)
	}
	return v, nil
}

// maxCodeBlockLanguageLength bounds default_code_block_language, which
// the reference takes as any text; the longest alias of a language is far
// shorter.
const maxCodeBlockLanguageLength = 100

func checkCodeBlockLanguage(_ *Service, name, v string) (string, error) {
	if utf8.RuneCountInString(v) > maxCodeBlockLanguageLength {
		return "", errorf("%s is too long (limit: %d characters)", name, maxCodeBlockLanguageLength)
	}
	return v, nil
}

func checkNonNegative(_ *Service, name string, v int64) (int64, error) {
	if v < 0 {
		return 0, errorf("%s is too small", name)
	}
	return v, nil
}

// checkVideoChatProvider accepts VideoChatDisabled and the ID of the
// configured provider.
func (s *Service) checkVideoChatProvider(_ string, v int64) (int64, error) {
	if v == VideoChatDisabled || (s.cfg.VideoCalls != nil && v == s.cfg.VideoCalls.ID()) {
		return v, nil
	}
	return 0, errorf("Invalid video_chat_provider %d", v)
}

// RealmSettingChange is one changed setting: its wire name and new value.
type RealmSettingChange struct {
	Name  string
	Value any
}

// UpdateRealm changes the organization settings that req carries and
// returns those whose value changed, in the order of the settings table
// (the echo of PATCH /realm). Each change is announced to every active user
// with a realm/update event. Administrators may call it; the settings that
// decide who may join (emails_restricted_to_domains,
// disallow_disposable_email_addresses, waiting_period_threshold,
// invite_required) take an owner.
//
// Errors, in the order they are checked: ErrMustBeAdmin; ErrMustBeOwner;
// then per setting: "{name} cannot be blank", "{name} is too long (limit: N
// characters)", REQUEST_VARIABLE_INVALID "Bad value for '{name}': {value}"
// for a time limit that is neither positive nor "unlimited", "Invalid
// topics_policy", "Invalid language '{code}'", "Invalid video_chat_provider
// {id}", "waiting_period_threshold is too small"; then for the channel
// settings ErrInvalidChannelID and ErrModerationChannelPublic; then for the
// group settings (can_move_messages_between_channels_group,
// can_move_messages_between_topics_group) ErrGroupSettingOldMismatch,
// "Invalid user group ID: {id}", "Invalid user ID: {id}" and "'{name}'
// setting cannot be set to 'role:…' group.".
func (s *Service) UpdateRealm(ctx context.Context, actor Actor, req RealmUpdate) ([]RealmSettingChange, error) {
	var changes []RealmSettingChange
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		changes = nil
		u, realm, err := s.admit(tx, actor, OpUpdateRealm)
		if err != nil {
			return err
		}
		for _, st := range realmSettings {
			if st.ownerOnly && st.sent(&req) && u.Role != RoleOwner {
				return ErrMustBeOwner
			}
		}
		for _, st := range realmSettings {
			if !st.sent(&req) {
				continue
			}
			v, changed, err := st.apply(s, &req, &realm)
			if err != nil {
				return err
			}
			if changed {
				changes = append(changes, RealmSettingChange{Name: st.name, Value: v})
			}
		}
		channelChanges, err := s.applyRealmChannels(tx, actor, req.Channels, &realm)
		if err != nil {
			return err
		}
		changes = append(changes, channelChanges...)
		groupChanges, err := applyRealmGroups(tx, &req, &realm)
		if err != nil {
			return err
		}
		changes = append(changes, groupChanges...)
		if len(changes) == 0 {
			return nil
		}
		if err := tx.UpdateRealm(realm); err != nil {
			return err
		}
		return emitRealmUpdates(tx, emit, realm.ID, changes)
	})
	return changes, err
}

// emitRealmUpdates emits one realm/update event per changed setting to the
// realm's active users; a group setting's is realm/update_dict, as the
// reference sends it.
func emitRealmUpdates(_ storage.Tx, emit func(Event), realmID int64, changes []RealmSettingChange) error {
	for _, c := range changes {
		if _, ok := c.Value.(GroupSetting); ok {
			emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{
				"type": "realm", "op": "update_dict", "property": "default", "data": map[string]any{c.Name: c.Value},
			}})
			continue
		}
		emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{
			"type": "realm", "op": "update", "property": c.Name, "value": c.Value,
		}})
	}
	return nil
}
