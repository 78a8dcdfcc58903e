-- The language of code blocks whose fence names none; '' for none.
ALTER TABLE realms ADD COLUMN default_code_block_language TEXT NOT NULL DEFAULT '';
