-- Uploads and push. Times are INTEGER Unix nanoseconds, as in 0001.

CREATE TABLE attachments (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id     INTEGER NOT NULL REFERENCES realms (id),
	owner_id     INTEGER NOT NULL REFERENCES users (id),
	path_id      TEXT    NOT NULL UNIQUE,
	name         TEXT    NOT NULL,
	size         INTEGER NOT NULL,
	content_type TEXT    NOT NULL,
	create_time  INTEGER NOT NULL
) STRICT;

CREATE INDEX attachments_realm ON attachments (realm_id);

-- The messages that link each attachment. message_id has no foreign key:
-- the messages table belongs to another migration.
CREATE TABLE attachment_messages (
	attachment_id INTEGER NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
	message_id    INTEGER NOT NULL,
	PRIMARY KEY (attachment_id, message_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE push_tokens (
	user_id     INTEGER NOT NULL REFERENCES users (id),
	kind        TEXT    NOT NULL,
	token       TEXT    NOT NULL,
	app_id      TEXT    NOT NULL,
	create_time INTEGER NOT NULL,
	PRIMARY KEY (user_id, kind, token)
) STRICT;

CREATE TABLE devices (
	id                          INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id                     INTEGER NOT NULL REFERENCES users (id),
	realm_id                    INTEGER NOT NULL REFERENCES realms (id),
	push_key                    BLOB,
	push_key_id                 INTEGER NOT NULL,
	token_kind                  TEXT    NOT NULL,
	token_id                    TEXT    NOT NULL,
	bouncer_public_key          TEXT    NOT NULL,
	encrypted_push_registration TEXT    NOT NULL,
	create_time                 INTEGER NOT NULL
) STRICT;

CREATE INDEX devices_user ON devices (user_id);
