package chat

import (
	"context"
	"time"
)

// ClientCapabilities are the client_capabilities a client declares when it
// registers (PROTOCOL.md C1.2).
type ClientCapabilities struct {
	NotificationSettingsNull   bool `json:"notification_settings_null"`
	BulkMessageDeletion        bool `json:"bulk_message_deletion"`
	UserAvatarURLFieldOptional bool `json:"user_avatar_url_field_optional"`
	StreamTypingNotifications  bool `json:"stream_typing_notifications"`
	UserSettingsObject         bool `json:"user_settings_object"`
	LinkifierURLTemplate       bool `json:"linkifier_url_template"`
	UserListIncomplete         bool `json:"user_list_incomplete"`
	IncludeDeactivatedGroups   bool `json:"include_deactivated_groups"`
	ArchivedChannels           bool `json:"archived_channels"`
	EmptyTopicName             bool `json:"empty_topic_name"`
	SimplifiedPresenceEvents   bool `json:"simplified_presence_events"`
}

// NarrowTerm is one [operator, operand] pair of an event queue's narrow.
type NarrowTerm struct {
	Operator string
	Operand  string
}

// RegisterRequest holds the options of Register.
type RegisterRequest struct {
	// EventTypes are the event types the queue receives; nil means all.
	EventTypes []string
	// FetchEventTypes selects the blocks of initial state; nil means
	// EventTypes, and both nil means every block.
	FetchEventTypes    []string
	ClientCapabilities ClientCapabilities
	// ClientGravatar lets avatar URLs be null where the client computes
	// them (the HTTP default is true).
	ClientGravatar bool
	// ApplyMarkdown gives message events HTML content rather than the
	// Markdown source.
	ApplyMarkdown bool
	// Narrow restricts the message events of the queue (PROTOCOL.md C1.4).
	Narrow []NarrowTerm
	// QueueLifespan is how long the queue outlives its last request; zero
	// means the hub's default.
	QueueLifespan time.Duration
}

// RegisterState is the answer of Register: queue_id, last_event_id, the
// version keys, and the initial-state blocks asked for, keyed by their wire
// names.
type RegisterState map[string]any

// stateBlock adds one fetch type's keys to a register answer.
type stateBlock func(s *Service, tx Tx, v *viewer, req *RegisterRequest, state RegisterState) error

// stateBlocks are the initial-state blocks by fetch type. Areas add theirs
// here; unknown fetch types are ignored, as by the reference server.
var stateBlocks = map[string]stateBlock{
	"realm":      realmState,
	"realm_user": realmUserState,
	"message":    messageState,
}

