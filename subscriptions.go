package chat

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// Limits of channel names and descriptions, in Unicode
// code points.
const (
	MaxChannelNameLength        = 60
	MaxChannelDescriptionLength = 1024
	MaxTopicLength              = 60
	MaxFolderNameLength         = 60
	MaxFolderDescriptionLength  = 1024
	// maxBulkNewSubscriptionMessages bounds the direct messages one
	// subscribe request sends to users subscribed by someone else.
	maxBulkNewSubscriptionMessages = 100
)

// TopicsPolicy says whether a channel's messages may use the empty topic.
type TopicsPolicy string

// The topics policies.
const (
	TopicsInherit         TopicsPolicy = "inherit"
	TopicsAllowEmpty      TopicsPolicy = "allow_empty_topic"
	TopicsDisableEmpty    TopicsPolicy = "disable_empty_topic"
	TopicsEmptyTopicOnly  TopicsPolicy = "empty_topic_only"
	retentionUnlimited                 = -1
	retentionRealmDefault              = 0
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
	c.CanAddSubscribersGroup = c.CanAddSubscribersGroup.clone()
	c.CanRemoveSubscribersGroup = c.CanRemoveSubscribersGroup.clone()
	c.CanAdministerChannelGroup = c.CanAdministerChannelGroup.clone()
	c.CanDeleteAnyMessageGroup = c.CanDeleteAnyMessageGroup.clone()
	c.CanDeleteOwnMessageGroup = c.CanDeleteOwnMessageGroup.clone()
	c.CanSendMessageGroup = c.CanSendMessageGroup.clone()
	c.CanSubscribeGroup = c.CanSubscribeGroup.clone()
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
	// ChannelsByName returns the realm's channels whose ChannelNameKey is
	// one of keys (which are already keys), ordered by ID.
	ChannelsByName(realmID int64, keys []string) ([]Channel, error)
	// Channels returns the realm's channels ordered by ID.
	Channels(realmID int64) ([]Channel, error)
	// UpdateChannel replaces the stored channel with c.ID, or returns
	// ErrNotFound. ErrExists as for CreateChannels.
	UpdateChannel(c Channel) error

	// CreateSubscriptions stores the subscriptions; the users and channels
	// must exist. It returns ErrExists, storing none, when one of them
	// exists already.
	CreateSubscriptions(subs []Subscription) error
	// Subscription returns the user's subscription to the channel, or
	// ErrNotFound.
	Subscription(userID, channelID int64) (Subscription, error)
	// SubscriptionsOfUsers returns the subscriptions of the users, ordered
	// by user ID then channel ID.
	SubscriptionsOfUsers(userIDs []int64) ([]Subscription, error)
	// SubscriptionColors returns the distinct colours of the users'
	// subscriptions, keyed by user ID, each user's sorted; users without
	// subscriptions have no entry.
	SubscriptionColors(userIDs []int64) (map[int64][]string, error)
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

// checkChannelName strips name and checks it.
func checkChannelName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errorf("Channel name can't be empty.")
	}
	if utf8.RuneCountInString(name) > MaxChannelNameLength {
		return "", errorf("Channel name too long (limit: %d characters).", MaxChannelNameLength)
	}
	if pos := badCharacter(name); pos > 0 {
		return "", errorf("Invalid character in channel name, at position %d.", pos)
	}
	return name, nil
}

// badCharacter returns the 1-based position of the first control,
// surrogate or non-character code point of s, or 0.
func badCharacter(s string) int {
	i := 0
	for _, r := range s {
		i++
		if r == utf8.RuneError || unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cs, r) || isNonCharacter(r) {
			return i
		}
	}
	return 0
}

func isNonCharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || r&0xFFFE == 0xFFFE
}

// channelPalette is the reference server's palette of subscription colours.
var channelPalette = []string{
	"#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
	"#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
	"#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
}

// pickColor chooses the colour of a new subscription: the first colour of
// the palette that the user does not use yet, or one by channel ID when all
// are taken.
func pickColor(used map[string]bool, channelID int64) string {
	for _, c := range channelPalette {
		if !used[c] {
			used[c] = true
			return c
		}
	}
	return channelPalette[int(channelID)%len(channelPalette)]
}

// validColor reports whether s is # and 3 to 6 hex digits, as the
// reference server accepts.
func validColor(s string) bool {
	if len(s) < 4 || len(s) > 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// channelAccess is what decides what a user may do with one channel.
type channelAccess struct {
	user       *UserRecord
	g          *groups
	subscribed bool
}

// content reports whether the user may read the channel's messages.
func (a channelAccess) content(c *Channel) bool {
	switch {
	case a.subscribed, c.IsWebPublic:
		return true
	case a.user.Role == RoleGuest:
		return false
	case !c.InviteOnly:
		return true
	}
	return a.g.allows(c.CanAddSubscribersGroup, a.user) || a.g.allows(c.CanSubscribeGroup, a.user)
}

// metadata reports whether the user may see that the channel exists.
func (a channelAccess) metadata(c *Channel) bool {
	return a.content(c) || a.administers(c)
}

// administers reports whether the user may administer the channel;
// administrators of the organization always may.
func (a channelAccess) administers(c *Channel) bool {
	return a.user.Role.IsAdmin() || a.g.allows(c.CanAdministerChannelGroup, a.user)
}

// addSubscribers reports whether the user may subscribe others to the
// channel: channel administrators, members of can_add_subscribers_group,
// and members who can see a public channel or are subscribed to a private
// one (the organization-wide rule of the reference server's defaults).
func (a channelAccess) addSubscribers(c *Channel) bool {
	if a.administers(c) || a.g.allows(c.CanAddSubscribersGroup, a.user) {
		return true
	}
	return a.user.Role != RoleGuest && (!c.InviteOnly || a.subscribed)
}

// removeSubscribers reports whether the user may unsubscribe others.
// Administrators count as members of can_remove_subscribers_group.
func (a channelAccess) removeSubscribers(c *Channel) bool {
	return a.administers(c) || (a.content(c) && a.g.allows(c.CanRemoveSubscribersGroup, a.user))
}

// subscribedSet returns the IDs of the channels the user is subscribed to.
func subscribedSet(tx Tx, userID int64) (map[int64]Subscription, error) {
	subs, err := tx.SubscriptionsOfUsers([]int64{userID})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Subscription, len(subs))
	for _, s := range subs {
		out[s.ChannelID] = s
	}
	return out, nil
}

// subscriberIDs groups subscriptions by channel.
func subscriberIDs(subs []Subscription) map[int64][]int64 {
	out := map[int64][]int64{}
	for _, s := range subs {
		out[s.ChannelID] = append(out[s.ChannelID], s.UserID)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}
