-- A user's unread and starred rows, found without reading the user's
-- other rows: POST /register lists the newest unread messages and every
-- starred one of users who may have read hundreds of thousands. The
-- flags are in the index so that reading them needs no second lookup.
CREATE INDEX user_messages_unread ON user_messages (user_id, message_id, flags) WHERE flags & 1 = 0;
CREATE INDEX user_messages_starred ON user_messages (user_id, message_id, flags) WHERE flags & 2 != 0;
