package chat

import "context"

// Hooks for the tests of package chat_test.

// LinkAttachmentsForTest runs the messages code's hook linkAttachments in a
// transaction of its own, as if sender had sent message messageID with
// content.
func (s *Service) LinkAttachmentsForTest(ctx context.Context, sender, messageID int64, content string) error {
	return s.update(ctx, func(tx Tx) error {
		u, _, err := s.actor(tx, sender)
		if err != nil {
			return err
		}
		return s.linkAttachments(tx, &u, messageID, content)
	})
}

// SetMessageReadCheckerForTest installs the message-access rule that the
// messages code will provide.
func (s *Service) SetMessageReadCheckerForTest(f MessageReadChecker) { s.readMessage = f }
