package storage

import (
	"slices"
	"time"
)

// Recipient kinds of a message (MessageRecord.RecipientType).
const (
	RecipientChannel = 1
	RecipientDirect  = 2
)

// MessageRecord is a message as stored.
type MessageRecord struct {
	ID       int64
	RealmID  int64
	SenderID int64
	// RecipientType is RecipientChannel (ChannelID and Topic are set) or
	// RecipientDirect (DirectUserIDs lists every participant, sorted).
	RecipientType   int
	ChannelID       int64
	DirectUserIDs   []int64
	Topic           string
	Content         string
	RenderedContent string
	DateSent        time.Time
	// Client is the name of the sending program, such as "website".
	Client string
	// EditedAt is when the content was last edited; zero for never.
	EditedAt time.Time
	// HasLink, HasImage and HasAttachment describe the rendered content,
	// for the narrow operator "has".
	HasLink, HasImage, HasAttachment bool
}

// MessageFlags are one user's flags on a message, a bit set.
type MessageFlags uint32

// The message flags, in the order of their wire names.
const (
	FlagRead MessageFlags = 1 << iota
	FlagStarred
	FlagMentioned
	FlagStreamWildcardMentioned
	FlagTopicWildcardMentioned
	FlagHasAlertWord
	// FlagHistorical marks a message the user did not receive but reads
	// through a channel's public history. It is stored on the rows made
	// when such a user sets a flag (stars a message, say).
	FlagHistorical
	// FlagCollapsed is set by the user to show the message collapsed.
	FlagCollapsed
)

var flagNames = []string{"read", "starred", "mentioned", "stream_wildcard_mentioned",
	"topic_wildcard_mentioned", "has_alert_word", "historical", "collapsed"}

