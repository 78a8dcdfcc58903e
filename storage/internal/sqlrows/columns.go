package sqlrows

// The columns that the scanners of this package read, in their order, and
// the SELECT statements that read them; a backend adds its WHERE and ORDER
// BY clauses. The tables have the same columns in both databases.
const (
	RealmColumns = `id, name, description, host, url, deactivated, date_created, default_email_visibility,
		new_stream_announcements_stream_id, signup_announcements_stream_id,
		zulip_update_announcements_stream_id, moderation_request_channel_id,
		emails_restricted_to_domains, disallow_disposable_email_addresses, allow_message_editing,
		message_content_edit_limit_seconds, message_content_delete_limit_seconds, topics_policy,
		default_language, video_chat_provider, enable_spectator_access, waiting_period_threshold,
		invite_required, send_channel_events_messages`
	UserColumns = `id, realm_id, email, full_name, role, is_active, bot_type, bot_owner_id, date_joined,
		last_login, is_imported_stub, timezone, avatar_source, avatar_version, api_key, password_hash,
		email_visibility, can_change_user_emails, presence_enabled, status_text, status_emoji_name,
		status_emoji_code, status_reaction_type`
	// MessageColumns are those of the messages table under the alias m.
	MessageColumns = `m.id, m.realm_id, m.sender_id, m.recipient_type, m.channel_id, m.direct_user_ids, m.topic,
		m.content, m.rendered_content, m.date_sent, m.client, m.edited_at, m.has_link, m.has_image, m.has_attachment`
	SubscriptionColumns = `user_id, channel_id, color, is_muted, pin_to_top, desktop, audible, push, email, wildcard`

	SelectRealm        = `SELECT ` + RealmColumns + ` FROM realms `
	SelectUser         = `SELECT ` + UserColumns + ` FROM users `
	SelectSubscription = `SELECT ` + SubscriptionColumns + ` FROM subscriptions `
	SelectChannel      = `SELECT id, realm_id, name, description, rendered_description, date_created, creator_id,
		invite_only, is_web_public, history_public, is_default, retention_days, topics_policy, folder_id,
		first_message_id, is_archived, can_add_subscribers, can_remove_subscribers, can_administer,
		can_delete_any, can_delete_own, can_send_message, can_subscribe FROM channels `
	SelectUserGroup = `SELECT id, realm_id, name, description, is_system, creator_id, date_created,
		deactivated, members, subgroups FROM user_groups `
	SelectFolder = `SELECT id, realm_id, name, description, rendered_description, creator_id, date_created,
		is_archived, ord FROM channel_folders `
	SelectUserTopic    = `SELECT user_id, channel_id, topic, visibility_policy, last_updated FROM user_topics `
	SelectProfileField = `SELECT id, realm_id, name, hint, type, field_data, display_order, required,
		editable_by_user, display_in_profile_summary, use_for_user_matching FROM profile_fields `
	// SelectProfileValue reads profile_values under the alias v.
	SelectProfileValue = `SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM profile_values AS v `
	SelectRealmEmoji   = `SELECT id, realm_id, name, deactivated, author_id FROM realm_emoji `
	SelectLinkifier    = `SELECT id, realm_id, pattern, url_template, example_input, reverse_template,
		alternative_url_templates, sort_order FROM linkifiers `
	SelectRealmDomain = `SELECT id, realm_id, domain, allow_subdomains FROM realm_domains `
	SelectAttachment  = `SELECT id, realm_id, owner_id, path_id, name, size, content_type, create_time
		FROM attachments `
	SelectDevice = `SELECT id, user_id, realm_id, push_key, push_key_id, token_kind, token_id,
		bouncer_public_key, encrypted_push_registration, create_time FROM devices `
	SelectPresence = `SELECT user_id, realm_id, last_active, last_connected, update_id FROM presence `
)
