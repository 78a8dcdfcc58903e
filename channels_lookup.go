package chat

import (
	"context"
	"errors"
	"slices"

	"github.com/teamchat/chat/storage"
)

// ErrPrivateChannelSubscribers answers a request for the subscribers of a
// private channel that the actor may see but not read.
var ErrPrivateChannelSubscribers = errorf("Unable to retrieve subscribers for private channel")

// ChannelIDByName returns the ID of the actor's organization's channel
// named name, compared as channel names are (without regard to case), when
// the actor may see that the channel exists. Any user may call it.
//
// Errors: "Invalid channel name '{name}'" for a channel that does not
// exist or that the actor may not see; those of the actor check.
func (s *Service) ChannelIDByName(ctx context.Context, actor Actor, name string) (int64, error) {
	var id int64
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpChannelIDByName)
		if err != nil {
			return err
		}
		found, err := storage.ChannelsByName(tx, cc.realm.ID, []string{storage.ChannelNameKey(name)})
		if err != nil {
			return err
		}
		if len(found) != 1 || !cc.access(&found[0]).metadata(&found[0]) {
			return errorf("Invalid channel name '%s'", name)
		}
		id = found[0].ID
		return nil
	})
	return id, err
}

// ChannelSubscribers returns the IDs of the active users subscribed to a
// channel, in ascending order. Any user may call it for a channel whose
// subscribers they may see: a web-public or public one (guests only when
// subscribed), one they are subscribed to, or one they administer.
//
// Errors: ErrInvalidChannelID for an unknown channel or one the actor may
// not see; ErrPrivateChannelSubscribers; those of the actor check.
func (s *Service) ChannelSubscribers(ctx context.Context, actor Actor, channelID int64) ([]int64, error) {
	var out []int64
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpChannelSubscribers)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, channelID, false)
		if err != nil {
			return err
		}
		a := cc.access(&c)
		if !(a.subscribed || c.IsWebPublic || a.administers(&c) || (!c.InviteOnly && cc.actor.Role != RoleGuest)) {
			return ErrPrivateChannelSubscribers
		}
		subs, err := tx.ChannelSubscriptions([]int64{c.ID})
		if err != nil {
			return err
		}
		out, err = activeAmong(tx, cc.realm.ID, subscriberIDs(subs)[c.ID])
		if err != nil {
			return err
		}
		slices.Sort(out)
		if out == nil {
			out = []int64{}
		}
		return nil
	})
	return out, err
}

// IsSubscribed reports whether a user of the actor's organization is
// subscribed to a channel that the actor may see. Any user may call it.
//
// Errors: ErrNoSuchUser for a user of no organization or another one;
// ErrInvalidChannelID for an unknown channel or one the actor may not see;
// those of the actor check.
func (s *Service) IsSubscribed(ctx context.Context, actor Actor, userID, channelID int64) (bool, error) {
	var subscribed bool
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpIsSubscribed)
		if err != nil {
			return err
		}
		target, err := targetUser(tx, cc.realm.ID, userID)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, channelID, false)
		if err != nil {
			return err
		}
		subs, err := subscribedSet(tx, target.ID)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		_, subscribed = subs[c.ID]
		return nil
	})
	return subscribed, err
}

// ChannelEmailAddress answers GET /streams/{stream_id}/email_address for a
// channel the actor can read. This server runs no incoming-email gateway,
// so the address is "", as the reference answers without its
// EMAIL_GATEWAY_PATTERN; any user may ask.
//
// Errors: ErrInvalidChannelID; those of the actor check.
func (s *Service) ChannelEmailAddress(ctx context.Context, actor Actor, channelID int64) (string, error) {
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpChannelByID)
		if err != nil {
			return err
		}
		_, err = cc.channel(tx, channelID, true)
		return err
	})
	return "", err
}
