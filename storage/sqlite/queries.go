package sqlite

import (
	"database/sql"

	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// query names one of the prepared statements.
type query int

// The queries: reads first, then writes (prepared on the writer only).
const (
	qRealm query = iota
	qRealmByHost
	qRealms
	qUsersVersion
	qDataVersion
	qUser
	qUserAndRealm
	qUserRealm
	qUserByEmail
	qUserByAPIKey
	qUsersAll
	qUsersIDs
	qActiveUserIDs
	qUsersByRole
	qBotsOwnedBy
	// Custom profile fields and custom emoji (profile.go).
	qProfileFields
	qProfileValuesAll
	qProfileValuesIDs
	qRealmEmoji
	qRealmEmojiByName
	// Organization administration (realm_admin.go).
	qLinkifiers
	qRealmDomains
	qRealmDomain
	// Channels, groups, folders and user topics (channels.go).
	qUserGroups
	qChannel
	qChannelsByName
	qChannels
	qChannelsVersion
	qSubscriptionsOfUsers
	qSubscriptionColors
	qChannelSubscriptions
	qChannelFolder
	qChannelFolders
	qUserTopic
	qUserTopics
	qTopicUserTopics
	// Uploads and push.
	qAttachmentByPath
	qUploadSpaceUsed
	qAttachmentMessages
	qPushTokens
	qDevice
	qDevices

	qCreateRealm
	qUpdateRealm
	qCreateUser
	qUpdateUser
	qUpdateUserKeys
	// Custom profile fields and custom emoji (profile.go).
	qCreateProfileField
	qSetProfileValue
	qDeleteProfileValue
	qCreateRealmEmoji
	qUpdateRealmEmoji
	// Organization administration (realm_admin.go).
	qCreateLinkifier
	qUpdateLinkifier
	qDeleteLinkifier
	qCreateRealmDomain
	qUpdateRealmDomain
	qDeleteRealmDomain
	// Channels, groups, folders and user topics (channels.go).
	qCreateUserGroup
	qCreateChannel
	qUpdateChannel
	qCreateSubscription
	qCreateSubscriptions // subBatch rows at once
	qUpdateSubscription
	qDeleteSubscription
	qCreateChannelFolder
	qUpdateChannelFolder
	qSetUserTopic
	qDeleteUserTopic
	qDeleteTopicUserTopics
	// Uploads and push.
	qCreateAttachment
	qLinkAttachment
	qAddPushToken
	qCreateDevice
	qUpdateDevice
	qDeleteDevice

	numQueries
	firstWrite = qCreateRealm
)

type stmts [numQueries]*sql.Stmt

var queries = [numQueries]string{
	qRealm:        sqlcommon.SelectRealm + `WHERE id = ?`,
	qRealmByHost:  sqlcommon.SelectRealm + `WHERE host = ?`,
	qRealms:       sqlcommon.SelectRealm + `ORDER BY id`,
	qUsersVersion: `SELECT users_version FROM realms WHERE id = ?`,
	qDataVersion:  `PRAGMA data_version`,
	qUser:         sqlcommon.SelectUser + `WHERE id = ?`,
	qUserAndRealm: `SELECT ` + sqlcommon.UserAndRealmColumns + ` FROM users AS u JOIN realms AS r ON r.id = u.realm_id WHERE u.id = ?`,
	qUserRealm:    `SELECT realm_id FROM users WHERE id = ?`,
	qUserByEmail:  sqlcommon.SelectUser + `WHERE realm_id = ? AND email_key = ?`,
	qUserByAPIKey: sqlcommon.SelectUser + `WHERE api_key = ?`,
	qUsersAll:     sqlcommon.SelectUser + `WHERE realm_id = ? ORDER BY id`,
	// The IDs come as one JSON array, whatever their number.
	qUsersIDs: sqlcommon.SelectUser + `WHERE realm_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
	qActiveUserIDs: `SELECT id FROM users WHERE realm_id = ? AND is_active AND id IN (SELECT value FROM json_each(?))
		ORDER BY id`,
	qUsersByRole: sqlcommon.SelectUser + `WHERE realm_id = ? AND role = ? ORDER BY id`,
	// Like the memory store: the bots of the owner's organization.
	qBotsOwnedBy: sqlcommon.SelectUser + `WHERE bot_owner_id = ?1 AND bot_type <> 0
		AND realm_id = (SELECT o.realm_id FROM users AS o WHERE o.id = ?1) ORDER BY id`,
	qProfileFields:    sqlcommon.SelectProfileField + `WHERE realm_id = ? ORDER BY display_order, id`,
	qProfileValuesAll: sqlcommon.SelectProfileValue + `JOIN users AS u ON u.id = v.user_id WHERE u.realm_id = ? ORDER BY v.user_id, v.field_id`,
	qProfileValuesIDs: sqlcommon.SelectProfileValue + `JOIN users AS u ON u.id = v.user_id
		WHERE u.realm_id = ? AND v.user_id IN (SELECT value FROM json_each(?)) ORDER BY v.user_id, v.field_id`,
	qRealmEmoji:       sqlcommon.SelectRealmEmoji + `WHERE id = ?`,
	qRealmEmojiByName: sqlcommon.SelectRealmEmoji + `WHERE realm_id = ? AND name = ?`,
	// Uploads and push.
	qAttachmentByPath:   sqlcommon.SelectAttachment + `WHERE path_id = ? AND realm_id = ?`,
	qUploadSpaceUsed:    `SELECT coalesce(sum(size), 0) FROM attachments WHERE realm_id = ?`,
	qAttachmentMessages: `SELECT message_id FROM attachment_messages WHERE attachment_id = ? ORDER BY message_id`,
	qPushTokens:         `SELECT user_id, kind, token, app_id, create_time FROM push_tokens WHERE user_id = ? ORDER BY rowid`,
	qDevice:             sqlcommon.SelectDevice + `WHERE id = ?`,
	qDevices:            sqlcommon.SelectDevice + `WHERE user_id = ? ORDER BY id`,

	qCreateRealm: `INSERT INTO realms (name, description, host, url, deactivated, date_created,
		default_email_visibility, new_stream_announcements_stream_id, signup_announcements_stream_id,
		zulip_update_announcements_stream_id, moderation_request_channel_id,
		emails_restricted_to_domains, disallow_disposable_email_addresses,
		allow_message_editing, message_content_edit_limit_seconds, message_content_delete_limit_seconds,
		topics_policy, default_language, video_chat_provider, enable_spectator_access,
		waiting_period_threshold, invite_required, send_channel_events_messages,
		move_messages_within_stream_limit_seconds, move_messages_between_streams_limit_seconds,
		message_edit_history_visibility_policy, can_move_messages_between_topics_group,
		can_move_messages_between_channels_group, default_code_block_language)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateRealm: `UPDATE realms SET name = ?, description = ?, host = ?, url = ?, deactivated = ?,
		date_created = ?, default_email_visibility = ?, new_stream_announcements_stream_id = ?,
		signup_announcements_stream_id = ?, zulip_update_announcements_stream_id = ?,
		moderation_request_channel_id = ?, emails_restricted_to_domains = ?,
		disallow_disposable_email_addresses = ?, allow_message_editing = ?,
		message_content_edit_limit_seconds = ?, message_content_delete_limit_seconds = ?,
		topics_policy = ?, default_language = ?, video_chat_provider = ?, enable_spectator_access = ?,
		waiting_period_threshold = ?, invite_required = ?, send_channel_events_messages = ?,
		move_messages_within_stream_limit_seconds = ?, move_messages_between_streams_limit_seconds = ?,
		message_edit_history_visibility_policy = ?, can_move_messages_between_topics_group = ?,
		can_move_messages_between_channels_group = ?, default_code_block_language = ?
		WHERE id = ?`,
	qCreateUser: `INSERT INTO users (realm_id, email, email_key, full_name, role, is_active, bot_type,
		bot_owner_id, date_joined, last_login, is_imported_stub, timezone, avatar_source, avatar_version,
		api_key, password_hash, email_visibility, can_change_user_emails, presence_enabled, status_text,
		status_emoji_name, status_emoji_code, status_reaction_type)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	// The indexed columns are written only when one of them changes:
	// SQLite rewrites the entries of every index whose columns an UPDATE
	// sets, changed or not, which would triple the cost of the frequent
	// writes (status, settings) that change none of them.
	qUpdateUserKeys: `UPDATE users SET email_key = ?1, role = ?2, bot_owner_id = ?3, api_key = ?4
		WHERE id = ?5 AND realm_id = ?6 AND (email_key <> ?1 OR role <> ?2 OR bot_owner_id <> ?3 OR api_key <> ?4)`,
	qUpdateUser: `UPDATE users SET email = ?, full_name = ?, is_active = ?,
		bot_type = ?, date_joined = ?, last_login = ?, is_imported_stub = ?, timezone = ?,
		avatar_source = ?, avatar_version = ?, password_hash = ?, email_visibility = ?,
		can_change_user_emails = ?, presence_enabled = ?, status_text = ?, status_emoji_name = ?,
		status_emoji_code = ?, status_reaction_type = ?
		WHERE id = ? AND realm_id = ?`,
	qCreateProfileField: `INSERT INTO profile_fields (realm_id, name, hint, type, field_data, display_order,
		required, editable_by_user, display_in_profile_summary, use_for_user_matching)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qSetProfileValue: `INSERT INTO profile_values (user_id, field_id, value, rendered_value) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id, field_id) DO UPDATE SET value = excluded.value, rendered_value = excluded.rendered_value`,
	qDeleteProfileValue: `DELETE FROM profile_values WHERE user_id = ? AND field_id = ?`,
	qCreateRealmEmoji:   `INSERT INTO realm_emoji (realm_id, name, deactivated, author_id, file_name) VALUES (?, ?, ?, ?, ?)`,
	qUpdateRealmEmoji:   `UPDATE realm_emoji SET name = ?, deactivated = ?, author_id = ?, file_name = ? WHERE id = ? AND realm_id = ?`,

	// Organization administration (realm_admin.go).
	qLinkifiers:   sqlcommon.SelectLinkifier + `WHERE realm_id = ? ORDER BY sort_order, id`,
	qRealmDomains: sqlcommon.SelectRealmDomain + `WHERE realm_id = ? ORDER BY id`,
	qRealmDomain:  sqlcommon.SelectRealmDomain + `WHERE realm_id = ? AND domain = ?`,
	qCreateLinkifier: `INSERT INTO linkifiers (realm_id, pattern, url_template, example_input,
		reverse_template, alternative_url_templates, sort_order) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	qUpdateLinkifier: `UPDATE linkifiers SET pattern = ?, url_template = ?, example_input = ?,
		reverse_template = ?, alternative_url_templates = ?, sort_order = ? WHERE id = ? AND realm_id = ?`,
	qDeleteLinkifier:   `DELETE FROM linkifiers WHERE realm_id = ? AND id = ?`,
	qCreateRealmDomain: `INSERT INTO realm_domains (realm_id, domain, allow_subdomains) VALUES (?, ?, ?)`,
	qUpdateRealmDomain: `UPDATE realm_domains SET allow_subdomains = ? WHERE realm_id = ? AND id = ?`,
	qDeleteRealmDomain: `DELETE FROM realm_domains WHERE realm_id = ? AND id = ?`,

	// Channels, groups, folders and user topics (channels.go).
	qUserGroups:           sqlcommon.SelectUserGroup + `WHERE realm_id = ? ORDER BY id`,
	qChannel:              sqlcommon.SelectChannel + `WHERE id = ?`,
	qChannelsByName:       sqlcommon.SelectChannel + `WHERE realm_id = ? AND name_key IN (SELECT value FROM json_each(?)) ORDER BY id`,
	qChannels:             sqlcommon.SelectChannel + `WHERE realm_id = ? ORDER BY id`,
	qChannelsVersion:      `SELECT channels_version FROM realms WHERE id = ?`,
	qSubscriptionsOfUsers: sqlcommon.SelectSubscription + `WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, channel_id`,
	qSubscriptionColors: `SELECT DISTINCT user_id, color FROM subscriptions
		WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, color`,
	qChannelSubscriptions: sqlcommon.SelectSubscription + `WHERE channel_id IN (SELECT value FROM json_each(?)) ORDER BY channel_id, user_id`,
	qChannelFolder:        sqlcommon.SelectFolder + `WHERE id = ?`,
	qChannelFolders:       sqlcommon.SelectFolder + `WHERE realm_id = ? ORDER BY ord, id`,
	qUserTopic:            sqlcommon.SelectUserTopic + `WHERE user_id = ? AND channel_id = ? AND topic_key = ?`,
	qUserTopics:           sqlcommon.SelectUserTopic + `WHERE user_id = ? ORDER BY channel_id, topic_key`,
	qTopicUserTopics:      sqlcommon.SelectUserTopic + `WHERE channel_id = ? AND topic_key = ? ORDER BY user_id`,
	qCreateUserGroup: `INSERT INTO user_groups (realm_id, name, description, is_system, creator_id, date_created,
		deactivated, members, subgroups, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qCreateChannel: `INSERT INTO channels (realm_id, name, name_key, description, rendered_description,
		date_created, creator_id, invite_only, is_web_public, history_public, is_default, retention_days,
		topics_policy, folder_id, first_message_id, is_archived, can_add_subscribers, can_remove_subscribers,
		can_administer, can_delete_any, can_delete_own, can_send_message, can_subscribe)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateChannel: `UPDATE channels SET name = ?, name_key = ?, description = ?, rendered_description = ?,
		date_created = ?, creator_id = ?, invite_only = ?, is_web_public = ?, history_public = ?, is_default = ?,
		retention_days = ?, topics_policy = ?, folder_id = ?, first_message_id = ?, is_archived = ?,
		can_add_subscribers = ?, can_remove_subscribers = ?, can_administer = ?, can_delete_any = ?,
		can_delete_own = ?, can_send_message = ?, can_subscribe = ? WHERE id = ?`,
	qCreateSubscription:  insertSubs + subRow,
	qCreateSubscriptions: insertSubs + subRows,
	qUpdateSubscription: `UPDATE subscriptions SET color = ?, is_muted = ?, pin_to_top = ?, desktop = ?, audible = ?,
		push = ?, email = ?, wildcard = ? WHERE user_id = ? AND channel_id = ?`,
	qDeleteSubscription: `DELETE FROM subscriptions WHERE user_id = ? AND channel_id = ?`,
	qCreateChannelFolder: `INSERT INTO channel_folders (realm_id, name, description, rendered_description,
		creator_id, date_created, is_archived, ord) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateChannelFolder: `UPDATE channel_folders SET name = ?, description = ?, rendered_description = ?,
		creator_id = ?, date_created = ?, is_archived = ?, ord = ? WHERE id = ?`,
	qSetUserTopic: `INSERT OR REPLACE INTO user_topics (user_id, channel_id, topic_key, topic, visibility_policy,
		last_updated) VALUES (?, ?, ?, ?, ?, ?)`,
	qDeleteUserTopic:       `DELETE FROM user_topics WHERE user_id = ? AND channel_id = ? AND topic_key = ?`,
	qDeleteTopicUserTopics: `DELETE FROM user_topics WHERE channel_id = ? AND topic_key = ?`,
	// Uploads and push.
	qCreateAttachment: `INSERT INTO attachments (realm_id, owner_id, path_id, name, size, content_type,
		create_time) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	qLinkAttachment: `INSERT INTO attachment_messages (attachment_id, message_id) VALUES (?, ?)
		ON CONFLICT DO NOTHING`,
	qAddPushToken: `INSERT INTO push_tokens (user_id, kind, token, app_id, create_time) VALUES (?, ?, ?, ?, ?)`,
	qCreateDevice: `INSERT INTO devices (user_id, realm_id, push_key, push_key_id, token_kind, token_id,
		bouncer_public_key, encrypted_push_registration, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateDevice: `UPDATE devices SET user_id = ?, realm_id = ?, push_key = ?, push_key_id = ?, token_kind = ?,
		token_id = ?, bouncer_public_key = ?, encrypted_push_registration = ?, create_time = ? WHERE id = ?`,
	qDeleteDevice: `DELETE FROM devices WHERE id = ?`,
}
