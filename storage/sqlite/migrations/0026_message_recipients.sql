-- A message's recipients, one row a message: the IDs of the users with a
-- row of user_messages for it, a JSON array in ascending order. It takes
-- the place of the index of user_messages by message: a big channel's
-- message wrote a thousand entries into it, one row here
-- (storage/sqlite BenchmarkFanoutSenders, deferred: 150 and 153 msg/s
-- against 122 and 135 with the index). The store keeps both in step
-- (fanout.go, recipients.go); rows still pending are listed once settled.
CREATE TABLE message_recipients (
	message_id INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
	user_ids   TEXT    NOT NULL
) STRICT;
INSERT INTO message_recipients (message_id, user_ids)
	SELECT message_id, json_group_array(user_id ORDER BY user_id) FROM user_messages GROUP BY message_id;
DROP INDEX user_messages_message;
