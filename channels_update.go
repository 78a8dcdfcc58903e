package chat

import (
	"context"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Errors of UpdateChannel and ArchiveChannel.
var (
	ErrChannelAdminRequired   = errorf("You do not have permission to administer this channel.")
	ErrChannelContentRequired = errorf("Channel content access is required.")
	ErrChannelArchived        = errorf("Channel is archived.")
	ErrChannelNameInUse       = errorf("Channel name already in use.")
)

// ChannelUpdate is a request to PATCH /streams/{stream_id}: nil fields
// stay as they are.
type ChannelUpdate struct {
	NewName     *string
	Description *string
	// IsPrivate, HistoryPublicToSubscribers and IsWebPublic change the
	// channel's privacy; a public channel's history is always public.
	IsPrivate                  *bool
	HistoryPublicToSubscribers *bool
	IsWebPublic                *bool
	// IsDefaultStream adds the channel to the organization's default
	// channels, or removes it.
	IsDefaultStream      *bool
	MessageRetentionDays *RetentionDays
	TopicsPolicy         *TopicsPolicy
	// FolderID moves the channel to a folder; 0 takes it out of its folder.
	FolderID *int64
	// IsArchived false unarchives the channel (archiving is
	// ArchiveChannel).
	IsArchived *bool
	// Groups changes the channel's group settings, by name
	// (can_add_subscribers_group, can_administer_channel_group, ...).
	Groups map[string]GroupSettingUpdate
}

// ChannelGroupSettingNames lists the names of a channel's group settings,
// which ChannelUpdate.Groups takes.
func ChannelGroupSettingNames() []string {
	out := make([]string, len(channelGroupSettings))
	for i, set := range channelGroupSettings {
		out[i] = set.name
	}
	return out
}

// channelChange is one changed property of a channel, as its stream/update
// event names it.
type channelChange struct {
	property string
	value    any
	extra    map[string]any
}

// UpdateChannel changes a channel's name, description, privacy, default
// status, retention, topics policy, folder and group settings (PATCH
// /streams/{stream_id}) in one transaction, and tells every user who can
// see the channel with one stream/update event per changed property. A
// new name and a new description are announced in the channel's "channel
// events" topic when the organization sends such notices.
//
// The organization's administrators and the members of the channel's
// can_administer_channel_group may, guests never; changing the privacy of
// a private channel, or who may subscribe to it, takes content access as
// well. Default channels and web-public channels take an administrator,
// retention an owner.
//
// Errors: ErrInvalidChannelID for a channel the actor cannot see;
// ErrChannelAdminRequired; ErrChannelContentRequired; ErrChannelNameInUse,
// the name errors of channel creation; "description is too long (limit:
// 1024 characters)"; ErrDefaultChannelPrivate; ErrWebPublicDisabled;
// ErrInsufficientPermission; ErrMustBeOwner; "Invalid topics_policy";
// ErrInvalidFolderID; the group-setting errors of UpdateRealm.
func (s *Service) UpdateChannel(ctx context.Context, actor Actor, channelID int64, req ChannelUpdate) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContextFor(tx, actor, OpUpdateChannel)
		if err != nil {
			return err
		}
		c, err := cc.administeredChannel(tx, channelID)
		if err != nil {
			return err
		}
		old := c.Clone()
		changes, err := s.applyChannelUpdate(tx, cc, &c, &req)
		if err != nil || len(changes) == 0 {
			return err
		}
		if err := tx.UpdateChannel(c); errors.Is(err, storage.ErrExists) {
			return ErrChannelNameInUse
		} else if err != nil {
			return err
		}
		if err := s.emitChannelChanges(tx, emit, cc, &c, &old, changes); err != nil {
			return err
		}
		return s.announceChannelChanges(tx, emit, cc, &c, &old)
	})
}

// administeredChannel reads a channel that the actor may administer.
func (cc *channelContext) administeredChannel(tx storage.Tx, channelID int64) (storage.Channel, error) {
	c, err := cc.channel(tx, channelID, false)
	if err != nil {
		return c, err
	}
	if cc.actor.Role == RoleGuest || !cc.access(&c).administers(&c) {
		return c, ErrChannelAdminRequired
	}
	return c, nil
}

