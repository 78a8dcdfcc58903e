package chat

import (
	"slices"
	"strconv"
	"time"

	"github.com/teamchat/chat/storage"
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
	RecipientChannel = storage.RecipientChannel
	RecipientDirect  = storage.RecipientDirect
)

// botMessages collects the notification bot's messages of one operation,
// sent in one batch when the operation ends.
type botMessages struct {
	realmID int64
	now     time.Time
	list    []*storage.MessageRecord
}

// toChannel queues a message to a channel topic.
func (b *botMessages) toChannel(c *storage.Channel, topic, content string) {
	b.list = append(b.list, &storage.MessageRecord{RealmID: b.realmID, SenderID: NotificationBotID,
		RecipientType: RecipientChannel, ChannelID: c.ID, Topic: topic, Content: content,
		DateSent: b.now, Client: "Internal"})
}

// direct queues a direct message to the user.
func (b *botMessages) direct(userID int64, content string) {
	b.list = append(b.list, &storage.MessageRecord{RealmID: b.realmID, SenderID: NotificationBotID,
		RecipientType: RecipientDirect, DirectUserIDs: []int64{userID}, Content: content,
		DateSent: b.now, Client: "Internal"})
}

// sendBotMessages renders and delivers the queued messages (see deliver)
// and refreshes the first_message_id of the operation's copies of the
// channels.
func (s *Service) sendBotMessages(tx storage.Tx, emit func(Event), b *botMessages, channels map[int64]*storage.Channel,
	subscribers map[int64][]int64) error {
	if len(b.list) == 0 {
		return nil
	}
	if err := s.deliver(tx, emit, b.realmID, b.list, deliverOptions{subscribers: subscribers}); err != nil {
		return err
	}
	for _, c := range channels {
		stored, err := tx.Channel(c.ID)
		if err != nil {
			return err
		}
		c.FirstMessageID = stored.FirstMessageID
	}
	return nil
}

// mention is the silent or loud mention syntax of a user.
func mention(u *storage.UserRecord, silent bool) string {
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
