package storage

import "time"

// Visibility policies of a user's topic (UserTopic.VisibilityPolicy).
const (
	TopicInherit  = 0
	TopicMuted    = 1
	TopicUnmuted  = 2
	TopicFollowed = 3
)

// UserTopic is a user's visibility policy for one topic of a channel. A
// topic without a stored row has the policy TopicInherit.
type UserTopic struct {
	UserID    int64
	ChannelID int64
	// Topic is the name as the user last set it; rows are keyed by
	// TopicKey(Topic).
	Topic            string
	VisibilityPolicy int
	LastUpdated      time.Time
}

// UserTopicTx stores users' topic visibility policies.
type UserTopicTx interface {
	// SetUserTopic stores ut, replacing the row of the same user, channel
	// and TopicKey; a TopicInherit policy removes the row instead.
	SetUserTopic(ut UserTopic) error
	// UserTopic returns the user's row for the topic, or ErrNotFound.
	UserTopic(userID, channelID int64, topicKey string) (UserTopic, error)
	// UserTopics returns the user's rows ordered by channel ID then
	// TopicKey.
	UserTopics(userID int64) ([]UserTopic, error)
	// DeleteTopicUserTopics removes every user's row for the channel's
	// topic and returns the removed rows ordered by user ID.
	DeleteTopicUserTopics(channelID int64, topicKey string) ([]UserTopic, error)
}
