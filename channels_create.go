package chat

import (
	"errors"

	"github.com/teamchat/chat/storage"
)

// Channel errors: a private default channel, a web-public channel where
// they are off, an unknown folder, an unknown or invisible channel.
var (
	ErrDefaultChannelPrivate = &Error{Code: CodeBadRequest, Msg: "A default channel cannot be private."}
	ErrWebPublicDisabled     = &Error{Code: CodeBadRequest, Msg: "Web-public channels are not enabled."}
	ErrInvalidFolderID       = &Error{Code: CodeBadRequest, Msg: "Invalid channel folder ID"}
	ErrInvalidChannelID      = &Error{Code: CodeBadRequest, Msg: "Invalid channel ID"}
)

// channelGroupSettings lists the channel permission settings with the
// system groups they accept and their defaults.
var channelGroupSettings = []struct {
	name          string
	allowEveryone bool
	def           string // system group; "" means the creator alone
	field         func(*storage.Channel) *GroupSetting
	req           func(*SubscribeRequest) *GroupSetting
}{
	{"can_add_subscribers_group", false, GroupNobody,
		func(c *storage.Channel) *GroupSetting { return &c.CanAddSubscribersGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanAddSubscribersGroup }},
	{"can_administer_channel_group", false, "",
		func(c *storage.Channel) *GroupSetting { return &c.CanAdministerChannelGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanAdministerChannelGroup }},
	{"can_delete_any_message_group", false, GroupNobody,
		func(c *storage.Channel) *GroupSetting { return &c.CanDeleteAnyMessageGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanDeleteAnyMessageGroup }},
	{"can_delete_own_message_group", true, GroupEveryone,
		func(c *storage.Channel) *GroupSetting { return &c.CanDeleteOwnMessageGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanDeleteOwnMessageGroup }},
	{"can_remove_subscribers_group", true, GroupAdministrators,
		func(c *storage.Channel) *GroupSetting { return &c.CanRemoveSubscribersGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanRemoveSubscribersGroup }},
	{"can_send_message_group", true, GroupEveryone,
		func(c *storage.Channel) *GroupSetting { return &c.CanSendMessageGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanSendMessageGroup }},
	{"can_subscribe_group", false, GroupNobody,
		func(c *storage.Channel) *GroupSetting { return &c.CanSubscribeGroup },
		func(r *SubscribeRequest) *GroupSetting { return r.CanSubscribeGroup }},
}

// channelTemplate validates the creation settings of req and returns the
// channel every created channel starts from.
func (s *Service) channelTemplate(tx storage.Tx, g *groups, actor *storage.UserRecord, realm Realm, req *SubscribeRequest) (storage.Channel, error) {
	c := storage.Channel{RealmID: realm.ID, DateCreated: s.now(), CreatorID: actor.ID, InviteOnly: req.InviteOnly,
		IsWebPublic: req.IsWebPublic, IsDefault: req.IsDefaultStream, TopicsPolicy: TopicsInherit}
	if req.IsWebPublic {
		// The server's setting and the organization's spectator access.
		if !s.cfg.WebPublicChannels || !realm.EnableSpectatorAccess {
			return c, ErrWebPublicDisabled
		}
		if actor.Role != RoleOwner {
			return c, ErrInsufficientPermission
		}
		c.InviteOnly = false
	}
	if req.IsDefaultStream {
		if !actor.Role.IsAdmin() {
			return c, ErrInsufficientPermission
		}
		if c.InviteOnly {
			return c, ErrDefaultChannelPrivate
		}
	}
	if req.MessageRetentionDays != nil {
		if actor.Role != RoleOwner {
			return c, ErrMustBeOwner
		}
		c.MessageRetentionDays = req.MessageRetentionDays.Days
	}
	c.HistoryPublicToSubscribers = !c.InviteOnly
	if req.HistoryPublicToSubscribers != nil && c.InviteOnly {
		c.HistoryPublicToSubscribers = *req.HistoryPublicToSubscribers
	}
	if req.TopicsPolicy != nil {
		if !req.TopicsPolicy.Valid() {
			return c, errorf("Invalid topics_policy")
		}
		c.TopicsPolicy = *req.TopicsPolicy
	}
	if req.FolderID != nil {
		f, err := tx.ChannelFolder(*req.FolderID)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && (f.RealmID != realm.ID || f.IsArchived)) {
			return c, ErrInvalidFolderID
		}
		if err != nil {
			return c, err
		}
		c.FolderID = f.ID
	}
	for _, set := range channelGroupSettings {
		var v GroupSetting
		if given := set.req(req); given != nil {
			checked, err := checkGroupSetting(tx, g, realm.ID, set.name, *given, groupSettingRule{allowEveryone: set.allowEveryone})
			if err != nil {
				return c, err
			}
			v = checked
		} else if set.def == "" {
			v = GroupSetting{Members: []int64{actor.ID}, Subgroups: []int64{}}
		} else {
			v = GroupSettingOf(g.id(set.def))
		}
		*set.field(&c) = v
	}
	return c, nil
}

// policyName is how the channel-created message describes a channel.
func policyName(c *storage.Channel) string {
	switch {
	case c.IsWebPublic:
		return "Web-public"
	case !c.InviteOnly:
		return "Public"
	case c.HistoryPublicToSubscribers:
		return "Private, shared history"
	}
	return "Private, protected history"
}
