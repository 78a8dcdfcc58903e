-- user_messages again, without its foreign keys. The store writes these
-- rows only for users and messages it has just read (CreateUserMessages'
-- contract), and checking both parents of every row was about a quarter
-- of the cost of a big channel's message: a thousand rows, two lookups
-- each (storage/sqlite BenchmarkFanoutSenders, 99 against 129 msg/s).
-- DeleteMessages deletes a message's rows itself, which ON DELETE
-- CASCADE did before.
CREATE TABLE user_messages_next (
	user_id    INTEGER NOT NULL,
	message_id INTEGER NOT NULL,
	flags      INTEGER NOT NULL,
	PRIMARY KEY (user_id, message_id)
) STRICT, WITHOUT ROWID;
INSERT INTO user_messages_next (user_id, message_id, flags)
	SELECT user_id, message_id, flags FROM user_messages ORDER BY user_id, message_id;
DROP TABLE user_messages;
ALTER TABLE user_messages_next RENAME TO user_messages;
CREATE INDEX user_messages_message ON user_messages (message_id);
CREATE INDEX user_messages_unread ON user_messages (user_id, message_id, flags) WHERE flags & 1 = 0;
CREATE INDEX user_messages_starred ON user_messages (user_id, message_id, flags) WHERE flags & 2 != 0;