// applyChannelUpdate checks req and applies it to c, returning the changed
// properties in the order of the request's fields.
func (s *Service) applyChannelUpdate(tx storage.Tx, cc *channelContext, c *storage.Channel, req *ChannelUpdate) ([]channelChange, error) {
	var changes []channelChange
	if req.IsArchived != nil && !*req.IsArchived && c.IsArchived {
		c.IsArchived = false
		changes = append(changes, channelChange{property: "is_archived", value: false})
	} else if c.IsArchived {
		return nil, ErrChannelArchived
	}
	if req.NewName != nil {
		name, err := checkChannelName(*req.NewName)
		if err != nil {
			return nil, err
		}
		if name != c.Name {
			c.Name = name
			changes = append(changes, channelChange{property: "name", value: name})
		}
	}
	if req.Description != nil {
		if utf8.RuneCountInString(*req.Description) > MaxChannelDescriptionLength {
			return nil, errorf("description is too long (limit: %d characters)", MaxChannelDescriptionLength)
		}
		if *req.Description != c.Description {
			rendered, err := s.renderDescription(tx, &cc.realm, *req.Description, cc)
			if err != nil {
				return nil, err
			}
			c.Description, c.RenderedDescription = *req.Description, rendered
			changes = append(changes, channelChange{property: "description", value: c.Description,
				extra: map[string]any{"rendered_description": c.RenderedDescription}})
		}
	}
	privacy, err := s.applyChannelPrivacy(cc, c, req)
	if err != nil {
		return nil, err
	}
	changes = append(changes, privacy...)
	if req.IsDefaultStream != nil && *req.IsDefaultStream != c.IsDefault {
		if !cc.actor.Role.IsAdmin() {
			return nil, ErrMustBeAdmin
		}
		c.IsDefault = *req.IsDefaultStream
		changes = append(changes, channelChange{property: "is_default", value: c.IsDefault})
	}
	if c.IsDefault && c.InviteOnly {
		return nil, ErrDefaultChannelPrivate
	}
	if req.MessageRetentionDays != nil {
		if cc.actor.Role != RoleOwner {
			return nil, ErrMustBeOwner
		}
		if req.MessageRetentionDays.Days != c.MessageRetentionDays {
			c.MessageRetentionDays = req.MessageRetentionDays.Days
			changes = append(changes, channelChange{property: "message_retention_days", value: *req.MessageRetentionDays})
		}
	}
	if req.TopicsPolicy != nil {
		if !req.TopicsPolicy.Valid() {
			return nil, errorf("Invalid topics_policy")
		}
		if *req.TopicsPolicy != c.TopicsPolicy {
			c.TopicsPolicy = *req.TopicsPolicy
			changes = append(changes, channelChange{property: "topics_policy", value: c.TopicsPolicy})
		}
	}
	if req.FolderID != nil && *req.FolderID != c.FolderID {
		if *req.FolderID != 0 {
			f, err := tx.ChannelFolder(*req.FolderID)
			if errors.Is(err, storage.ErrNotFound) || (err == nil && (f.RealmID != cc.realm.ID || f.IsArchived)) {
				return nil, ErrInvalidFolderID
			}
			if err != nil {
				return nil, err
			}
		}
		c.FolderID = *req.FolderID
		var v any
		if c.FolderID != 0 {
			v = c.FolderID
		}
		changes = append(changes, channelChange{property: "folder_id", value: v})
	}
	groups, err := applyChannelGroups(tx, cc, c, req.Groups)
	if err != nil {
		return nil, err
	}
	return append(changes, groups...), nil
}

// applyChannelPrivacy applies is_private, history_public_to_subscribers and
// is_web_public, reported as one "invite_only" change as the reference
// does.
func (s *Service) applyChannelPrivacy(cc *channelContext, c *storage.Channel, req *ChannelUpdate) ([]channelChange, error) {
	if req.IsPrivate == nil && req.HistoryPublicToSubscribers == nil && req.IsWebPublic == nil {
		return nil, nil
	}
	inviteOnly, history, webPublic := c.InviteOnly, c.HistoryPublicToSubscribers, c.IsWebPublic
	if req.IsPrivate != nil {
		inviteOnly = *req.IsPrivate
	}
	if req.IsWebPublic != nil {
		webPublic = *req.IsWebPublic
	}
	if webPublic {
		inviteOnly = false
	}
	if inviteOnly {
		webPublic = false
	}
	if req.HistoryPublicToSubscribers != nil {
		history = *req.HistoryPublicToSubscribers
	} else if req.IsPrivate != nil && inviteOnly != c.InviteOnly {
		// The reference's default when privacy changes: protected
		// history for a channel made private.
		history = !inviteOnly
	}
	if !inviteOnly {
		history = true
	}
	if inviteOnly == c.InviteOnly && history == c.HistoryPublicToSubscribers && webPublic == c.IsWebPublic {
		return nil, nil
	}
	if c.InviteOnly && !cc.access(c).content(c) {
		return nil, ErrChannelContentRequired
	}
	if webPublic && !c.IsWebPublic {
		if !s.cfg.WebPublicChannels || !cc.realm.EnableSpectatorAccess {
			return nil, ErrWebPublicDisabled
		}
		if cc.actor.Role != RoleOwner {
			return nil, ErrInsufficientPermission
		}
	}
	c.InviteOnly, c.HistoryPublicToSubscribers, c.IsWebPublic = inviteOnly, history, webPublic
	return []channelChange{{property: "invite_only", value: inviteOnly,
		extra: map[string]any{"history_public_to_subscribers": history, "is_web_public": webPublic}}}, nil
}

