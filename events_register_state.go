package chat

import (
	"context"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// realmState is the "realm" block: the organization's settings and the
// server's limits.
func realmState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		r := v.realm
		description, err := s.realmDescription(tx, &r)
		if err != nil {
			return err
		}
		// The settings first: the block's own keys below replace them
		// where the wire differs from the stored value (the description
		// is sent as HTML).
		for _, st := range realmSettings {
			state["realm_"+st.name] = st.get(&r)
		}
		for k, val := range map[string]any{
			"realm_name":                                       r.Name,
			"realm_description":                                description,
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
			// This server keeps messages for good: the reference's
			// "unlimited".
			"realm_message_retention_days": -1,
			// The boolean that the policy replaced, for older clients.
			"realm_allow_edit_history": r.MessageEditHistoryVisibilityPolicy != EditHistoryNone,
		} {
			state[k] = val
		}
		return realmGroupState(tx, &r, state)
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
		records, err := req.realmUsers(tx, v.realm.ID)
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
		state["cross_realm_bots"] = listedUsers{notificationBot(v.realm)}
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
	var (
		subs  []SubscriptionView
		never []ChannelView
	)
	// One transaction reads the realm's channels once for both lists.
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		all, err := tx.Channels(cc.realm.ID)
		if err != nil {
			return err
		}
		if subs, err = cc.subscriptionViews(tx, true, all); err != nil {
			return err
		}
		q := ChannelQuery{IncludePublic: true, IncludeSubscribed: true, ExcludeArchived: true}
		never, err = cc.channelViews(tx, all, func(c *storage.Channel) bool {
			_, subscribed := cc.subs[c.ID]
			return !subscribed && cc.selects(q, c)
		}, false)
		return err
	})
	if err != nil {
		return err
	}
	if subs == nil {
		subs = []SubscriptionView{}
	}
	if never == nil {
		never = []ChannelView{}
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
		users, err := req.realmUsers(tx, v.realm.ID)
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
	groups, err := s.userGroups(ctx, actor, req.ClientCapabilities.IncludeDeactivatedGroups, req)
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

// alertWordsState is the "alert_words" block.
func alertWordsState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	words, err := s.AlertWords(ctx, actor)
	state["alert_words"] = words
	return err
}

// mutedUsersState is the "muted_users" block.
func mutedUsersState(s *Service, ctx context.Context, actor Actor, _ *RegisterRequest, state RegisterState) error {
	muted, err := s.MutedUsers(ctx, actor)
	state["muted_users"] = muted
	return err
}

// realmBotState is the "realm_bot" block: the active bots the user owns,
// or every active bot for the organization's administrators, as realm_bot
// events describe them.
func realmBotState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		users, err := req.realmUsers(tx, v.realm.ID)
		if err != nil {
			return err
		}
		services, err := tx.RealmBotServices(v.realm.ID)
		if err != nil {
			return err
		}
		bots := []map[string]any{}
		for i := range users {
			u := &users[i]
			if !u.IsBot() || !u.IsActive || (u.BotOwnerID != v.user.ID && !v.user.Role.IsAdmin()) {
				continue
			}
			b, err := s.realmBot(u)
			if err != nil {
				return err
			}
			for _, sv := range services {
				if sv.BotID == u.ID {
					token, err := s.shownAPIKey(sv.Token)
					if err != nil {
						return err
					}
					b["services"] = []any{map[string]any{"base_url": sv.PayloadURL, "interface": sv.Interface, "token": token}}
				}
			}
			bots = append(bots, b)
		}
		state["realm_bots"] = bots
		return nil
	})
}
