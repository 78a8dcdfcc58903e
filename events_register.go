package chat

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// ClientCapabilities are the client_capabilities a client declares when it
// registers.
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
	// Narrow restricts the message events of the queue.
	Narrow []NarrowTerm
	// SlimPresence asks for presences by user ID, each with its
	// active_timestamp and idle_timestamp, instead of by email in the
	// legacy form.
	SlimPresence bool
	// PresenceHistoryLimitDays bounds how long ago a user may have been
	// connected and still be listed; nil means 14 days.
	PresenceHistoryLimitDays *int
	// QueueLifespan is how long the queue outlives its last request; zero
	// means the hub's default, and more than MaxQueueLifespan is capped
	// (QueueLifespanSeconds converts the HTTP parameter).
	QueueLifespan time.Duration
}

// RegisterState is the answer of Register: queue_id, last_event_id, the
// version keys, and the initial-state blocks asked for, keyed by their wire
// names.
type RegisterState map[string]any

// stateBlock adds one fetch type's keys to a register answer. Each block
// reads in transactions of its own, after the queue exists.
type stateBlock func(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error

// stateBlocks are the initial-state blocks by fetch type.
// Unknown fetch types are ignored, as by the reference server.
var stateBlocks = map[string]stateBlock{
	"realm":                        realmState,
	"realm_user":                   realmUserState,
	"subscription":                 subscriptionState,
	"stream":                       streamState,
	"custom_profile_fields":        profileFieldState,
	"user_status":                  userStatusState,
	"realm_linkifiers":             linkifierState,
	"realm_filters":                legacyFilterState,
	"realm_domains":                realmDomainState,
	"realm_user_groups":            userGroupState,
	"realm_user_settings_defaults": userSettingsDefaultsState,
	"channel_folders":              channelFolderState,
	"user_topic":                   userTopicState,
	"muted_topics":                 mutedTopicState,
	"default_streams":              defaultStreamState,
	"video_calls":                  videoCallState,
	"message":                      messageState,
	"update_message_flags":         unreadState,
	"starred_messages":             starredState,
	"user_settings":                userSettingsState,
	"realm_emoji":                  realmEmojiState,
	"presence":                     presenceRegisterState,
}

// Register creates an event queue for the actor and returns it with the
// initial state the request asks for. The queue exists before the state is
// read, so no event is lost between the two; an event that the state
// already reflects may still arrive once. Any active user may call it.
//
// Errors: BAD_REQUEST "Operator {op} not supported." and "Operand {x} not
// supported." for a narrow the queue cannot apply, and those of Users.
func (s *Service) Register(ctx context.Context, actor Actor, req RegisterRequest) (RegisterState, error) {
	if err := checkQueueNarrow(req.Narrow); err != nil {
		return nil, err
	}
	var realmID int64
	if err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		realmID = realm.ID
		return err
	}); err != nil {
		return nil, err
	}
	queueID, err := s.hub.NewQueue(QueueOptions{
		UserID: actor.UserID(), RealmID: realmID, EventTypes: req.EventTypes,
		StreamTypingNotifications: req.ClientCapabilities.StreamTypingNotifications,
		Lifespan:                  min(max(req.QueueLifespan, 0), MaxQueueLifespan),
		MessageFormat: MessageFormat{ApplyMarkdown: req.ApplyMarkdown, ClientGravatar: req.ClientGravatar,
			AllowEmptyTopicName: req.ClientCapabilities.EmptyTopicName},
		EmptyTopicName:      req.ClientCapabilities.EmptyTopicName,
		BulkMessageDeletion: req.ClientCapabilities.BulkMessageDeletion,
		Narrow:              req.Narrow,
	})
	if err != nil {
		return nil, err
	}
	state := RegisterState{"queue_id": queueID, "last_event_id": -1}
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
		if name == "muted_topics" && slices.Contains(fetch, "user_topic") {
			continue // user_topic supersedes it
		}
		if block, ok := stateBlocks[name]; ok {
			if err := block(s, ctx, actor, &req, state); err != nil {
				s.hub.DeleteQueue(actor.UserID(), queueID)
				return nil, err
			}
		}
	}
	return state, nil
}

// checkQueueNarrow validates an event queue's narrow.
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
// spec's names and the reference server's.
func (s *Service) versionKeys() map[string]any {
	return map[string]any{
		"service_feature_level": FeatureLevel, "zulip_feature_level": FeatureLevel,
		"service_version": s.cfg.ServiceVersion, "zulip_version": s.cfg.ServiceVersion,
		"service_merge_base": s.cfg.ServiceVersion, "zulip_merge_base": s.cfg.ServiceVersion,
	}
}

// Protocol constants of the register answer. The
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

// registerViewer reads the actor and realm for a block.
func (s *Service) registerViewer(ctx context.Context, actor Actor, req *RegisterRequest, fn func(tx storage.Tx, v *viewer) error) error {
	return s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, UserQuery{ClientGravatar: req.ClientGravatar, IncludeCustomProfileFields: true})
		if err != nil {
			return err
		}
		return fn(tx, v)
	})
}

