-- How long after sending users below moderator may move a message to
-- another topic or channel, in seconds (0: no limit); the reference's
-- default is a week.
ALTER TABLE realms ADD COLUMN move_messages_within_stream_limit_seconds BIGINT NOT NULL DEFAULT 604800;
ALTER TABLE realms ADD COLUMN move_messages_between_streams_limit_seconds BIGINT NOT NULL DEFAULT 604800;
