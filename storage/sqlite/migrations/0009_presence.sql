-- Users' presence. update_id grows with every change in the server, so
-- clients fetch what changed since the last one they saw. Times are
-- INTEGER Unix nanoseconds, as in 0001.
CREATE TABLE presence (
	user_id        INTEGER NOT NULL PRIMARY KEY REFERENCES users (id),
	realm_id       INTEGER NOT NULL REFERENCES realms (id),
	last_active    INTEGER NOT NULL,
	last_connected INTEGER NOT NULL,
	update_id      INTEGER NOT NULL UNIQUE
) STRICT;

CREATE INDEX presence_realm_update ON presence (realm_id, update_id);
