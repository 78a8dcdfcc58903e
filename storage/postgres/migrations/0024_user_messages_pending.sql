-- The flagless rows of a new message to many recipients (a big channel's
-- subscribers), one row for the message: the recipients' IDs, ascending.
-- fanout.go moves them into user_messages for many messages at once.
CREATE TABLE user_messages_pending (
	message_id BIGINT   PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
	user_ids   BIGINT[] NOT NULL
);
