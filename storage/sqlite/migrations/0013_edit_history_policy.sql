-- Which edit history the organization's users see: all, moves or none.
ALTER TABLE realms ADD COLUMN message_edit_history_visibility_policy TEXT NOT NULL DEFAULT 'all';
