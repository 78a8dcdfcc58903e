package chat

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// This file is the channel-access model: what a user may do with a
// channel (see it, read it, administer it, add or remove its subscribers),
// the context the channel operations read it from, the rules on channel
// names, and the operations that read channels.

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

// channelContext is what the channel-reading operations load once.
type channelContext struct {
	actor storage.UserRecord
	realm Realm
	g     *groups
	subs  map[int64]storage.Subscription
}

// channelContext reads what the channel rules need to know of the actor,
// who may be any user.
func (s *Service) channelContext(tx storage.Tx, actor Actor) (*channelContext, error) {
	return s.channelContextFor(tx, actor, OpChannels)
}

// channelContextFor is channelContext for an operation whose access level
// admit checks.
func (s *Service) channelContextFor(tx storage.Tx, actor Actor, op Operation) (*channelContext, error) {
	u, realm, err := s.admit(tx, actor, op)
	if err != nil {
		return nil, err
	}
	g, err := loadGroups(tx, realm.ID)
	if err != nil {
		return nil, err
	}
	subs, err := subscribedSet(tx, u.ID)
	if err != nil {
		return nil, err
	}
	return &channelContext{actor: u, realm: realm, g: g, subs: subs}, nil
}

func (cc *channelContext) access(c *storage.Channel) channelAccess {
	_, sub := cc.subs[c.ID]
	return channelAccess{user: &cc.actor, g: cc.g, subscribed: sub}
}

// channel reads a channel of the actor's realm that the actor can see
// (content access when content is true); anything else is
// ErrInvalidChannelID.
func (cc *channelContext) channel(tx storage.Tx, id int64, content bool) (storage.Channel, error) {
	c, err := tx.Channel(id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && c.RealmID != cc.realm.ID) {
		return storage.Channel{}, ErrInvalidChannelID
	}
	if err != nil {
		return storage.Channel{}, err
	}
	a := cc.access(&c)
	if (content && !a.content(&c)) || (!content && !a.metadata(&c)) {
		return storage.Channel{}, ErrInvalidChannelID
	}
	return c, nil
}

// ChannelQuery selects the channels of GET /streams.
type ChannelQuery struct {
	IncludePublic     bool
	IncludeWebPublic  bool
	IncludeSubscribed bool
	IncludeAll        bool
	IncludeDefault    bool
	ExcludeArchived   bool
}

// DefaultChannelQuery is GET /streams without parameters.
var DefaultChannelQuery = ChannelQuery{IncludePublic: true, IncludeSubscribed: true, ExcludeArchived: true}

// Channels returns the channels of the actor's organization that q selects
// and the actor may see, sorted by name. IncludeAll selects every channel
// whose metadata the actor may see (all of them for administrators), as
// the reference server does since feature level 356; guests never get
// public channels they are not subscribed to. Errors: those of the actor
// check.
func (s *Service) Channels(ctx context.Context, actor Actor, q ChannelQuery) ([]ChannelView, error) {
	var out []ChannelView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		all, err := tx.Channels(cc.realm.ID)
		if err != nil {
			return err
		}
		out, err = cc.channelViews(tx, all, func(c *storage.Channel) bool { return cc.selects(q, c) }, q.IncludeDefault)
		return err
	})
	return out, err
}

// selects reports whether q selects the channel c for the actor.
func (cc *channelContext) selects(q ChannelQuery, c *storage.Channel) bool {
	if q.ExcludeArchived && c.IsArchived {
		return false
	}
	_, sub := cc.subs[c.ID]
	a := cc.access(c)
	return (q.IncludeAll && a.metadata(c)) ||
		(q.IncludeSubscribed && sub) ||
		(q.IncludeWebPublic && c.IsWebPublic) ||
		(q.IncludePublic && !c.InviteOnly && cc.actor.Role != RoleGuest) ||
		(q.IncludeDefault && c.IsDefault && a.metadata(c))
}

// channelViews are the channels of all that keep selects, with their
// subscriber counts (and is_default when withDefault), sorted by name.
func (cc *channelContext) channelViews(tx storage.Tx, all []storage.Channel, keep func(*storage.Channel) bool, withDefault bool) ([]ChannelView, error) {
	var picked []*storage.Channel
	for i := range all {
		if keep(&all[i]) {
			picked = append(picked, &all[i])
		}
	}
	ids := make([]int64, len(picked))
	for i, c := range picked {
		ids[i] = c.ID
	}
	counts, err := storage.SubscriberCounts(tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ChannelView, len(picked))
	for i, c := range picked {
		out[i] = viewChannel(c, counts[c.ID])
		if withDefault {
			out[i].IsDefault = ptrTo(c.IsDefault)
		}
	}
	slices.SortFunc(out, func(a, b ChannelView) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.StreamID, b.StreamID))
	})
	return out, nil
}

// ChannelByID returns the channel object of a channel the actor may see.
// Errors: ErrInvalidChannelID, and those of the actor check.
func (s *Service) ChannelByID(ctx context.Context, actor Actor, id int64) (ChannelView, error) {
	var out ChannelView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, id, false)
		if err != nil {
			return err
		}
		subs, err := tx.ChannelSubscriptions([]int64{id})
		if err != nil {
			return err
		}
		out = viewChannel(&c, len(subs))
		return nil
	})
	return out, err
}
