-- A user's attachments are listed by owner (GET /attachments).
CREATE INDEX attachments_owner ON attachments (owner_id);
