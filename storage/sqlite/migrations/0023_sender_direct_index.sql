-- The narrows by sender and by direct conversation read their newest
-- messages in ID order from an index and stop at the limit, instead of
-- reading the reader's rows until enough match. The sender's index has
-- the realm first, as the notification bot sends in every realm. A direct
-- conversation's key is direct_user_ids itself, the JSON array of its
-- sorted participants that the store writes without spaces; the UPDATE
-- writes any other spelling of the same array that way, so that equal
-- conversations have equal keys.
CREATE INDEX messages_sender ON messages (realm_id, sender_id, id);
UPDATE messages SET direct_user_ids = json(direct_user_ids)
	WHERE recipient_type = 2 AND direct_user_ids <> json(direct_user_ids);
CREATE INDEX messages_direct ON messages (realm_id, direct_user_ids, id) WHERE recipient_type = 2;
