-- Users' alert words, kept with the realm so that delivery reads a realm's
-- in one query; pos keeps the order they were set in.
CREATE TABLE alert_words (
	realm_id INTEGER NOT NULL REFERENCES realms (id),
	user_id  INTEGER NOT NULL REFERENCES users (id),
	pos      INTEGER NOT NULL,
	word     TEXT    NOT NULL,
	PRIMARY KEY (user_id, pos)
) STRICT;
CREATE INDEX alert_words_realm ON alert_words (realm_id);

-- Whom users muted; delivery asks who muted a sender.
CREATE TABLE muted_users (
	user_id       INTEGER NOT NULL REFERENCES users (id),
	muted_user_id INTEGER NOT NULL REFERENCES users (id),
	date_muted    INTEGER NOT NULL,
	PRIMARY KEY (user_id, muted_user_id)
) STRICT;
CREATE INDEX muted_users_muted ON muted_users (muted_user_id);
