-- user_messages in two partitions, the unread rows and the read ones, in
-- place of one table with an index of its unread rows. A message to a big
-- channel gives each recipient an unread row, and each such row went into
-- the table, its key, the index by message and the unread index: the
-- unread index was half of the rows' cost (BENCHMARKS.md, sixth session).
-- Partitioned, a new row goes into the unread partition and its two
-- indexes only, and the unread partition's key is what the unread index
-- was: a query that says flags & 1 = 0 reads that partition alone.
-- Marking a row read moves it to the other partition.
--
-- A key cannot span the partitions (it would have to hold flags & 1), so
-- each partition's (user_id, message_id) is unique on its own;
-- CreateUserMessages looks for a row in both before writing one to a
-- message it did not create (as it did before).
CREATE TABLE user_messages_next (
	user_id    BIGINT NOT NULL,
	message_id BIGINT NOT NULL,
	flags      BIGINT NOT NULL
) PARTITION BY LIST ((flags & 1));
CREATE TABLE user_messages_unread_rows PARTITION OF user_messages_next FOR VALUES IN (0);
CREATE TABLE user_messages_read_rows PARTITION OF user_messages_next FOR VALUES IN (1);
INSERT INTO user_messages_next (user_id, message_id, flags)
	SELECT user_id, message_id, flags FROM user_messages ORDER BY user_id, message_id;
DROP TABLE user_messages;
ALTER TABLE user_messages_next RENAME TO user_messages;
CREATE UNIQUE INDEX user_messages_unread_key ON user_messages_unread_rows (user_id, message_id);
CREATE UNIQUE INDEX user_messages_read_key ON user_messages_read_rows (user_id, message_id);
CREATE INDEX user_messages_message ON user_messages (message_id);
CREATE INDEX user_messages_starred ON user_messages (user_id, message_id, flags) WHERE flags & 2 != 0;
-- Without them the planner takes flags & 1 = 0 for a rare condition even
-- in the unread partition, and sorts a user's unread rows rather than
-- reading the newest from the key.
CREATE STATISTICS user_messages_unread_bit ON (flags & 1) FROM user_messages_unread_rows;
CREATE STATISTICS user_messages_read_bit ON (flags & 1) FROM user_messages_read_rows;
ANALYZE user_messages;