// applyChannelGroups applies the group-setting changes of a request.
func applyChannelGroups(tx storage.Tx, cc *channelContext, c *storage.Channel, updates map[string]GroupSettingUpdate) ([]channelChange, error) {
	var changes []channelChange
	for _, set := range channelGroupSettings {
		u, ok := updates[set.name]
		if !ok {
			continue
		}
		field := set.field(c)
		if u.Old != nil {
			old, err := checkGroupSetting(tx, cc.g, cc.realm.ID, set.name, *u.Old, groupSettingRule{allowEveryone: true})
			if err != nil {
				return nil, err
			}
			if !sameGroupSetting(old, *field) {
				return nil, ErrGroupSettingOldMismatch
			}
		}
		v, err := checkGroupSetting(tx, cc.g, cc.realm.ID, set.name, u.New, groupSettingRule{allowEveryone: set.allowEveryone})
		if err != nil {
			return nil, err
		}
		if sameGroupSetting(v, *field) {
			continue
		}
		if c.InviteOnly && (set.name == "can_add_subscribers_group" || set.name == "can_subscribe_group") &&
			!cc.access(c).content(c) {
			return nil, ErrChannelContentRequired
		}
		*field = v
		changes = append(changes, channelChange{property: set.name, value: v})
	}
	for name := range updates {
		if !slices.Contains(ChannelGroupSettingNames(), name) {
			return nil, errorf("Invalid %s", name)
		}
	}
	return changes, nil
}

// channelViewers returns the active users of the realm who can see that c
// exists, before or after a change (both copies given).
func channelViewers(tx storage.Tx, cc *channelContext, cs ...*storage.Channel) ([]int64, error) {
	subs, err := tx.ChannelSubscriptions([]int64{cs[0].ID})
	if err != nil {
		return nil, err
	}
	subscribers := subscriberIDs(subs)[cs[0].ID]
	all, err := tx.Users(cc.realm.ID, nil)
	if err != nil {
		return nil, err
	}
	var out []int64
	for i := range all {
		u := &all[i]
		if !u.IsActive {
			continue
		}
		_, sub := slices.BinarySearch(subscribers, u.ID)
		a := channelAccess{user: u, g: cc.g, subscribed: sub}
		if slices.ContainsFunc(cs, a.metadata) {
			out = append(out, u.ID)
		}
	}
	return out, nil
}

// emitChannelChanges emits one stream/update event per change to those who
// could see the channel before or can now.
func (s *Service) emitChannelChanges(tx storage.Tx, emit func(Event), cc *channelContext, c, old *storage.Channel, changes []channelChange) error {
	to, err := channelViewers(tx, cc, c, old)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		payload := map[string]any{"type": "stream", "op": "update", "stream_id": c.ID, "name": old.Name,
			"property": ch.property, "value": ch.value}
		for k, v := range ch.extra {
			payload[k] = v
		}
		emit(Event{RealmID: cc.realm.ID, UserIDs: to, Payload: payload})
	}
	return nil
}

// announceChannelChanges posts the notification bot's notices of a rename
// and a new description in the channel, as the reference does.
func (s *Service) announceChannelChanges(tx storage.Tx, emit func(Event), cc *channelContext, c, old *storage.Channel) error {
	if !cc.realm.SendChannelEventsMessages {
		return nil
	}
	bot := &botMessages{realmID: cc.realm.ID, now: s.now()}
	if c.Name != old.Name {
		bot.toChannel(c, "channel events", mention(&cc.actor, true)+" renamed channel **"+old.Name+"** to **"+c.Name+"**.")
	}
	if c.Description != old.Description {
		bot.toChannel(c, "channel events", mention(&cc.actor, true)+" changed the description for this channel.\n\n"+
			"* **Old description:**\n```` quote\n"+orNoDescription(old.Description)+"\n````\n"+
			"* **New description:**\n```` quote\n"+orNoDescription(c.Description)+"\n````")
	}
	return s.sendBotMessages(tx, emit, bot, nil, nil)
}

