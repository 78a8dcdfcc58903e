package chat

import (
	"slices"
	"strconv"
	"time"

	"github.com/teamchat/chat/storage"
)

// NotificationBotID is the user ID of the notification bot, which sends
// the organization's automated messages (new channels, moves, reports).
// Like the reference's cross-realm bots it belongs to no organization:
// POST /register lists it in cross_realm_bots, so that clients can show
// who sent its messages. The ID is stable and one no account gets (the
// largest 32-bit one, within every client's integer range).
const NotificationBotID int64 = 2147483647

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

// notificationBot is the notification bot as user objects show it.
func notificationBot(realm Realm) User {
	avatar := gravatarURL(NotificationBotEmail, 1)
	return User{UserID: NotificationBotID, Email: NotificationBotEmail, FullName: NotificationBotName,
		DateJoined: realm.DateCreated, IsActive: true, IsBot: true, BotType: BotGeneric, Role: RoleMember,
		AvatarURL: &avatar, AvatarVersion: 1, ProfileData: map[string]ProfileValue{}}
}

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
