-- A user group's permission settings, as the JSON of
-- storage.UserGroupSettings; empty settings stand for the defaults.
ALTER TABLE user_groups ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