// Register creates an event queue for the actor and returns it with the
// initial state the request asks for. The queue exists before the state is
// read, so no event is lost between the two; an event that the state
// already reflects may still arrive once. Any active user may call it.
//
// Errors: BAD_REQUEST "Operator {op} not supported." and "Operand {x} not
// supported." for a narrow the queue cannot apply, and those of Users.
func (s *Service) Register(ctx context.Context, actor int64, req RegisterRequest) (RegisterState, error) {
	if err := checkQueueNarrow(req.Narrow); err != nil {
		return nil, err
	}
	state := RegisterState{}
	var queueID string
	err := s.view(ctx, func(tx Tx) error {
		v, err := s.newViewer(tx, actor, UserQuery{ClientGravatar: req.ClientGravatar, IncludeCustomProfileFields: true})
		if err != nil {
			return err
		}
		queueID, err = s.hub.NewQueue(QueueOptions{
			UserID: actor, RealmID: v.realm.ID, EventTypes: req.EventTypes,
			StreamTypingNotifications: req.ClientCapabilities.StreamTypingNotifications,
			Lifespan:                  req.QueueLifespan,
			MessageFormat: MessageFormat{ApplyMarkdown: req.ApplyMarkdown, ClientGravatar: req.ClientGravatar,
				AllowEmptyTopicName: req.ClientCapabilities.EmptyTopicName},
			EmptyTopicName:      req.ClientCapabilities.EmptyTopicName,
			BulkMessageDeletion: req.ClientCapabilities.BulkMessageDeletion,
			Narrow:              req.Narrow,
		})
		if err != nil {
			return err
		}
		state["queue_id"] = queueID
		state["last_event_id"] = -1
		for k, val := range s.versionKeys() {
			state[k] = val
		}
		fetch := req.FetchEventTypes
		if fetch == nil {
			fetch = req.EventTypes
		}
		if fetch == nil {
			for name := range stateBlocks {
				fetch = append(fetch, name)
			}
		}
		for _, name := range fetch {
			if block, ok := stateBlocks[name]; ok {
				if err := block(s, tx, v, &req, state); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		if queueID != "" {
			s.hub.DeleteQueue(actor, queueID)
		}
		return nil, err
	}
	return state, nil
}

// checkQueueNarrow validates an event queue's narrow (PROTOCOL.md C1.4).
func checkQueueNarrow(narrow []NarrowTerm) error {
	for _, t := range narrow {
		switch t.Operator {
		case "channel", "stream", "topic", "sender":
		case "is":
			if t.Operand == "followed" {
				return errorf("Operand followed not supported.")
			}
		default:
			return errorf("Operator %s not supported.", t.Operator)
		}
	}
	return nil
}

// versionKeys are the version fields of every register answer, under the
// spec's names and the reference server's (PROTOCOL.md A1).
func (s *Service) versionKeys() map[string]any {
	return map[string]any{
		"service_feature_level": FeatureLevel, "zulip_feature_level": FeatureLevel,
		"service_version": s.cfg.ServiceVersion, "zulip_version": s.cfg.ServiceVersion,
		"service_merge_base": s.cfg.ServiceVersion, "zulip_merge_base": s.cfg.ServiceVersion,
	}
}

// Protocol constants of the register answer (PROTOCOL.md C1.5). The
// length limits are with the operations that enforce them.
const (
	MaxMessageLength                 = 10000
	typingStartedExpiryMilliseconds  = 45000
	typingStoppedWaitMilliseconds    = 12000
	typingStartedWaitMilliseconds    = 30000
	eventQueueLongpollTimeoutSeconds = 90
)

// ReportType is one reason for reporting a message.
type ReportType struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// ReportMessageTypes are the reasons a message can be reported for, in the
// reference server's order.
var ReportMessageTypes = []ReportType{
	{"spam", "Spam"},
	{"harassment", "Harassment"},
	{"inappropriate", "Inappropriate content"},
	{"norms", "Violates community norms"},
	{"other", "Other reason"},
}

// realmState is the "realm" block: the organization's settings and the
// server's limits.
func realmState(s *Service, _ Tx, v *viewer, _ *RegisterRequest, state RegisterState) error {
	r := v.realm
	for k, val := range map[string]any{
		"realm_name":                                       r.Name,
		"realm_description":                                renderPlainText(r.Description),
		"realm_url":                                        r.URL,
		"realm_uri":                                        r.URL,
		"realm_icon_url":                                   realmIconURL(r),
		"realm_date_created":                               r.DateCreated.Unix(),
		"realm_empty_topic_display_name":                   EmptyTopicDisplayName,
		"max_stream_name_length":                           MaxChannelNameLength,
		"max_stream_description_length":                    MaxChannelDescriptionLength,
		"max_topic_length":                                 MaxTopicLength,
		"max_message_length":                               MaxMessageLength,
		"max_channel_folder_name_length":                   MaxFolderNameLength,
		"max_channel_folder_description_length":            MaxFolderDescriptionLength,
		"max_bulk_new_subscription_messages":               maxBulkNewSubscriptionMessages,
		"max_file_upload_size_mib":                         s.cfg.MaxUploadMiB,
		"realm_upload_quota_mib":                           nil,
		"server_report_message_types":                      ReportMessageTypes,
		"server_typing_started_expiry_period_milliseconds": typingStartedExpiryMilliseconds,
		"server_typing_stopped_wait_period_milliseconds":   typingStoppedWaitMilliseconds,
		"server_typing_started_wait_period_milliseconds":   typingStartedWaitMilliseconds,
		"event_queue_longpoll_timeout_seconds":             eventQueueLongpollTimeoutSeconds,
		"password_min_length":                              minPasswordLength,
	} {
		state[k] = val
	}
	return nil
}

// realmUserState is the "realm_user" block: the organization's users and
// the requesting user's own fields.
func realmUserState(s *Service, tx Tx, v *viewer, _ *RegisterRequest, state RegisterState) error {
	records, err := tx.Users(v.realm.ID, nil)
	if err != nil {
		return err
	}
	active, inactive := listedUsers{}, listedUsers{}
	for i := range records {
		u := v.view(&records[i])
		if records[i].IsActive {
			active = append(active, u)
		} else {
			inactive = append(inactive, u)
		}
	}
	me := v.view(&v.user)
	avatar := gravatarURL(v.user.Email, v.user.AvatarVersion)
	state["realm_users"] = active
	state["realm_non_active_users"] = inactive
	state["cross_realm_bots"] = listedUsers{}
	state["user_id"] = me.UserID
	state["email"] = me.Email
	state["delivery_email"] = v.user.Email
	state["full_name"] = me.FullName
	state["is_admin"] = me.IsAdmin
	state["is_owner"] = me.IsOwner
	state["is_moderator"] = v.user.Role == RoleModerator
	state["is_guest"] = me.IsGuest
	state["avatar_source"] = v.user.AvatarSource
	state["avatar_url"] = avatar
	state["avatar_url_medium"] = avatar
	return nil
}

// listedUsers is a user list whose name tells whether its users are active,
// so its JSON form leaves is_active out (PROTOCOL.md C14.3).
type listedUsers []User

// AppendJSON appends the JSON array of the users, without is_active.
func (us listedUsers) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i := range us {
		if i > 0 {
			b = append(b, ',')
		}
		b = us[i].appendJSON(b, false)
	}
	return append(b, ']')
}

// MarshalJSON encodes the list as a JSON array.
func (us listedUsers) MarshalJSON() ([]byte, error) { return us.AppendJSON(nil), nil }
