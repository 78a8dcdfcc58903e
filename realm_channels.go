package chat

import (
	"context"
	"errors"
)

// RealmChannels holds changes to the organization's special channels.
// A nil field stays; a value of -1 (or 0) clears the setting; any other
// value names a channel.
type RealmChannels struct {
	NewStreamAnnouncementsStreamID   *int64
	SignupAnnouncementsStreamID      *int64
	ZulipUpdateAnnouncementsStreamID *int64
	ModerationRequestChannelID       *int64
}

// RealmChannelChange is one changed setting: its wire name and new value
// (-1 when cleared).
type RealmChannelChange struct {
	Property string
	Value    int64
}

// ErrModerationChannelPublic answers a public moderation request channel.
var ErrModerationChannelPublic = &Error{Code: CodeBadRequest, Msg: "Moderation request channel must be private."}

// SetRealmChannels changes the organization's announcement and moderation
// request channels, and returns the changed settings in the order of the
// RealmChannels fields (values equal to the current ones are left out).
// Administrators only. Each channel must exist in the organization and be
// visible to the administrator (ErrInvalidChannelID); the moderation
// request channel must be private (ErrModerationChannelPublic). Emits a
// realm update event per change to every active user.
func (s *Service) SetRealmChannels(ctx context.Context, actor int64, req RealmChannels) ([]RealmChannelChange, error) {
	var out []RealmChannelChange
	err := s.updateWithEvents(ctx, func(tx Tx, emit func(Event)) error {
		out = nil
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		if !cc.actor.Role.IsAdmin() {
			return ErrMustBeAdmin
		}
		realm := cc.realm
		settings := []struct {
			name      string
			value     *int64
			field     *int64
			isPrivate bool
		}{
			{"new_stream_announcements_stream_id", req.NewStreamAnnouncementsStreamID, &realm.NewStreamAnnouncementsStreamID, false},
			{"signup_announcements_stream_id", req.SignupAnnouncementsStreamID, &realm.SignupAnnouncementsStreamID, false},
			{"zulip_update_announcements_stream_id", req.ZulipUpdateAnnouncementsStreamID, &realm.ZulipUpdateAnnouncementsStreamID, false},
			{"moderation_request_channel_id", req.ModerationRequestChannelID, &realm.ModerationRequestChannelID, true},
		}
		for _, set := range settings {
			if set.value == nil {
				continue
			}
			id := *set.value
			if id <= 0 {
				id = 0
			} else {
				c, err := cc.channel(tx, id, false)
				if errors.Is(err, ErrInvalidChannelID) {
					return err
				}
				if err != nil {
					return err
				}
				if set.isPrivate && !c.InviteOnly {
					return ErrModerationChannelPublic
				}
			}
			if id == *set.field {
				continue
			}
			*set.field = id
			wire := id
			if wire == 0 {
				wire = -1
			}
			out = append(out, RealmChannelChange{Property: set.name, Value: wire})
		}
		if len(out) == 0 {
			return nil
		}
		if err := tx.UpdateRealm(realm); err != nil {
			return err
		}
		for _, ch := range out {
			if err := s.activeUserEvent(tx, emit, realm.ID, map[string]any{
				"type": "realm", "op": "update", "property": ch.Property, "value": ch.Value}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}
