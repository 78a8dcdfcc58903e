package storage

import (
	"time"

	"golang.org/x/text/cases"
)

// TopicsPolicy says whether a channel's messages may use the empty topic.
type TopicsPolicy string

// The topics policies.
const (
	TopicsInherit         TopicsPolicy = "inherit"
	TopicsAllowEmpty      TopicsPolicy = "allow_empty_topic"
	TopicsDisableEmpty    TopicsPolicy = "disable_empty_topic"
	TopicsEmptyTopicOnly  TopicsPolicy = "empty_topic_only"
	RetentionUnlimited                 = -1
	RetentionRealmDefault              = 0
)

// Valid reports whether p is one of the four policies.
func (p TopicsPolicy) Valid() bool {
	switch p {
	case TopicsInherit, TopicsAllowEmpty, TopicsDisableEmpty, TopicsEmptyTopicOnly:
		return true
	}
	return false
}

// Channel is a channel (stream) as stored.
type Channel struct {
	ID      int64
	RealmID int64
	Name    string
	// Description is the Markdown source; RenderedDescription its HTML.
	Description         string
	RenderedDescription string
	DateCreated         time.Time
	// CreatorID is zero when unknown.
	CreatorID                  int64
	InviteOnly                 bool
	IsWebPublic                bool
	HistoryPublicToSubscribers bool
	// IsDefault makes the channel a default channel of new users.
	IsDefault bool
	// MessageRetentionDays is 0 for the organization's setting, -1 for
	// unlimited, otherwise a number of days.
	MessageRetentionDays int
	TopicsPolicy         TopicsPolicy
	// FolderID is zero for none.
	FolderID int64
	// FirstMessageID is the ID of the oldest message, zero for none.
	FirstMessageID int64
	IsArchived     bool

	CanAddSubscribersGroup    GroupSetting
	CanRemoveSubscribersGroup GroupSetting
	CanAdministerChannelGroup GroupSetting
	CanDeleteAnyMessageGroup  GroupSetting
	CanDeleteOwnMessageGroup  GroupSetting
	CanSendMessageGroup       GroupSetting
	CanSubscribeGroup         GroupSetting
}

// Clone returns c with its own slices, for backends that keep values.
func (c Channel) Clone() Channel {
	c.CanAddSubscribersGroup = c.CanAddSubscribersGroup.Clone()
	c.CanRemoveSubscribersGroup = c.CanRemoveSubscribersGroup.Clone()
	c.CanAdministerChannelGroup = c.CanAdministerChannelGroup.Clone()
	c.CanDeleteAnyMessageGroup = c.CanDeleteAnyMessageGroup.Clone()
	c.CanDeleteOwnMessageGroup = c.CanDeleteOwnMessageGroup.Clone()
	c.CanSendMessageGroup = c.CanSendMessageGroup.Clone()
	c.CanSubscribeGroup = c.CanSubscribeGroup.Clone()
	return c
}

var folder = cases.Fold()

// ChannelNameKey is the form under which channel names are compared: names
// equal under Unicode case folding are the same name.
func ChannelNameKey(name string) string { return folder.String(name) }

// TopicKey is the form under which topic names are compared.
func TopicKey(topic string) string { return folder.String(topic) }

// Subscription is a user's subscription to a channel, with its settings.
// The notification settings are nil when they follow the user's defaults.
type Subscription struct {
	UserID                 int64
	ChannelID              int64
	Color                  string
	IsMuted                bool
	PinToTop               bool
	DesktopNotifications   *bool
	AudibleNotifications   *bool
	PushNotifications      *bool
	EmailNotifications     *bool
	WildcardMentionsNotify *bool
}

// ChannelTx stores channels and subscriptions.
type ChannelTx interface {
	// CreateChannels stores the channels under new increasing IDs, in order,
	// and sets their IDs. It returns ErrExists, storing none, when two
	// channels of a realm would have the same ChannelNameKey.
	CreateChannels(cs []*Channel) error
	// Channel returns the channel with the ID, or ErrNotFound.
	Channel(id int64) (Channel, error)
	// Channels returns the realm's channels ordered by ID.
	Channels(realmID int64) ([]Channel, error)
	// UpdateChannel replaces the stored channel with c.ID, or returns
	// ErrNotFound. ErrExists as for CreateChannels.
	UpdateChannel(c Channel) error

	// CreateSubscriptions stores the subscriptions; the users and channels
	// must exist. It returns ErrExists, storing none, when one of them
	// exists already.
	CreateSubscriptions(subs []Subscription) error
	// SubscriptionsOfUsers returns the subscriptions of the users, ordered
	// by user ID then channel ID.
	SubscriptionsOfUsers(userIDs []int64) ([]Subscription, error)
	// ChannelSubscriptions returns the subscriptions to the channels,
	// ordered by channel ID then user ID.
	ChannelSubscriptions(channelIDs []int64) ([]Subscription, error)
	// UpdateSubscription replaces the stored subscription of s.UserID to
	// s.ChannelID, or returns ErrNotFound.
	UpdateSubscription(s Subscription) error
	// DeleteSubscription removes the user's subscription to the channel, or
	// returns ErrNotFound.
	DeleteSubscription(userID, channelID int64) error
}
