-- The key-value store that bots keep their state in.
CREATE TABLE bot_storage (
	user_id INTEGER NOT NULL REFERENCES users (id),
	key     TEXT    NOT NULL,
	value   TEXT    NOT NULL,
	PRIMARY KEY (user_id, key)
) STRICT, WITHOUT ROWID;
