-- The edit history of messages: one row per content edit or move, with
-- what the message was before.
CREATE TABLE message_edits (
	id                    BIGSERIAL PRIMARY KEY,
	message_id            BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
	user_id               BIGINT NOT NULL,
	-- edited_at is in nanoseconds since 1970.
	edited_at             BIGINT NOT NULL,
	prev_content          TEXT,
	prev_rendered_content TEXT,
	prev_topic            TEXT,
	topic                 TEXT,
	prev_channel_id       BIGINT NOT NULL DEFAULT 0,
	channel_id            BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX message_edits_message ON message_edits (message_id, id);