// realmState is the "realm" block: the organization's settings and the
// server's limits.
func realmState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(_ storage.Tx, v *viewer) error {
		r := v.realm
		// The settings first: the block's own keys below replace them
		// where the wire differs from the stored value (the description
		// is sent as HTML).
		for _, st := range realmSettings {
			state["realm_"+st.name] = st.get(&r)
		}
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
			"realm_new_stream_announcements_stream_id":         wireChannelID(r.NewStreamAnnouncementsStreamID),
			"realm_signup_announcements_stream_id":             wireChannelID(r.SignupAnnouncementsStreamID),
			"realm_zulip_update_announcements_stream_id":       wireChannelID(r.ZulipUpdateAnnouncementsStreamID),
			"realm_moderation_request_channel_id":              wireChannelID(r.ModerationRequestChannelID),
			"realm_mandatory_topics":                           r.TopicsPolicy == TopicsDisableEmpty,
			// This server keeps messages for good and no edit history:
			// the reference's "unlimited" and "none".
			"realm_message_retention_days":                 -1,
			"realm_allow_edit_history":                     false,
			"realm_message_edit_history_visibility_policy": "none",
		} {
			state[k] = val
		}
		return nil
	})
}

// wireChannelID is a realm's channel setting on the wire: -1 when unset.
func wireChannelID(id int64) int64 {
	if id == 0 {
		return -1
	}
	return id
}

// realmUserState is the "realm_user" block: the organization's users and
// the requesting user's own fields.
func realmUserState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		records, err := tx.Users(v.realm.ID, nil)
		if err != nil {
			return err
		}
		if err := v.loadProfiles(tx, nil); err != nil {
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
	})
}

// subscriptionState is the "subscription" block: the channels the user is
// subscribed to with their settings, and the channels they could join.
// Unsubscribing forgets a subscription, so "unsubscribed" is always empty.
func subscriptionState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	subs, err := s.Subscriptions(ctx, actor, true)
	if err != nil {
		return err
	}
	visible, err := s.Channels(ctx, actor, ChannelQuery{IncludePublic: true, IncludeSubscribed: true, ExcludeArchived: true})
	if err != nil {
		return err
	}
	subscribed := make(map[int64]bool, len(subs))
	for _, sub := range subs {
		subscribed[sub.StreamID] = true
	}
	never := []ChannelView{}
	for _, c := range visible {
		if !subscribed[c.StreamID] {
			never = append(never, c)
		}
	}
	byName := func(a, b ChannelView) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(never, byName)
	slices.SortFunc(subs, func(a, b SubscriptionView) int { return byName(a.ChannelView, b.ChannelView) })
	if subs == nil {
		subs = []SubscriptionView{}
	}
	state["subscriptions"] = subs
	state["unsubscribed"] = []SubscriptionView{}
	state["never_subscribed"] = never
	return nil
}

// streamState is the "stream" block: every channel the user can see.
func streamState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	channels, err := s.Channels(ctx, actor, ChannelQuery{IncludePublic: true, IncludeWebPublic: true, IncludeSubscribed: true})
	if err != nil {
		return err
	}
	if channels == nil {
		channels = []ChannelView{}
	}
	state["streams"] = channels
	return nil
}

// profileFieldState is the "custom_profile_fields" block.
func profileFieldState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	fields, err := s.ProfileFields(ctx, actor)
	if err != nil {
		return err
	}
	state["custom_profile_fields"] = fields
	types := map[string]any{}
	for _, t := range profileFieldTypeNames {
		types[t.key] = map[string]any{"id": int(t.typ), "name": t.name}
	}
	state["custom_profile_field_types"] = types
	return nil
}

// profileFieldTypeNames are the custom profile field types as the register
// answer names them.
var profileFieldTypeNames = []struct {
	key  string
	typ  FieldType
	name string
}{
	{"SHORT_TEXT", 1, "Text (short)"},
	{"LONG_TEXT", 2, "Text (long)"},
	{"SELECT", 3, "List of options"},
	{"DATE", 4, "Date"},
	{"URL", 5, "Link"},
	{"USER", 6, "Users"},
	{"EXTERNAL_ACCOUNT", 7, "External account"},
	{"PRONOUNS", 8, "Pronouns"},
}

// userStatusState is the "user_status" block: the statuses that say
// something, keyed by user ID.
func userStatusState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	statuses := map[string]any{}
	err := s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		users, err := tx.Users(v.realm.ID, nil)
		if err != nil {
			return err
		}
		for i := range users {
			u := &users[i]
			entry := map[string]any{}
			if !u.PresenceEnabled && !u.IsBot() {
				entry["away"] = true
			}
			if u.Status.Text != "" {
				entry["status_text"] = u.Status.Text
			}
			if u.Status.EmojiName != "" {
				entry["emoji_name"] = u.Status.EmojiName
				entry["emoji_code"] = u.Status.EmojiCode
				entry["reaction_type"] = u.Status.ReactionType
			}
			if len(entry) > 0 {
				statuses[strconv.FormatInt(u.ID, 10)] = entry
			}
		}
		return nil
	})
	state["user_status"] = statuses
	return err
}

