package storage

import "time"

// MessageEditRecord is one edit or move of a message: who made it, when,
// and what the message was before. Fields a change did not touch are
// nil or 0.
type MessageEditRecord struct {
	MessageID int64
	UserID    int64
	Time      time.Time
	// PrevContent and PrevRenderedContent are set by a content edit.
	PrevContent, PrevRenderedContent *string
	// PrevTopic and Topic are set by a move to another topic.
	PrevTopic, Topic *string
	// PrevChannelID and ChannelID are set by a move to another channel.
	PrevChannelID, ChannelID int64
}

// MessageEditTx stores the edit history of messages.
type MessageEditTx interface {
	// AddMessageEdits stores the records, in one batch; the messages must
	// exist. A message's records go when the message does.
	AddMessageEdits(edits []MessageEditRecord) error
	// MessageEdits returns the records of the messages, ordered by message
	// and then in the order they were added.
	MessageEdits(messageIDs []int64) ([]MessageEditRecord, error)
}
