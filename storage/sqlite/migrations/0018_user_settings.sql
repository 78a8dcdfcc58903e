-- Personal settings without a column of their own, as JSON values, only
-- where the user chose one.
CREATE TABLE user_settings (
	user_id INTEGER NOT NULL REFERENCES users (id),
	name    TEXT    NOT NULL,
	value   TEXT    NOT NULL,
	PRIMARY KEY (user_id, name)
) STRICT, WITHOUT ROWID;
