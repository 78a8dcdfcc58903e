package chat

import (
	"context"
	"time"

	"github.com/teamchat/chat/storage"
)

// CountTopicMessages counts the messages of a channel's topic, for tests.
func (s *Service) CountTopicMessages(ctx context.Context, channelID int64, topic string) int {
	n := 0
	_ = s.view(ctx, noActor, func(tx storage.Tx) error {
		ids, err := tx.TopicMessageIDs(channelID, storage.TopicKey(topic), 1<<30)
		n = len(ids)
		return err
	})
	return n
}

// Hooks for the tests of package chat_test.

// LinkAttachmentsForTest runs the messages code's hook linkAttachments in a
// transaction of its own, as if sender had sent message messageID with
// content.
func (s *Service) LinkAttachmentsForTest(ctx context.Context, sender, messageID int64, content string) error {
	return s.update(ctx, AsUser(sender), func(tx storage.Tx) error {
		u, _, err := s.actor(tx, AsUser(sender))
		if err != nil {
			return err
		}
		return s.linkAttachments(tx, &u, messageID, content)
	})
}

// SetMessageReadCheckerForTest installs the message-access rule that the
// messages code will provide.
func (s *Service) SetMessageReadCheckerForTest(f messageReadChecker) { s.readMessage = f }

// SetMaxUnreadMessagesForTest sets the cap of the unread state, so that
// tests reach it with few messages; it returns a function that restores
// the cap.
func SetMaxUnreadMessagesForTest(n int) (restore func()) {
	old := maxUnreadMessages
	maxUnreadMessages = n
	return func() { maxUnreadMessages = old }
}

// SetMarkReadBatchForTest sets the messages marked read per transaction,
// so that tests cross batches with few messages; it returns a function
// that restores the batch size.
func SetMarkReadBatchForTest(n int) (restore func()) {
	old := markReadBatch
	markReadBatch = n
	return func() { markReadBatch = old }
}

// NewMemBlobsForTest returns the in-memory BlobStore of a Config without
// one, for its conformance test.
func NewMemBlobsForTest() storage.BlobStore { return newMemBlobs(time.Now) }
