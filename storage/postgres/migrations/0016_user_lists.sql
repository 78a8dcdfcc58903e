-- Users' alert words, kept with the realm so that delivery reads a realm's
-- in one query; pos keeps the order they were set in.
CREATE TABLE alert_words (
	realm_id BIGINT NOT NULL REFERENCES realms (id),
	user_id  BIGINT NOT NULL REFERENCES users (id),
	pos      BIGINT NOT NULL,
	word     TEXT    NOT NULL,
	PRIMARY KEY (user_id, pos)
);
CREATE INDEX alert_words_realm ON alert_words (realm_id);

-- Whom users muted; delivery asks who muted a sender.
CREATE TABLE muted_users (
	user_id       BIGINT NOT NULL REFERENCES users (id),
	muted_user_id BIGINT NOT NULL REFERENCES users (id),
	date_muted    BIGINT NOT NULL,
	PRIMARY KEY (user_id, muted_user_id)
);
CREATE INDEX muted_users_muted ON muted_users (muted_user_id);