// FlagByName returns the flag with the wire name, and whether there is
// one.
func FlagByName(name string) (MessageFlags, bool) {
	for i, n := range flagNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Names returns the wire names of the flags that are set, in a fixed order.
func (f MessageFlags) Names() []string {
	out := []string{}
	for i, name := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// MentionedAny reports whether the flags make the message one that
// mentions the user (is:mentioned).
func (f MessageFlags) MentionedAny() bool {
	return f&(FlagMentioned|FlagStreamWildcardMentioned|FlagTopicWildcardMentioned) != 0
}

// UserMessage is a user's row for a message they received, with their
// flags. Access to direct messages and to the protected history of private
// channels follows these rows.
type UserMessage struct {
	UserID    int64
	MessageID int64
	Flags     MessageFlags
}

// Reaction is one user's emoji reaction to a message.
type Reaction struct {
	MessageID    int64
	UserID       int64
	EmojiName    string
	EmojiCode    string
	ReactionType ReactionType
}

// MessageFilter selects messages for FindMessages. Every set field must
// hold.
type MessageFilter struct {
	RealmID int64
	// UserID names the reader: only messages with a UserMessage row of the
	// user qualify, and the user's flags are returned with them.
	UserID int64
	// ChannelHistory also admits every message of ChannelID, received or
	// not (the channel's history is open to the reader).
	ChannelHistory bool
	// ChannelID, when not zero, keeps the channel's messages only.
	ChannelID int64
	// TopicKey, when not nil, keeps the messages whose TopicKey equals it.
	TopicKey *string
	// SenderID, when not zero, keeps the messages this user sent. It
	// narrows what the reader may read (UserID, ChannelHistory) and
	// reveals nothing else.
	SenderID int64
	// DirectUserIDs, when not empty, keeps the direct messages whose
	// participants (MessageRecord.DirectUserIDs) are exactly these users:
	// one conversation. The order and repeats of the IDs do not matter.
	// Like SenderID it only narrows what the reader may read: a
	// conversation the reader is not part of has no rows of theirs.
	DirectUserIDs []int64
	// IDs, when not nil, keeps the messages with these IDs.
	IDs []int64
	// Search, when not empty, keeps messages whose topic or content
	// contains every one of these words (SearchWords of the query).
	Search []string
	// Unread keeps, with UserID, the messages whose row lacks FlagRead.
	Unread bool
	// Starred keeps, with UserID, the messages whose row has FlagStarred.
	Starred bool
	// MinID and MaxID bound the IDs, inclusive; MaxID zero means none.
	MinID, MaxID int64
	// Descending returns the highest IDs first.
	Descending bool
	// Limit bounds the number of rows; zero means none.
	Limit int
	// WithoutContent leaves Content and RenderedContent empty, for callers
	// that need only where the messages are (the unread state of
	// register): up to 50 000 long messages would otherwise be read, tens
	// of kilobytes each once rendered.
	WithoutContent bool
}

// DirectUserSet returns ids sorted and without repeats, a new slice: the
// form of MessageRecord.DirectUserIDs, which backends compare with a
// MessageFilter's DirectUserIDs.
func DirectUserSet(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// MessageRow is a message that FindMessages found, with the reader's
// flags; Received is false for a message read through channel history.
type MessageRow struct {
	Message  MessageRecord
	Flags    MessageFlags
	Received bool
}

// MessageTx stores messages, the users' rows for them, and reactions.
type MessageTx interface {
	// CreateMessages stores the messages under new increasing IDs, in order,
	// and sets their IDs.
	CreateMessages(ms []*MessageRecord) error
	// Message returns the message with the ID, or ErrNotFound.
	Message(id int64) (MessageRecord, error)
	// UpdateMessage replaces the stored message with m.ID (its search
	// index included), or returns ErrNotFound. Its recipient type stays;
	// a channel message may change channel (a move).
	UpdateMessage(m MessageRecord) error
	// TopicMessageIDs returns the IDs of the channel's messages whose
	// TopicKey equals topicKey, newest (highest ID) first, at most limit.
	TopicMessageIDs(channelID int64, topicKey string, limit int) ([]int64, error)
	// DeleteMessages removes the messages with the IDs, their users' rows
	// and their reactions; unknown IDs are skipped.
	DeleteMessages(ids []int64) error
	// OldestChannelMessageID returns the lowest ID of the channel's
	// messages, or 0 when it has none.
	OldestChannelMessageID(channelID int64) (int64, error)

	// CreateUserMessages stores the rows, in one batch; the messages and
	// users must exist. It returns ErrExists, storing none, when a user
	// already has a row for the message.
	CreateUserMessages(rows []UserMessage) error
	// DeleteUserMessages removes the rows of the users for the messages
	// (users who lose access to moved messages); rows that do not exist
	// are skipped.
	DeleteUserMessages(userIDs, messageIDs []int64) error
	// UpdateUserMessageFlags sets the flags set and then clears the flags
	// clear on the user's rows of the messages; messages the user has no
	// row for are skipped. It returns the IDs of the messages whose flags
	// changed, in increasing order.
	UpdateUserMessageFlags(userID int64, messageIDs []int64, set, clear MessageFlags) ([]int64, error)
	// MessageRecipients returns every row of the message, ordered by user
	// ID.
	MessageRecipients(messageID int64) ([]UserMessage, error)
	// FindMessages returns the messages that f selects, ordered by ID
	// (descending when f.Descending), at most f.Limit.
	FindMessages(f MessageFilter) ([]MessageRow, error)

	// CreateReaction stores r. It returns ErrExists when the user already
	// reacted to the message with the same EmojiCode and ReactionType.
	CreateReaction(r Reaction) error
	// DeleteReaction removes the user's reaction to the message with r's
	// EmojiCode and ReactionType, or returns ErrNotFound.
	DeleteReaction(r Reaction) error
	// Reactions returns the reactions to the messages, ordered by message
	// ID, then in the order they were made.
	Reactions(messageIDs []int64) ([]Reaction, error)
}
