-- The key-value store that bots keep their state in. Keys sort by code
-- point (COLLATE "C"), as the other backends sort them.
CREATE TABLE bot_storage (
	user_id BIGINT NOT NULL REFERENCES users (id),
	key     TEXT COLLATE "C" NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (user_id, key)
);
