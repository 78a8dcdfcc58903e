-- Users' presence. update_id grows with every change in the server, so
-- clients fetch what changed since the last one they saw; the sequence
-- gives each change its own. Times are BIGINT Unix nanoseconds.
CREATE SEQUENCE presence_update_ids;

CREATE TABLE presence (
	user_id        BIGINT NOT NULL PRIMARY KEY REFERENCES users (id),
	realm_id       BIGINT NOT NULL REFERENCES realms (id),
	last_active    BIGINT NOT NULL,
	last_connected BIGINT NOT NULL,
	update_id      BIGINT NOT NULL UNIQUE
);

CREATE INDEX presence_realm_update ON presence (realm_id, update_id);
