package chat

import (
	"slices"
	"strings"

	"github.com/teamchat/chat/storage"
)

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
