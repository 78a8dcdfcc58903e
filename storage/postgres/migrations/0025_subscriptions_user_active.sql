-- A subscription carries its user's is_active, so that a channel message
-- finds its recipients in one index of the subscriptions alone. Joined
-- with the users' rows, PostgreSQL hashed the organization's whole users
-- table for each message (4.9 ms a message to 1 000 members in
-- pg_stat_statements, beside 12 ms for its rows), and under SERIALIZABLE
-- a scan of a whole table is a read lock on all of it: any write to any
-- user counted as a conflict with every send in flight. UpdateUser keeps
-- the column in step with users.is_active, and CreateSubscriptions copies
-- it.
ALTER TABLE subscriptions ADD COLUMN user_active BOOLEAN NOT NULL DEFAULT true;
UPDATE subscriptions AS s SET user_active = false FROM users AS u WHERE u.id = s.user_id AND NOT u.is_active;
CREATE INDEX subscriptions_active ON subscriptions (channel_id, user_id) WHERE user_active;
