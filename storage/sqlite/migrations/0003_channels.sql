-- Channels and what belongs to them: user groups, channel folders,
-- subscriptions, users' topic policies, and the messages that channel
-- operations need. Group-setting values are stored as their JSON wire form
-- (an integer group ID or {"direct_members":[...],"direct_subgroups":[...]}).

-- The organization's special channels; 0 means none.
ALTER TABLE realms ADD COLUMN new_stream_announcements_stream_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN signup_announcements_stream_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN zulip_update_announcements_stream_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE realms ADD COLUMN moderation_request_channel_id INTEGER NOT NULL DEFAULT 0;

CREATE TABLE user_groups (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id     INTEGER NOT NULL REFERENCES realms (id),
	name         TEXT    NOT NULL,
	description  TEXT    NOT NULL,
	is_system    INTEGER NOT NULL,
	creator_id   INTEGER NOT NULL,
	date_created INTEGER NOT NULL,
	deactivated  INTEGER NOT NULL,
	-- JSON arrays of the direct member and subgroup IDs.
	members      TEXT    NOT NULL,
	subgroups    TEXT    NOT NULL,
	UNIQUE (realm_id, name)
) STRICT;

CREATE TABLE channel_folders (
	id                   INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id             INTEGER NOT NULL REFERENCES realms (id),
	name                 TEXT    NOT NULL,
	description          TEXT    NOT NULL,
	rendered_description TEXT    NOT NULL,
	creator_id           INTEGER NOT NULL,
	date_created         INTEGER NOT NULL,
	is_archived          INTEGER NOT NULL,
	ord                  INTEGER NOT NULL
) STRICT;
CREATE INDEX channel_folders_realm ON channel_folders (realm_id);

CREATE TABLE channels (
	id                     INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id               INTEGER NOT NULL REFERENCES realms (id),
	name                   TEXT    NOT NULL,
	-- name_key is chat.ChannelNameKey(name), computed by the Go code.
	name_key               TEXT    NOT NULL,
	description            TEXT    NOT NULL,
	rendered_description   TEXT    NOT NULL,
	date_created           INTEGER NOT NULL,
	creator_id             INTEGER NOT NULL,
	invite_only            INTEGER NOT NULL,
	is_web_public          INTEGER NOT NULL,
	history_public         INTEGER NOT NULL,
	is_default             INTEGER NOT NULL,
	retention_days         INTEGER NOT NULL,
	topics_policy          TEXT    NOT NULL,
	folder_id              INTEGER NOT NULL,
	first_message_id       INTEGER NOT NULL,
	is_archived            INTEGER NOT NULL,
	can_add_subscribers    TEXT    NOT NULL,
	can_remove_subscribers TEXT    NOT NULL,
	can_administer         TEXT    NOT NULL,
	can_delete_any         TEXT    NOT NULL,
	can_delete_own         TEXT    NOT NULL,
	can_send_message       TEXT    NOT NULL,
	can_subscribe          TEXT    NOT NULL,
	UNIQUE (realm_id, name_key)
) STRICT;

-- The notification settings are NULL when they follow the user's defaults.
CREATE TABLE subscriptions (
	user_id    INTEGER NOT NULL REFERENCES users (id),
	channel_id INTEGER NOT NULL REFERENCES channels (id),
	color      TEXT    NOT NULL,
	is_muted   INTEGER NOT NULL,
	pin_to_top INTEGER NOT NULL,
	desktop    INTEGER,
	audible    INTEGER,
	push       INTEGER,
	email      INTEGER,
	wildcard   INTEGER,
	PRIMARY KEY (user_id, channel_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX subscriptions_channel ON subscriptions (channel_id, user_id);

CREATE TABLE user_topics (
	user_id           INTEGER NOT NULL REFERENCES users (id),
	channel_id        INTEGER NOT NULL REFERENCES channels (id),
	-- topic_key is chat.TopicKey(topic).
	topic_key         TEXT    NOT NULL,
	topic             TEXT    NOT NULL,
	visibility_policy INTEGER NOT NULL,
	last_updated      INTEGER NOT NULL,
	PRIMARY KEY (user_id, channel_id, topic_key)
) STRICT, WITHOUT ROWID;
CREATE INDEX user_topics_topic ON user_topics (channel_id, topic_key);

-- sender_id 0 is the notification bot; channel_id 0 marks a direct
-- message, whose participants are the JSON array direct_user_ids.
CREATE TABLE messages (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id         INTEGER NOT NULL REFERENCES realms (id),
	sender_id        INTEGER NOT NULL,
	recipient_type   INTEGER NOT NULL,
	channel_id       INTEGER NOT NULL,
	direct_user_ids  TEXT    NOT NULL,
	topic            TEXT    NOT NULL,
	topic_key        TEXT    NOT NULL,
	content          TEXT    NOT NULL,
	rendered_content TEXT    NOT NULL,
	date_sent        INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_channel_topic ON messages (channel_id, topic_key, id);
CREATE INDEX messages_channel ON messages (channel_id, id);
