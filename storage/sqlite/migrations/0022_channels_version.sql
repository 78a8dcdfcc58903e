-- channels_version changes with every write to the realm's channels, as
-- users_version does with its users, so that the store keeps a realm's
-- channel list (cache.go) while it stays the same: listing channels reads
-- every channel, several times in each POST /register.
ALTER TABLE realms ADD COLUMN channels_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER channels_insert AFTER INSERT ON channels BEGIN
	UPDATE realms SET channels_version = channels_version + 1 WHERE id = NEW.realm_id;
END;
CREATE TRIGGER channels_update AFTER UPDATE ON channels BEGIN
	UPDATE realms SET channels_version = channels_version + 1 WHERE id IN (OLD.realm_id, NEW.realm_id);
END;
CREATE TRIGGER channels_delete AFTER DELETE ON channels BEGIN
	UPDATE realms SET channels_version = channels_version + 1 WHERE id = OLD.realm_id;
END;
