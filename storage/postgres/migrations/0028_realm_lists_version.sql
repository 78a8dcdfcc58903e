-- Each organization carries a version of the small lists that every
-- message reads: its user groups, linkifiers and alert words, and who
-- muted whom among its users. Every change to them replaces it, so that a
-- process can keep the lists and read none of them while the version it
-- read them at holds (realmlists.go): four of a send's round trips. As
-- for a channel's subscribers (migration 27), a version is taken from a
-- sequence, never twice, and triggers replace it whoever writes the
-- lists.
CREATE SEQUENCE realm_lists_versions;
ALTER TABLE realms ADD COLUMN lists_version BIGINT NOT NULL
	DEFAULT nextval('realm_lists_versions');

-- For the lists whose rows name their organization.
CREATE FUNCTION realm_lists_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT realm_id FROM new_rows);
	ELSIF TG_OP = 'DELETE' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT realm_id FROM old_rows);
	ELSIF TG_OP = 'UPDATE' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT realm_id FROM old_rows UNION SELECT realm_id FROM new_rows);
	ELSE
		UPDATE realms SET lists_version = nextval('realm_lists_versions');
	END IF;
	RETURN NULL;
END
$$;

-- Mutes name users; their organizations are the users'.
CREATE FUNCTION muted_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT u.realm_id FROM users u JOIN new_rows m ON u.id IN (m.user_id, m.muted_user_id));
	ELSIF TG_OP = 'DELETE' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT u.realm_id FROM users u JOIN old_rows m ON u.id IN (m.user_id, m.muted_user_id));
	ELSIF TG_OP = 'UPDATE' THEN
		UPDATE realms SET lists_version = nextval('realm_lists_versions')
			WHERE id IN (SELECT u.realm_id FROM users u JOIN old_rows m ON u.id IN (m.user_id, m.muted_user_id)
				UNION SELECT u.realm_id FROM users u JOIN new_rows m ON u.id IN (m.user_id, m.muted_user_id));
	ELSE
		UPDATE realms SET lists_version = nextval('realm_lists_versions');
	END IF;
	RETURN NULL;
END
$$;

-- PostgreSQL gives a trigger with transition tables one event only.
CREATE TRIGGER user_groups_added AFTER INSERT ON user_groups
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER user_groups_removed AFTER DELETE ON user_groups
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER user_groups_changed AFTER UPDATE ON user_groups
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER user_groups_truncated AFTER TRUNCATE ON user_groups
	FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();

CREATE TRIGGER linkifiers_added AFTER INSERT ON linkifiers
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER linkifiers_removed AFTER DELETE ON linkifiers
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER linkifiers_changed AFTER UPDATE ON linkifiers
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER linkifiers_truncated AFTER TRUNCATE ON linkifiers
	FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();

CREATE TRIGGER alert_words_added AFTER INSERT ON alert_words
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER alert_words_removed AFTER DELETE ON alert_words
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER alert_words_changed AFTER UPDATE ON alert_words
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();
CREATE TRIGGER alert_words_truncated AFTER TRUNCATE ON alert_words
	FOR EACH STATEMENT EXECUTE FUNCTION realm_lists_changed();

CREATE TRIGGER muted_users_added AFTER INSERT ON muted_users
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION muted_users_changed();
CREATE TRIGGER muted_users_removed AFTER DELETE ON muted_users
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION muted_users_changed();
CREATE TRIGGER muted_users_changed AFTER UPDATE ON muted_users
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION muted_users_changed();
CREATE TRIGGER muted_users_truncated AFTER TRUNCATE ON muted_users
	FOR EACH STATEMENT EXECUTE FUNCTION muted_users_changed();
