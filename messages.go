package chat

import (
	"html"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NotificationBotID is the sender ID of the messages of the notification
// bot, the service's own cross-realm bot. It is not a stored user, so it is
// in no organization's user list (the reference server likewise leaves its
// cross-realm bots out of GET /users).
const NotificationBotID int64 = 0

// NotificationBotName and NotificationBotEmail describe the notification
// bot.
const (
	NotificationBotName  = "Notification Bot"
	NotificationBotEmail = "notification-bot@zulip.com"
)

// Recipient kinds of a message.
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
}

// MessageTx stores messages.
type MessageTx interface {
	// CreateMessages stores the messages under new increasing IDs, in order,
	// and sets their IDs.
	CreateMessages(ms []*MessageRecord) error
	// Message returns the message with the ID, or ErrNotFound.
	Message(id int64) (MessageRecord, error)
	// TopicMessageIDs returns the IDs of the channel's messages whose
	// TopicKey equals topicKey, newest (highest ID) first, at most limit.
	TopicMessageIDs(channelID int64, topicKey string, limit int) ([]int64, error)
	// DeleteMessages removes the messages with the IDs; unknown IDs are
	// skipped.
	DeleteMessages(ids []int64) error
	// OldestChannelMessageID returns the lowest ID of the channel's
	// messages, or 0 when it has none.
	OldestChannelMessageID(channelID int64) (int64, error)
}

// renderContent renders message content as HTML. Until the Markdown
// processor lands it is one escaped paragraph.
func renderContent(content string) string {
	return "<p>" + strings.ReplaceAll(html.EscapeString(content), "\n", "<br>\n") + "</p>"
}

// botMessages collects the notification bot's messages of one operation,
// sent in one batch when the operation ends.
type botMessages struct {
	realmID int64
	now     time.Time
	list    []*MessageRecord
}

// toChannel queues a message to a channel topic.
func (b *botMessages) toChannel(c *Channel, topic, content string) {
	b.list = append(b.list, &MessageRecord{RealmID: b.realmID, SenderID: NotificationBotID,
		RecipientType: RecipientChannel, ChannelID: c.ID, Topic: topic, Content: content,
		RenderedContent: renderContent(content), DateSent: b.now})
}

// direct queues a direct message to the user.
func (b *botMessages) direct(userID int64, content string) {
	b.list = append(b.list, &MessageRecord{RealmID: b.realmID, SenderID: NotificationBotID,
		RecipientType: RecipientDirect, DirectUserIDs: []int64{userID}, Content: content,
		RenderedContent: renderContent(content), DateSent: b.now})
}

// send stores the queued messages and records each channel's first
// message.
func (b *botMessages) send(tx Tx, channels map[int64]*Channel) error {
	if len(b.list) == 0 {
		return nil
	}
	if err := tx.CreateMessages(b.list); err != nil {
		return err
	}
	for _, m := range b.list {
		if m.RecipientType != RecipientChannel {
			continue
		}
		c := channels[m.ChannelID]
		if c != nil && c.FirstMessageID == 0 {
			c.FirstMessageID = m.ID
			if err := tx.UpdateChannel(*c); err != nil {
				return err
			}
		}
	}
	return nil
}

// mention is the silent or loud mention syntax of a user.
func mention(u *UserRecord, silent bool) string {
	prefix := "@**"
	if silent {
		prefix = "@_**"
	}
	return prefix + u.FullName + "|" + strconv.FormatInt(u.ID, 10) + "**"
}

// channelLink is the Markdown link to a channel.
func channelLink(name string) string { return "#**" + name + "**" }

// sortedNames returns the names sorted.
func sortedNames(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}
