-- Messages: what the message operations need beyond 0003's table, the
-- users' rows for the messages they received (with their flags as a bit
-- set, see chat.MessageFlags), reactions, and the full-text index of
-- topics and Markdown sources.

ALTER TABLE messages ADD COLUMN client TEXT NOT NULL DEFAULT '';
-- edited_at is in nanoseconds since 1970, 0 for never.
ALTER TABLE messages ADD COLUMN edited_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN has_link INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN has_image INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN has_attachment INTEGER NOT NULL DEFAULT 0;

CREATE TABLE user_messages (
	user_id    INTEGER NOT NULL REFERENCES users (id),
	message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
	flags      INTEGER NOT NULL,
	PRIMARY KEY (user_id, message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX user_messages_message ON user_messages (message_id);

-- Reactions keep the order they were made in by their id.
CREATE TABLE reactions (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
	user_id       INTEGER NOT NULL REFERENCES users (id),
	emoji_name    TEXT    NOT NULL,
	emoji_code    TEXT    NOT NULL,
	reaction_type TEXT    NOT NULL,
	UNIQUE (message_id, user_id, emoji_code, reaction_type)
) STRICT;

-- The search index reads the messages table (external content) and is
-- kept by triggers. Diacritics are kept, as chat.SearchWords keeps them.
CREATE VIRTUAL TABLE messages_fts USING fts5 (topic, content, content = 'messages', content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 0');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF topic, content ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content);
	INSERT INTO messages_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
