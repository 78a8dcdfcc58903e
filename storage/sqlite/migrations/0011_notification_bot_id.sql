-- The notification bot's messages carry its stable user ID (2147483647,
-- chat.NotificationBotID) instead of 0, so that clients can name their
-- sender.
UPDATE messages SET sender_id = 2147483647 WHERE sender_id = 0;
