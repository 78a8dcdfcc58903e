package chat

import (
	"context"

	"github.com/teamchat/chat/storage"
)

// The state blocks that the reference's clients read at start whatever
// they use: the user's settings, the custom emoji, and the realm keys of
// features this server answers with their reference defaults.

// userSettingDefaults are the reference server's display and notification
// settings at its defaults, which users change with UpdateSettings; the
// last two keys are information for clients.
var userSettingDefaults = map[string]any{
	"twenty_four_hour_time": false, "dense_mode": true, "web_mark_read_on_scroll_policy": 1,
	"web_channel_default_view": 1, "starred_message_counts": true, "receives_typing_notifications": true,
	"fluid_layout_width": false, "high_contrast_mode": false, "color_scheme": 1, "translate_emoticons": false,
	"display_emoji_reaction_users": true, "default_language": "en", "web_home_view": "inbox",
	"web_escape_navigates_to_home_view": true, "left_side_userlist": false, "emojiset": "google",
	"demote_inactive_streams": 1, "user_list_style": 2, "web_animate_image_previews": "on_hover",
	"web_stream_unreads_count_display_policy": 2, "web_font_size_px": 16, "web_line_height_percent": 122,
	"web_navigate_to_sent_message": true, "web_suggest_update_timezone": true, "hide_ai_features": false,
	"enter_sends": false, "enable_drafts_synchronization": true,
	"enable_stream_desktop_notifications": false, "enable_stream_email_notifications": false,
	"enable_stream_push_notifications": false, "enable_stream_audible_notifications": false,
	"notification_sound": "zulip", "enable_desktop_notifications": true, "enable_sounds": true,
	"email_notifications_batching_period_seconds": 120, "enable_offline_email_notifications": true,
	"enable_offline_push_notifications": true, "enable_online_push_notifications": true,
	"enable_followed_topic_desktop_notifications": true, "enable_followed_topic_email_notifications": true,
	"enable_followed_topic_push_notifications": true, "enable_followed_topic_audible_notifications": true,
	"enable_followed_topic_wildcard_mentions_notify": true, "enable_digest_emails": true,
	"enable_marketing_emails": true, "enable_login_emails": true, "message_content_in_email_notifications": true,
	"pm_content_in_desktop_notifications": true, "wildcard_mentions_notify": true,
	"automatically_follow_topics_policy": 3, "automatically_unmute_topics_in_muted_streams_policy": 2,
	"automatically_follow_topics_where_mentioned": true, "desktop_icon_count_display": 1,
	"realm_name_in_email_notifications_policy": 1, "send_private_typing_notifications": true,
	"send_stream_typing_notifications": true, "send_read_receipts": true, "allow_private_data_export": false,
	"resolved_topic_notice_auto_read_policy": "except_followed",
	"available_notification_sounds":          []string{"zulip"}, "emojiset_choices": []map[string]string{
		{"key": "google", "text": "Google"}, {"key": "twitter", "text": "Twitter"},
		{"key": "text", "text": "Plain text"},
	},
}

// userSettingsState is the "user_settings" block: the actor's settings,
// under user_settings, and also at the top level for clients that did
// not declare the user_settings_object capability.
func userSettingsState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		settings, err := personalSettings(tx, v.user.ID)
		if err != nil {
			return err
		}
		settings["timezone"] = v.user.Timezone
		settings["email_address_visibility"] = v.user.EmailVisibility
		settings["presence_enabled"] = v.user.PresenceEnabled
		state["user_settings"] = settings
		if !req.ClientCapabilities.UserSettingsObject {
			for k, val := range settings {
				state[k] = val
			}
		}
		return nil
	})
}

// realmEmojiState is the "realm_emoji" block: the organization's custom
// emoji by ID, deactivated ones included, as GET /realm/emoji gives them.
func realmEmojiState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		out, err := realmEmojiViews(tx, v.realm.ID)
		if err != nil {
			return err
		}
		state["realm_emoji"] = out
		return nil
	})
}