func orNoDescription(d string) string {
	if d == "" {
		return "*No description.*"
	}
	return d
}

// ArchiveChannel archives a channel (DELETE /streams/{stream_id}), as the
// reference does: its messages and subscriptions stay, nobody can post to
// it any more, it leaves the default channels, and the notification bot
// says so in it. Who may is as for UpdateChannel.
//
// Once archived, the channel's messages are marked read for every
// subscriber, as the reference does (without events: the channel's update
// tells clients).
//
// Errors: ErrInvalidChannelID; ErrChannelAdminRequired; ErrChannelArchived
// for a channel archived already.
func (s *Service) ArchiveChannel(ctx context.Context, actor Actor, channelID int64) error {
	var (
		realmID     int64
		subscribers []int64
	)
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContextFor(tx, actor, OpArchiveChannel)
		if err != nil {
			return err
		}
		c, err := cc.administeredChannel(tx, channelID)
		if err != nil {
			return err
		}
		if c.IsArchived {
			return ErrChannelArchived
		}
		old := c.Clone()
		c.IsArchived, c.IsDefault = true, false
		// The notice first: nobody, the bot included, posts to an
		// archived channel.
		bot := &botMessages{realmID: cc.realm.ID, now: s.now()}
		bot.toChannel(&c, "channel events", "Channel #**"+c.Name+"** has been archived.")
		if err := s.sendBotMessages(tx, emit, bot, nil, nil); err != nil {
			return err
		}
		stored, err := tx.Channel(c.ID)
		if err != nil {
			return err
		}
		c.FirstMessageID = stored.FirstMessageID
		if err := tx.UpdateChannel(c); err != nil {
			return err
		}
		subs, err := tx.ChannelSubscriptions([]int64{c.ID})
		if err != nil {
			return err
		}
		realmID, subscribers = cc.realm.ID, subscriberIDs(subs)[c.ID]
		return s.emitChannelChanges(tx, emit, cc, &c, &old, []channelChange{{property: "is_archived", value: true}})
	})
	if err == nil {
		s.markChannelReadFor(ctx, realmID, channelID, subscribers, false)
	}
	return err
}

// ErrPrivateDefaultChannel refuses to make a private channel a default
// channel through POST /default_streams, with the reference's text.
var ErrPrivateDefaultChannel = errorf("Private channels cannot be made default.")

// SetDefaultChannel adds a channel to the organization's default channels,
// which new users are subscribed to, or removes it (POST and DELETE
// /default_streams). Every user who is not a guest gets a default_streams
// event with the whole list. Administrators may.
//
// Errors: ErrMustBeAdmin; ErrInvalidChannelID; ErrPrivateDefaultChannel;
// ErrChannelArchived.
func (s *Service) SetDefaultChannel(ctx context.Context, actor Actor, channelID int64, isDefault bool) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContextFor(tx, actor, OpSetDefaultChannel)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, channelID, false)
		if err != nil {
			return err
		}
		if isDefault && c.InviteOnly {
			return ErrPrivateDefaultChannel
		}
		if isDefault && c.IsArchived {
			return ErrChannelArchived
		}
		if c.IsDefault == isDefault {
			return nil
		}
		c.IsDefault = isDefault
		if err := tx.UpdateChannel(c); err != nil {
			return err
		}
		all, err := tx.Channels(cc.realm.ID)
		if err != nil {
			return err
		}
		var ids []int64
		for _, ch := range all {
			if ch.IsDefault && !ch.IsArchived {
				ids = append(ids, ch.ID)
			}
		}
		subs, err := tx.ChannelSubscriptions(ids)
		if err != nil {
			return err
		}
		counts := subscriberIDs(subs)
		views := []ChannelView{}
		for i := range all {
			if ch := &all[i]; ch.IsDefault && !ch.IsArchived {
				views = append(views, viewChannel(ch, len(counts[ch.ID])))
			}
		}
		users, err := tx.Users(cc.realm.ID, nil)
		if err != nil {
			return err
		}
		var to []int64
		for _, u := range users {
			if u.IsActive && u.Role != RoleGuest {
				to = append(to, u.ID)
			}
		}
		emit(Event{RealmID: cc.realm.ID, UserIDs: to, Payload: map[string]any{"type": "default_streams", "default_streams": views}})
		return nil
	})
}
