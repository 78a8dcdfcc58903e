package sqlcommon

import (
	"strings"

	"github.com/teamchat/chat/storage"
)

// Statements' column lists that both dialects read alike.
const (
	RealmColumns = `id, name, description, host, url, deactivated, date_created, default_email_visibility,
		new_stream_announcements_stream_id, signup_announcements_stream_id,
		zulip_update_announcements_stream_id, moderation_request_channel_id,
		emails_restricted_to_domains, disallow_disposable_email_addresses, allow_message_editing,
		message_content_edit_limit_seconds, message_content_delete_limit_seconds, topics_policy,
		default_language, video_chat_provider, enable_spectator_access, waiting_period_threshold,
		invite_required, send_channel_events_messages, move_messages_within_stream_limit_seconds,
		move_messages_between_streams_limit_seconds, message_edit_history_visibility_policy,
		can_move_messages_between_topics_group, can_move_messages_between_channels_group,
		default_code_block_language`
	UserColumns = `id, realm_id, email, full_name, role, is_active, bot_type, bot_owner_id, date_joined,
		last_login, is_imported_stub, timezone, avatar_source, avatar_version, api_key, password_hash,
		email_visibility, can_change_user_emails, presence_enabled, status_text, status_emoji_name,
		status_emoji_code, status_reaction_type`
	MessageColumns = `m.id, m.realm_id, m.sender_id, m.recipient_type, m.channel_id, m.direct_user_ids, m.topic,
	m.content, m.rendered_content, m.date_sent, m.client, m.edited_at, m.has_link, m.has_image, m.has_attachment`
	// MessageColumnsWithoutContent are MessageColumns with empty texts in
	// place of the content and its rendering (MessageFilter.WithoutContent).
	MessageColumnsWithoutContent = `m.id, m.realm_id, m.sender_id, m.recipient_type, m.channel_id, m.direct_user_ids, m.topic,
	'', '', m.date_sent, m.client, m.edited_at, m.has_link, m.has_image, m.has_attachment`

	SelectRealm   = `SELECT ` + RealmColumns + ` FROM realms `
	SelectUser    = `SELECT ` + UserColumns + ` FROM users `
	SelectChannel = `SELECT id, realm_id, name, description, rendered_description, date_created,
	creator_id, invite_only, is_web_public, history_public, is_default, retention_days, topics_policy,
	folder_id, first_message_id, is_archived, can_add_subscribers, can_remove_subscribers, can_administer,
	can_delete_any, can_delete_own, can_send_message, can_subscribe FROM channels `
	SelectProfileField = `SELECT id, realm_id, name, hint, type, field_data, display_order, required,
		editable_by_user, display_in_profile_summary, use_for_user_matching FROM profile_fields `
	SelectProfileValue = `SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM profile_values AS v `
	SelectRealmEmoji   = `SELECT id, realm_id, name, deactivated, author_id, file_name FROM realm_emoji `
	SelectPresence     = `SELECT user_id, realm_id, last_active, last_connected, update_id FROM presence `
)

// ScanDevice reads a device row.
func ScanDevice(sc Scanner) (storage.Device, error) {
	var (
		d              storage.Device
		keyID, created int64
	)
	err := sc.Scan(&d.ID, &d.UserID, &d.RealmID, &d.PushKey, &keyID, &d.TokenKind, &d.TokenID,
		&d.BouncerPublicKey, &d.EncryptedPushRegistration, &created)
	d.PushKeyID = uint32(keyID)
	d.CreateTime = FromNanos(created)
	return d, err
}

// ScanPresence reads a row of SelectPresence.
func ScanPresence(sc Scanner) (storage.Presence, error) {
	var (
		p                 storage.Presence
		active, connected int64
	)
	err := sc.Scan(&p.UserID, &p.RealmID, &active, &connected, &p.UpdateID)
	p.LastActive, p.LastConnected = FromNanos(active), FromNanos(connected)
	return p, err
}

// PresenceTimes returns the column values of a presence's times.
func PresenceTimes(p *storage.Presence) (active, connected int64, err error) {
	if active, err = ToNanos(p.LastActive); err != nil {
		return 0, 0, err
	}
	connected, err = ToNanos(p.LastConnected)
	return active, connected, err
}

// channelGroups are a channel's group settings in the order of the can_*
// columns of SelectChannel.
func channelGroups(c *storage.Channel) [7]*storage.GroupSetting {
	return [7]*storage.GroupSetting{&c.CanAddSubscribersGroup, &c.CanRemoveSubscribersGroup,
		&c.CanAdministerChannelGroup, &c.CanDeleteAnyMessageGroup, &c.CanDeleteOwnMessageGroup,
		&c.CanSendMessageGroup, &c.CanSubscribeGroup}
}

// ChannelGroupArgs returns the column values of c's group settings.
func ChannelGroupArgs(c *storage.Channel) []any {
	out := make([]any, 0, 7)
	for _, g := range channelGroups(c) {
		out = append(out, GroupSettingText(*g))
	}
	return out
}

// SetChannelGroups parses the values of c's group-setting columns into c.
func SetChannelGroups(c *storage.Channel, texts *[7]string) error {
	for i, g := range channelGroups(c) {
		v, err := storage.ParseGroupSetting("value", []byte(texts[i]))
		if err != nil {
			return err
		}
		*g = v
	}
	return nil
}

// UserAndRealmColumns are the UserColumns of the table u and the
// RealmColumns of the table r, for ScanUserAndRealm.
var UserAndRealmColumns = qualified("u", UserColumns) + ", " + qualified("r", RealmColumns)

// qualified prefixes each column of a list with a table's name.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}
