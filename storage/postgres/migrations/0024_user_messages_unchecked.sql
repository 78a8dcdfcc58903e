-- The users' rows of messages lose their foreign keys. The store writes
-- them only for users and messages it has just read (CreateUserMessages'
-- contract); checking them locked every recipient's users row FOR KEY
-- SHARE, so that eight senders to one big channel each locked the same
-- thousand rows, and each lock is a write to the users' pages.
-- DeleteMessages deletes a message's rows itself, which ON DELETE
-- CASCADE did before.
ALTER TABLE user_messages DROP CONSTRAINT user_messages_user_id_fkey;
ALTER TABLE user_messages DROP CONSTRAINT user_messages_message_id_fkey;
