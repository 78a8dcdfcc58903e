-- Users: the special permission to change user emails, the presence
-- setting, the status; custom profile fields and their values; custom
-- emoji.

ALTER TABLE users ADD COLUMN can_change_user_emails INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN presence_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN status_text TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN status_emoji_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN status_emoji_code TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN status_reaction_type TEXT NOT NULL DEFAULT '';

CREATE TABLE profile_fields (
	id                         INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id                   INTEGER NOT NULL REFERENCES realms (id),
	name                       TEXT    NOT NULL,
	hint                       TEXT    NOT NULL,
	type                       INTEGER NOT NULL,
	field_data                 TEXT    NOT NULL,
	display_order              INTEGER NOT NULL,
	required                   INTEGER NOT NULL,
	editable_by_user           INTEGER NOT NULL,
	display_in_profile_summary INTEGER NOT NULL,
	use_for_user_matching      INTEGER NOT NULL,
	UNIQUE (realm_id, name)
) STRICT;

CREATE TABLE profile_values (
	user_id        INTEGER NOT NULL REFERENCES users (id),
	field_id       INTEGER NOT NULL REFERENCES profile_fields (id),
	value          TEXT    NOT NULL,
	-- rendered_value is NULL for the types that are not Markdown.
	rendered_value TEXT,
	PRIMARY KEY (user_id, field_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE realm_emoji (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id    INTEGER NOT NULL REFERENCES realms (id),
	name        TEXT    NOT NULL,
	deactivated INTEGER NOT NULL,
	-- author_id is 0 for none.
	author_id   INTEGER NOT NULL,
	UNIQUE (realm_id, name)
) STRICT;
