-- The file name of a custom emoji's image, "" for an emoji without one.
ALTER TABLE realm_emoji ADD COLUMN file_name TEXT NOT NULL DEFAULT '';