// linkifierState is the "realm_linkifiers" block; clients without the
// linkifier_url_template capability get an empty list.
func linkifierState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	if !req.ClientCapabilities.LinkifierURLTemplate {
		state["realm_linkifiers"] = []Linkifier{}
		return nil
	}
	list, err := s.Linkifiers(ctx, actor)
	if list == nil {
		list = []Linkifier{}
	}
	state["realm_linkifiers"] = list
	return err
}

// legacyFilterState is the "realm_filters" block, always empty.
func legacyFilterState(_ *Service, _ context.Context, _ Actor, _ *RegisterRequest, state RegisterState) error {
	state["realm_filters"] = []any{}
	return nil
}

// realmDomainState is the "realm_domains" block.
func realmDomainState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	domains, err := s.RealmDomains(ctx, actor)
	if domains == nil {
		domains = []RealmDomain{}
	}
	state["realm_domains"] = domains
	return err
}

// userGroupState is the "realm_user_groups" block.
func userGroupState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	groups, err := s.UserGroups(ctx, actor, req.ClientCapabilities.IncludeDeactivatedGroups)
	if groups == nil {
		groups = []UserGroupView{}
	}
	state["realm_user_groups"] = groups
	return err
}

// userSettingsDefaultsState is the "realm_user_settings_defaults" block.
func userSettingsDefaultsState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(_ storage.Tx, v *viewer) error {
		state["realm_user_settings_defaults"] = map[string]any{
			"email_address_visibility": v.realm.DefaultEmailVisibility,
			"presence_enabled":         true,
		}
		return nil
	})
}

// channelFolderState is the "channel_folders" block, archived ones
// included.
func channelFolderState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	folders, err := s.ChannelFolders(ctx, actor, true)
	if folders == nil {
		folders = []ChannelFolderView{}
	}
	state["channel_folders"] = folders
	return err
}

// userTopics reads the actor's topic visibility policies.
func (s *Service) userTopics(ctx context.Context, actor Actor) ([]storage.UserTopic, error) {
	var out []storage.UserTopic
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		if _, _, err := s.actor(tx, actor); err != nil {
			return err
		}
		var err error
		out, err = tx.UserTopics(actor.UserID())
		return err
	})
	return out, err
}

// userTopicState is the "user_topic" block.
func userTopicState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	rows, err := s.userTopics(ctx, actor)
	if err != nil {
		return err
	}
	list := make([]map[string]any, 0, len(rows))
	for _, ut := range rows {
		topic := ut.Topic
		if topic == "" && !req.ClientCapabilities.EmptyTopicName {
			topic = EmptyTopicDisplayName
		}
		list = append(list, map[string]any{
			"stream_id": ut.ChannelID, "topic_name": topic,
			"last_updated": ut.LastUpdated.Unix(), "visibility_policy": ut.VisibilityPolicy,
		})
	}
	state["user_topics"] = list
	return nil
}

// mutedTopicState is the legacy "muted_topics" block: [channel name,
// topic, time] of each muted topic.
func mutedTopicState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	rows, err := s.userTopics(ctx, actor)
	if err != nil {
		return err
	}
	channels, err := s.Channels(ctx, actor, ChannelQuery{IncludePublic: true, IncludeSubscribed: true})
	if err != nil {
		return err
	}
	names := make(map[int64]string, len(channels))
	for _, c := range channels {
		names[c.StreamID] = c.Name
	}
	list := [][]any{}
	for _, ut := range rows {
		if name, ok := names[ut.ChannelID]; ok && ut.VisibilityPolicy == TopicMuted {
			list = append(list, []any{name, ut.Topic, ut.LastUpdated.Unix()})
		}
	}
	state["muted_topics"] = list
	return nil
}

// defaultStreamState is the "default_streams" block: the IDs of the default
// channels ([] for guests).
func defaultStreamState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	channels, err := s.Channels(ctx, actor, ChannelQuery{IncludeDefault: true})
	if err != nil {
		return err
	}
	ids := []int64{}
	for _, c := range channels {
		ids = append(ids, c.StreamID)
	}
	state["realm_default_streams"] = ids
	return nil
}

// videoCallState is the "video_calls" block.
func videoCallState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	has, err := s.HasVideoCallToken(ctx, actor)
	state["has_videocall_token"] = has
	return err
}

// listedUsers is a user list whose name tells whether its users are active,
// so its JSON form leaves is_active out.
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

// fetches reports whether a register request fetches the state block
// name: named in its fetch_event_types, else in its event_types, else
// every block is.
func fetches(req *RegisterRequest, name string) bool {
	switch {
	case req.FetchEventTypes != nil:
		return slices.Contains(req.FetchEventTypes, name)
	case req.EventTypes != nil:
		return slices.Contains(req.EventTypes, name)
	}
	return true
}
