-- The flagless rows of a new message to many recipients (a big channel's
-- subscribers) are first written here, one row for the message: the
-- recipients' IDs, a JSON array in ascending order. Written one message at
-- a time, each of those rows would land on its own page of user_messages
-- and of its unread index; fanout.go moves them into user_messages for
-- many messages at once, and every read of the users' rows counts them
-- until then.
CREATE TABLE user_messages_pending (
	message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
	user_ids   TEXT    NOT NULL
) STRICT;
