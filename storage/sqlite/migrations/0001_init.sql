-- Organizations and user accounts. Times are INTEGER Unix nanoseconds, with
-- 0 standing for the zero time.Time; booleans are 0 or 1.

CREATE TABLE realms (
	id                       INTEGER PRIMARY KEY AUTOINCREMENT,
	name                     TEXT    NOT NULL,
	description              TEXT    NOT NULL,
	host                     TEXT    NOT NULL UNIQUE,
	url                      TEXT    NOT NULL,
	deactivated              INTEGER NOT NULL,
	date_created             INTEGER NOT NULL,
	default_email_visibility INTEGER NOT NULL,
	-- users_version changes with every write to the realm's users (see the
	-- triggers below): the Store's user-list cache is valid while it holds.
	users_version            INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE users (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	realm_id         INTEGER NOT NULL REFERENCES realms (id),
	email            TEXT    NOT NULL,
	-- email_key is chat.EmailKey(email), computed by the Go code.
	email_key        TEXT    NOT NULL,
	full_name        TEXT    NOT NULL,
	role             INTEGER NOT NULL,
	is_active        INTEGER NOT NULL,
	bot_type         INTEGER NOT NULL,
	-- bot_owner_id is 0 for humans and bots without owner.
	bot_owner_id     INTEGER NOT NULL,
	date_joined      INTEGER NOT NULL,
	last_login       INTEGER NOT NULL,
	is_imported_stub INTEGER NOT NULL,
	timezone         TEXT    NOT NULL,
	avatar_source    TEXT    NOT NULL,
	avatar_version   INTEGER NOT NULL,
	api_key          TEXT    NOT NULL UNIQUE,
	password_hash    TEXT    NOT NULL,
	email_visibility INTEGER NOT NULL,
	UNIQUE (realm_id, email_key)
) STRICT;

-- Every index ends with the implicit rowid (id), so each lookup below
-- returns its rows in ID order without sorting.
CREATE INDEX users_realm ON users (realm_id);
CREATE INDEX users_realm_role ON users (realm_id, role);
CREATE INDEX users_bot_owner ON users (bot_owner_id);

CREATE TRIGGER users_insert AFTER INSERT ON users BEGIN
	UPDATE realms SET users_version = users_version + 1 WHERE id = NEW.realm_id;
END;
CREATE TRIGGER users_update AFTER UPDATE ON users BEGIN
	UPDATE realms SET users_version = users_version + 1 WHERE id IN (OLD.realm_id, NEW.realm_id);
END;
CREATE TRIGGER users_delete AFTER DELETE ON users BEGIN
	UPDATE realms SET users_version = users_version + 1 WHERE id = OLD.realm_id;
END;
