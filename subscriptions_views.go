package chat

import "github.com/teamchat/chat/storage"

// ChannelView is a channel object as clients see it.
type ChannelView struct {
	StreamID                   int64        `json:"stream_id"`
	Name                       string       `json:"name"`
	Description                string       `json:"description"`
	RenderedDescription        string       `json:"rendered_description"`
	DateCreated                int64        `json:"date_created"`
	CreatorID                  *int64       `json:"creator_id"`
	InviteOnly                 bool         `json:"invite_only"`
	IsWebPublic                bool         `json:"is_web_public"`
	HistoryPublicToSubscribers bool         `json:"history_public_to_subscribers"`
	FirstMessageID             *int64       `json:"first_message_id"`
	IsRecentlyActive           bool         `json:"is_recently_active"`
	MessageRetentionDays       *int         `json:"message_retention_days"`
	StreamPostPolicy           int          `json:"stream_post_policy"`
	IsAnnouncementOnly         bool         `json:"is_announcement_only"`
	IsArchived                 bool         `json:"is_archived"`
	StreamWeeklyTraffic        *int         `json:"stream_weekly_traffic"`
	CanAddSubscribersGroup     GroupSetting `json:"can_add_subscribers_group"`
	CanAdministerChannelGroup  GroupSetting `json:"can_administer_channel_group"`
	CanDeleteAnyMessageGroup   GroupSetting `json:"can_delete_any_message_group"`
	CanDeleteOwnMessageGroup   GroupSetting `json:"can_delete_own_message_group"`
	CanRemoveSubscribersGroup  GroupSetting `json:"can_remove_subscribers_group"`
	CanSendMessageGroup        GroupSetting `json:"can_send_message_group"`
	CanSubscribeGroup          GroupSetting `json:"can_subscribe_group"`
	FolderID                   *int64       `json:"folder_id"`
	TopicsPolicy               TopicsPolicy `json:"topics_policy"`
	SubscriberCount            int          `json:"subscriber_count"`
	// IsDefault is set by GET /streams with include_default.
	IsDefault *bool `json:"is_default,omitempty"`
	// Subscribers is set when they were asked for.
	Subscribers *[]int64 `json:"subscribers,omitempty"`
}

// SubscriptionView is a subscription object: the channel's fields and the
// user's settings.
type SubscriptionView struct {
	ChannelView
	Color                  string `json:"color"`
	IsMuted                bool   `json:"is_muted"`
	InHomeView             bool   `json:"in_home_view"`
	PinToTop               bool   `json:"pin_to_top"`
	DesktopNotifications   *bool  `json:"desktop_notifications"`
	AudibleNotifications   *bool  `json:"audible_notifications"`
	PushNotifications      *bool  `json:"push_notifications"`
	EmailNotifications     *bool  `json:"email_notifications"`
	WildcardMentionsNotify *bool  `json:"wildcard_mentions_notify"`
}

// nonZero returns a pointer to v, or nil for zero.
func nonZero(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

// viewChannel builds the channel object of c with its subscriber count.
func viewChannel(c *storage.Channel, subscribers int) ChannelView {
	v := ChannelView{
		StreamID:                   c.ID,
		Name:                       c.Name,
		Description:                c.Description,
		RenderedDescription:        c.RenderedDescription,
		DateCreated:                c.DateCreated.Unix(),
		CreatorID:                  nonZero(c.CreatorID),
		InviteOnly:                 c.InviteOnly,
		IsWebPublic:                c.IsWebPublic,
		HistoryPublicToSubscribers: c.HistoryPublicToSubscribers,
		FirstMessageID:             nonZero(c.FirstMessageID),
		IsRecentlyActive:           c.FirstMessageID != 0,
		StreamPostPolicy:           1,
		IsArchived:                 c.IsArchived,
		CanAddSubscribersGroup:     c.CanAddSubscribersGroup,
		CanAdministerChannelGroup:  c.CanAdministerChannelGroup,
		CanDeleteAnyMessageGroup:   c.CanDeleteAnyMessageGroup,
		CanDeleteOwnMessageGroup:   c.CanDeleteOwnMessageGroup,
		CanRemoveSubscribersGroup:  c.CanRemoveSubscribersGroup,
		CanSendMessageGroup:        c.CanSendMessageGroup,
		CanSubscribeGroup:          c.CanSubscribeGroup,
		FolderID:                   nonZero(c.FolderID),
		TopicsPolicy:               c.TopicsPolicy,
		SubscriberCount:            subscribers,
	}
	if c.MessageRetentionDays != storage.RetentionRealmDefault {
		days := c.MessageRetentionDays
		v.MessageRetentionDays = &days
	}
	return v
}

// viewSubscription builds the subscription object of sub to c.
func viewSubscription(c *storage.Channel, sub *storage.Subscription, subscribers []int64, withSubscribers bool) SubscriptionView {
	v := SubscriptionView{ChannelView: viewChannel(c, len(subscribers))}
	v.setSettings(sub)
	if withSubscribers {
		if subscribers == nil {
			subscribers = []int64{}
		}
		v.Subscribers = &subscribers
	}
	return v
}

// setSettings sets the fields of v that hold the settings of sub.
func (v *SubscriptionView) setSettings(sub *storage.Subscription) {
	v.Color, v.IsMuted, v.InHomeView, v.PinToTop = sub.Color, sub.IsMuted, !sub.IsMuted, sub.PinToTop
	v.DesktopNotifications, v.AudibleNotifications = sub.DesktopNotifications, sub.AudibleNotifications
	v.PushNotifications, v.EmailNotifications = sub.PushNotifications, sub.EmailNotifications
	v.WildcardMentionsNotify = sub.WildcardMentionsNotify
}
