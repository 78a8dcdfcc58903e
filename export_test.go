package chat

import "context"

// CountTopicMessages counts the messages of a channel's topic, for tests.
func (s *Service) CountTopicMessages(ctx context.Context, channelID int64, topic string) int {
	n := 0
	_ = s.view(ctx, func(tx Tx) error {
		ids, err := tx.TopicMessageIDs(channelID, TopicKey(topic), 1<<30)
		n = len(ids)
		return err
	})
	return n
}
