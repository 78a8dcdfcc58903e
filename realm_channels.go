package chat

import "github.com/teamchat/chat/storage"

// RealmChannels holds changes to the organization's special channels.
// A nil field stays; a value of -1 (or 0) clears the setting; any other
// value names a channel.
type RealmChannels struct {
	NewStreamAnnouncementsStreamID   *int64
	SignupAnnouncementsStreamID      *int64
	ZulipUpdateAnnouncementsStreamID *int64
	ModerationRequestChannelID       *int64
}

// ErrModerationChannelPublic answers a public moderation request channel.
var ErrModerationChannelPublic = &Error{Code: CodeBadRequest, Msg: "Moderation request channel must be private."}

// applyRealmChannels sets the organization's announcement and moderation
// request channels that req names in realm, and returns the changed
// settings in the order of the RealmChannels fields (values equal to the
// current ones are left out; a cleared one reads -1). Each channel must
// exist in the organization and be visible to the administrator
// (ErrInvalidChannelID); the moderation request channel must be private
// (ErrModerationChannelPublic).
func (s *Service) applyRealmChannels(tx storage.Tx, actor Actor, req RealmChannels, realm *Realm) ([]RealmSettingChange, error) {
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
	var cc *channelContext
	var out []RealmSettingChange
	for _, set := range settings {
		if set.value == nil {
			continue
		}
		id := max(*set.value, 0)
		if id > 0 {
			if cc == nil {
				var err error
				if cc, err = s.channelContext(tx, actor); err != nil {
					return nil, err
				}
			}
			c, err := cc.channel(tx, id, false)
			if err != nil {
				return nil, err
			}
			if set.isPrivate && !c.InviteOnly {
				return nil, ErrModerationChannelPublic
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
		out = append(out, RealmSettingChange{Name: set.name, Value: wire})
	}
	return out, nil
}
