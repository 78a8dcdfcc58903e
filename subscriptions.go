package chat

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
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
	user       *storage.UserRecord
	g          *groups
	subscribed bool
}

// content reports whether the user may read the channel's messages.
func (a channelAccess) content(c *storage.Channel) bool {
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
func (a channelAccess) metadata(c *storage.Channel) bool {
	return a.content(c) || a.administers(c)
}

// administers reports whether the user may administer the channel;
// administrators of the organization always may.
func (a channelAccess) administers(c *storage.Channel) bool {
	return a.user.Role.IsAdmin() || a.g.allows(c.CanAdministerChannelGroup, a.user)
}

// addSubscribers reports whether the user may subscribe others to the
// channel: channel administrators, members of can_add_subscribers_group,
// and members who can see a public channel or are subscribed to a private
// one (the organization-wide rule of the reference server's defaults).
func (a channelAccess) addSubscribers(c *storage.Channel) bool {
	if a.administers(c) || a.g.allows(c.CanAddSubscribersGroup, a.user) {
		return true
	}
	return a.user.Role != RoleGuest && (!c.InviteOnly || a.subscribed)
}

// removeSubscribers reports whether the user may unsubscribe others.
// Administrators count as members of can_remove_subscribers_group.
func (a channelAccess) removeSubscribers(c *storage.Channel) bool {
	return a.administers(c) || (a.content(c) && a.g.allows(c.CanRemoveSubscribersGroup, a.user))
}

// subscribedSet returns the IDs of the channels the user is subscribed to.
func subscribedSet(tx storage.Tx, userID int64) (map[int64]storage.Subscription, error) {
	subs, err := tx.SubscriptionsOfUsers([]int64{userID})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]storage.Subscription, len(subs))
	for _, s := range subs {
		out[s.ChannelID] = s
	}
	return out, nil
}

// subscriberIDs groups subscriptions by channel.
func subscriberIDs(subs []storage.Subscription) map[int64][]int64 {
	out := map[int64][]int64{}
	for _, s := range subs {
		out[s.ChannelID] = append(out[s.ChannelID], s.UserID)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}
