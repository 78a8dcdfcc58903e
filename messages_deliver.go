package chat

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
)

// deliverOptions are the sender's choices when messages are delivered.
type deliverOptions struct {
	// sender is nil for the notification bot.
	sender *storage.UserRecord
	// readBySender marks the message read for its sender.
	readBySender bool
	// canLink decides which channels the content may link.
	canLink func(*storage.Channel) bool
	// queueID and localID echo local_message_id to the sender's queue.
	queueID, localID string
	// imported marks every row read and emits no events: the messages
	// come from an import into an organization that has no clients yet.
	imported bool
	// subscribers are the sorted subscriber IDs of channels the caller
	// has just written, so that they need not be read back; the
	// subscribers of other channels are read.
	subscribers map[int64][]int64
	// rendered, when set, receives what rendering found of each message
	// (whom it mentions), for the work that follows the commit.
	rendered *[]deliveryRendering
	// prerendered, when set, holds each message's rendering, made before
	// the write transaction (see preRender), so that the writer is not
	// held while Markdown and linkifiers run.
	prerendered []markdown.Result
	// emoticons, when set, is whether the sender translates emoticons in
	// these messages, as the caller read it; unset, renderForDelivery
	// reads it.
	emoticons *bool
	// realm and channels, when set, are the organization and channels of
	// the messages as the caller read them in this transaction, so that
	// the delivery does not read them again (on PostgreSQL each read is
	// a round trip inside the writing transaction). The delivery updates
	// the channels it changes.
	realm    *Realm
	channels map[int64]*storage.Channel
	// linkifiers, when set, are the organization's linkifiers as the
	// rendering read them in this transaction.
	linkifiers *[]compiledWithID
}

// deliver renders the messages, stores them with the rows of their
// recipients (one batch), keeps each channel's first_message_id and
// emits one message event per message. Channel messages go to the
// channel's active subscribers, direct messages to their active
// participants.
func (s *Service) deliver(tx storage.Tx, emit func(Event), realmID int64, ms []*storage.MessageRecord, o deliverOptions) error {
	info, rc, err := s.renderForDelivery(tx, realmID, ms, o)
	if err != nil {
		return err
	}
	if rc != nil {
		o.linkifiers = &rc.linkifiers
	}
	if o.rendered != nil {
		*o.rendered = info
	}
	// Everything the delivery reads comes before its first write: a
	// transaction that has written no longer answers from the lists a
	// store keeps (storage/postgres, realmlists.go).
	rcpt, err := deliveryRecipients(tx, realmID, ms, o)
	if err != nil {
		return err
	}
	if err := tx.CreateMessages(ms); err != nil {
		return err
	}
	if err := s.linkMessageAttachments(tx, ms); err != nil {
		return err
	}
	rows, events, to := rcpt.rows(ms, info, o)
	if err := tx.CreateUserMessages(rows); err != nil {
		return err
	}
	if o.channels == nil {
		o.channels = map[int64]*storage.Channel{}
	}
	if err := setFirstMessageIDs(tx, rcpt.channelIDs, ms, o.channels); err != nil {
		return err
	}
	if o.imported {
		return nil
	}
	return s.emitMessageEvents(tx, emit, realmID, ms, events, to, o)
}

// deliveryRendering is what rendering found out about one message's
// recipients.
type deliveryRendering struct {
	mentioned     map[int64]bool
	stream, topic bool
}

// renderForDelivery renders the messages and checks who may use wildcard
// mentions. It returns the render context it made, or nil when the
// messages came rendered.
func (s *Service) renderForDelivery(tx storage.Tx, realmID int64, ms []*storage.MessageRecord, o deliverOptions) ([]deliveryRendering, *renderContext, error) {
	var rc *renderContext
	if len(o.prerendered) != len(ms) {
		var all strings.Builder
		for _, m := range ms {
			all.WriteString(m.Content)
		}
		var err error
		var actorID int64
		if o.sender != nil {
			actorID = o.sender.ID
		}
		if rc, err = s.newRenderContext(tx, realmID, nil, all.String(), o.canLink, actorID); err != nil {
			return nil, nil, err
		}
		switch {
		case o.emoticons != nil:
			rc.env.TranslateEmoticons = *o.emoticons
		case o.sender != nil && !o.imported:
			if rc.env.TranslateEmoticons, err = translatesEmoticons(tx, o.sender.ID, all.String()); err != nil {
				return nil, nil, err
			}
		}
	}
	info := make([]deliveryRendering, len(ms))
	gm := groupMentions{tx: tx, realmID: realmID}
	if rc != nil {
		gm.g = rc.groups // read for the rendering, when it may mention one
	}
	for i, m := range ms {
		var r markdown.Result
		if rc != nil {
			var err error
			if r, err = rc.render(m.Content); err != nil {
				return nil, nil, err
			}
		} else {
			r = o.prerendered[i]
		}
		m.RenderedContent = r.HTML
		m.HasLink, m.HasImage, m.HasAttachment = r.HasLink, r.HasImage, r.HasAttachment
		sender := o.sender
		if o.imported {
			sender = nil
		}
		mentioned, err := gm.mentioned(r, sender)
		if err != nil {
			return nil, nil, err
		}
		info[i] = deliveryRendering{mentioned, r.StreamWildcard, r.TopicWildcard}
		if o.sender != nil && !o.imported && m.RecipientType == RecipientChannel {
			if err := checkWildcardMentions(tx, o.sender, m, info[i].stream, info[i].topic); err != nil {
				return nil, nil, err
			}
		}
	}
	return info, rc, nil
}

// recipients are the users a batch of messages may reach: the channels'
// subscribers and the direct participants that are active.
type recipients struct {
	channelIDs  []int64
	subscribers map[int64][]int64
	active      map[int64]bool
	lists       flagSources
}

// flagSources are what the recipients' own lists add to a new message's
// flags: their alert words, and whether they muted its sender.
type flagSources struct {
	alertWords alertWordsMatcher
	muters     map[int64]bool
}

// readFlagSources reads the realm's alert words and who muted the sender
// (nobody mutes the notification bot).
func readFlagSources(tx storage.Tx, realmID int64, sender *storage.UserRecord) (flagSources, error) {
	words, err := tx.RealmAlertWords(realmID)
	if err != nil || sender == nil {
		return flagSources{alertWords: newAlertWordsMatcher(words)}, err
	}
	muting, err := tx.UsersMuting(sender.ID)
	if err != nil {
		return flagSources{}, err
	}
	muters := make(map[int64]bool, len(muting))
	for _, id := range muting {
		muters[id] = true
	}
	return flagSources{alertWords: newAlertWordsMatcher(words), muters: muters}, nil
}

// deliveryRecipients reads the active subscribers of the channels (once
// per channel, unless the caller knows the subscribers) and which of the
// caller's subscribers and of the direct participants are active.
func deliveryRecipients(tx storage.Tx, realmID int64, ms []*storage.MessageRecord, o deliverOptions) (*recipients, error) {
	r := &recipients{channelIDs: []int64{}, subscribers: map[int64][]int64{}, active: map[int64]bool{}}
	var unknown []int64
	for _, m := range ms {
		if m.RecipientType == RecipientChannel && !slices.Contains(r.channelIDs, m.ChannelID) {
			r.channelIDs = append(r.channelIDs, m.ChannelID)
			if _, known := o.subscribers[m.ChannelID]; !known {
				unknown = append(unknown, m.ChannelID)
			}
		}
	}
	if len(unknown) > 0 {
		// Only the IDs of the active ones matter here, not the whole
		// subscriptions: a big channel's are most of its send's reads.
		subs, err := storage.ActiveSubscribers(tx, realmID, unknown)
		if err != nil {
			return nil, err
		}
		for c, ids := range subs {
			r.subscribers[c] = ids
			for _, id := range ids {
				r.active[id] = true
			}
		}
	}
	var candidates []int64
	for c, ids := range o.subscribers {
		r.subscribers[c] = ids
		candidates = append(candidates, ids...)
	}
	for _, m := range ms {
		candidates = append(candidates, m.DirectUserIDs...)
	}
	if len(candidates) > 0 {
		activeIDs, err := tx.ActiveUserIDs(realmID, uniqueIDs(candidates))
		if err != nil {
			return nil, err
		}
		for _, id := range activeIDs {
			r.active[id] = true
		}
	}
	if !o.imported {
		var err error
		if r.lists, err = readFlagSources(tx, realmID, o.sender); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// rows gives the recipients' rows of each message with their flags, the
// message events, and whom each event goes to.
func (r *recipients) rows(ms []*storage.MessageRecord, info []deliveryRendering, o deliverOptions) ([]storage.UserMessage, []*messageEvent, [][]int64) {
	var rows []storage.UserMessage
	events := make([]*messageEvent, len(ms))
	to := make([][]int64, len(ms))
	for i, m := range ms {
		users := m.DirectUserIDs
		if m.RecipientType == RecipientChannel {
			users = r.subscribers[m.ChannelID]
		}
		ev := &messageEvent{flags: map[int64]storage.MessageFlags{}, queueID: o.queueID, localID: o.localID}
		if o.sender != nil {
			ev.senderID = o.sender.ID
		}
		folded := r.lists.alertWords.fold(m.Content)
		for _, uid := range users {
			if !r.active[uid] {
				continue
			}
			f := deliveryFlags(uid, folded, info[i], o, &r.lists)
			rows = append(rows, storage.UserMessage{UserID: uid, MessageID: m.ID, Flags: f})
			if f != 0 {
				ev.flags[uid] = f
			}
			to[i] = append(to[i], uid)
		}
		events[i] = ev
	}
	return rows, events, to
}

// deliveryFlags are the flags a new message starts with for a recipient;
// folded is its content folded by lists.alertWords.
func deliveryFlags(uid int64, folded string, info deliveryRendering, o deliverOptions, lists *flagSources) storage.MessageFlags {
	var f storage.MessageFlags
	if o.imported {
		f |= storage.FlagRead
	}
	if o.sender != nil && uid == o.sender.ID {
		if o.readBySender {
			f |= storage.FlagRead
		}
		return f
	}
	if info.mentioned[uid] {
		f |= storage.FlagMentioned
	}
	if info.stream {
		f |= storage.FlagStreamWildcardMentioned
	}
	if info.topic {
		f |= storage.FlagTopicWildcardMentioned
	}
	if lists.alertWords.matches(uid, folded) {
		f |= storage.FlagHasAlertWord
	}
	if lists.muters[uid] {
		f |= storage.FlagRead
	}
	return f
}

// setFirstMessageIDs records the first message of channels that had none.
// known holds channels read before in the transaction; it receives those
// read here, and those written as written.
func setFirstMessageIDs(tx storage.Tx, channelIDs []int64, ms []*storage.MessageRecord, known map[int64]*storage.Channel) error {
	for _, c := range channelIDs {
		ch := known[c]
		if ch == nil {
			read, err := tx.Channel(c)
			if err != nil {
				return err
			}
			ch = &read
			known[c] = ch
		}
		if ch.FirstMessageID != 0 {
			continue
		}
		for _, m := range ms {
			if m.ChannelID == c && m.RecipientType == RecipientChannel {
				ch.FirstMessageID = m.ID
				break
			}
		}
		if err := tx.UpdateChannel(*ch); err != nil {
			return err
		}
	}
	return nil
}

// emitMessageEvents emits one message event per message that reaches
// anyone. The messages are new: they have no reactions and no edits yet.
func (s *Service) emitMessageEvents(tx storage.Tx, emit func(Event), realmID int64, ms []*storage.MessageRecord, events []*messageEvent, to [][]int64, o deliverOptions) error {
	var realm Realm
	var err error
	if o.realm != nil {
		realm = *o.realm
	} else if realm, err = tx.Realm(realmID); err != nil {
		return err
	}
	var loader *messageLoader
	if o.linkifiers != nil {
		loader = s.newMessageLoaderWith(tx, realm, *o.linkifiers)
	} else if loader, err = s.newMessageLoader(tx, realm); err != nil {
		return err
	}
	loader.fresh = true
	for id, c := range o.channels {
		loader.channels[id] = c
	}
	if o.sender != nil {
		loader.users[o.sender.ID] = o.sender
	}
	records := make([]storage.MessageRecord, len(ms))
	for i, m := range ms {
		records[i] = *m
	}
	data, err := loader.load(records)
	if err != nil {
		return err
	}
	for i, ev := range events {
		if to[i] == nil {
			continue
		}
		ev.data = data[i]
		emit(formattedEvent(realmID, to[i], ev))
	}
	return nil
}

// messageEvent is a message event, whose form depends on each queue: the
// message object follows the queue's format (encoded once per format),
// the flags its user's row, and the queue's narrow may drop it.
type messageEvent struct {
	data *messageData
	// flags are the recipients' flags; those who have none are left out.
	flags map[int64]storage.MessageFlags
	// The sender's queue queueID gets local_message_id localID.
	senderID         int64
	queueID, localID string

	// events are the encoded events by form, shared by the queues that
	// get the same one: a long message reaches each of a user's queues
	// as one encoding, not a copy per queue.
	events formCache[messageForm]
}

// messageForm is what a message event's encoding depends on.
type messageForm struct {
	format MessageFormat
	// reader is the reading user in one-to-one conversations, where the
	// recipient ID depends on the reader; 0 otherwise.
	reader int64
	flags  storage.MessageFlags
}

func (e *messageEvent) kind() string            { return "message" }
func (e *messageEvent) payload() map[string]any { return map[string]any{"type": "message"} }

// ForQueue encodes the event for q.
func (e *messageEvent) ForQueue(q QueueInfo) []json.RawMessage {
	flags := e.flags[q.UserID]
	if !queueNarrowMatches(q.Narrow, e.data, flags) {
		return nil
	}
	form := messageForm{format: q.Format, flags: flags}
	form.format.AllowEmptyTopicName = q.EmptyTopicName
	if e.data.m.RecipientType == RecipientDirect && len(e.data.m.DirectUserIDs) <= 2 {
		form.reader = q.UserID
	}
	if e.localID != "" && q.ID == e.queueID && q.UserID == e.senderID {
		// Only the sending queue gets local_message_id: not shared.
		return []json.RawMessage{e.encode(q.UserID, form, true)}
	}
	return e.events.get(form, func() []json.RawMessage {
		return []json.RawMessage{e.encode(q.UserID, form, false)}
	})
}

// encode makes the event in form for reader; local adds the sending
// queue's local_message_id.
func (e *messageEvent) encode(reader int64, form messageForm, local bool) json.RawMessage {
	msg := encodeJSON(e.data.view(reader, form.format))
	b := make([]byte, 0, len(msg)+64)
	b = append(b, `{"type":"message","message":`...)
	b = append(b, msg...)
	b = append(b, `,"flags":`...)
	b = append(b, encodeJSON(form.flags.Names())...)
	if local {
		b = append(b, `,"local_message_id":`...)
		b = append(b, encodeJSON(e.localID)...)
	}
	return append(b, '}')
}

// messageEventJSON is the JSON form of a messageEvent: the whole message
// record, so that whatever message objects read of it travels, and what
// the loader read for every reader alike.
type messageEventJSON struct {
	Message         storage.MessageRecord          `json:"message"`
	SenderName      string                         `json:"sender_name"`
	SenderEmail     string                         `json:"sender_email"`
	RealmStr        string                         `json:"realm_str"`
	GravatarAllowed bool                           `json:"gravatar_allowed"`
	AvatarURL       string                         `json:"avatar_url"`
	ChannelName     string                         `json:"channel_name"`
	Direct          []DirectRecipient              `json:"direct"`
	TopicLinks      []TopicLink                    `json:"topic_links"`
	Reactions       []ReactionView                 `json:"reactions"`
	Flags           map[int64]storage.MessageFlags `json:"flags"`
	SenderID        int64                          `json:"sender_id"`
	QueueID         string                         `json:"queue_id,omitempty"`
	LocalID         string                         `json:"local_id,omitempty"`
}

// MarshalJSON writes the event as messageEventJSON.
func (e *messageEvent) MarshalJSON() ([]byte, error) {
	d := e.data
	return marshalJSON(messageEventJSON{Message: d.m, SenderName: d.senderName, SenderEmail: d.senderEmail,
		RealmStr: d.realmStr, GravatarAllowed: d.gravatarAllowed, AvatarURL: d.avatarURL, ChannelName: d.channelName,
		Direct: d.direct, TopicLinks: d.topicLinks, Reactions: d.reactions,
		Flags: e.flags, SenderID: e.senderID, QueueID: e.queueID, LocalID: e.localID})
}

// UnmarshalJSON reads an event written by MarshalJSON.
func (e *messageEvent) UnmarshalJSON(b []byte) error {
	var w messageEventJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.data = &messageData{m: w.Message, senderName: w.SenderName, senderEmail: w.SenderEmail, realmStr: w.RealmStr,
		gravatarAllowed: w.GravatarAllowed, avatarURL: w.AvatarURL, channelName: w.ChannelName,
		direct: w.Direct, topicLinks: w.TopicLinks, reactions: w.Reactions}
	e.flags, e.senderID, e.queueID, e.localID = w.Flags, w.SenderID, w.QueueID, w.LocalID
	return nil
}

// queueNarrowMatches applies an event queue's narrow to a message: channel
// names, topics and sender addresses match without regard to case.
func queueNarrowMatches(narrow []NarrowTerm, d *messageData, flags storage.MessageFlags) bool {
	m := &d.m
	for _, t := range narrow {
		ok := true
		switch t.Operator {
		case "channel", "stream":
			ok = m.RecipientType == RecipientChannel && storage.ChannelNameKey(d.channelName) == storage.ChannelNameKey(t.Operand)
		case "topic":
			ok = m.RecipientType == RecipientChannel && storage.TopicKey(m.Topic) == storage.TopicKey(t.Operand)
		case "sender":
			ok = strings.EqualFold(d.senderEmail, t.Operand)
		case "is":
			switch t.Operand {
			case "dm", "private":
				ok = m.RecipientType == RecipientDirect
			case "starred":
				ok = flags&storage.FlagStarred != 0
			case "unread":
				ok = flags&storage.FlagRead == 0
			case "mentioned", "alerted":
				ok = flags.MentionedAny() || flags&storage.FlagHasAlertWord != 0
			case "resolved":
				ok = m.RecipientType == RecipientChannel && strings.HasPrefix(m.Topic, resolvedTopicPrefix)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// resolvedTopicPrefix marks a resolved topic.
const resolvedTopicPrefix = "✔ "

// topicForQueue is a topic as a queue receives it: without the
// empty_topic_name capability the empty topic has its display name.
func topicForQueue(q QueueInfo, topic string) string {
	if topic == "" && !q.EmptyTopicName {
		return EmptyTopicDisplayName
	}
	return topic
}

// linkMessageAttachments links the files each new message's content points
// to (the sender's own uploads only), so that whoever can read the message
// can download them. The notification bot uploads nothing.
func (s *Service) linkMessageAttachments(tx storage.Tx, ms []*storage.MessageRecord) error {
	senders := map[int64]*storage.UserRecord{}
	for _, m := range ms {
		if m.SenderID == NotificationBotID || !strings.Contains(m.Content, "/user_uploads/") {
			continue
		}
		sender, ok := senders[m.SenderID]
		if !ok {
			u, err := tx.User(m.SenderID)
			if err != nil {
				return err
			}
			sender = &u
			senders[m.SenderID] = sender
		}
		if err := s.linkAttachments(tx, sender, m.ID, m.Content); err != nil {
			return err
		}
	}
	return nil
}

// canReadMessage is the Service's messageReadChecker: the user may read
// the message when it is theirs to read (received, or in the history of a
// channel open to them).
func (s *Service) canReadMessage(tx storage.Tx, user *storage.UserRecord, messageID int64) (bool, error) {
	cc, err := s.channelContext(tx, AsUser(user.ID))
	if err != nil {
		return false, err
	}
	if _, _, err := readableMessage(tx, cc, messageID); errors.Is(err, ErrInvalidMessage) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// wildcardMentionThreshold is the most subscribers a channel, or
// participants a topic, may have for anyone to notify them all with a
// wildcard mention (the reference server's WILDCARD_MENTION_THRESHOLD).
const wildcardMentionThreshold = 15

// canMentionManyUsers reports whether u may notify more than
// wildcardMentionThreshold users at once: the organization's
// administrators, the reference server's default for the setting we do
// not model (can_mention_many_users_group).
func canMentionManyUsers(u *storage.UserRecord) bool {
	return u.Role == RoleOwner || u.Role == RoleAdmin
}

// errCannotMentionGroup refuses a mention of a user group by someone
// outside its can_mention_group.
func errCannotMentionGroup(name string) *Error {
	return errorf("You are not allowed to mention user group '%s'.", name)
}

// groupMentions expands the user groups that messages of one organization
// mention, with the groups the caller read (g, nil when it read none) or
// reading them, and reading the users when a system group's members count,
// once for all the messages.
type groupMentions struct {
	tx      storage.Tx
	realmID int64
	g       *groups
	users   []storage.UserRecord // read when a role decides membership
}

// mentioned returns the users that a rendering mentions: by name, and the
// members (through subgroups too) of the groups it mentions, after
// checking that the sender may mention those groups; a nil sender (the
// notification bot, an import) may mention any. It returns r.Mentioned
// itself when no group is mentioned.
//
// Errors: errCannotMentionGroup.
func (gm *groupMentions) mentioned(r markdown.Result, sender *storage.UserRecord) (map[int64]bool, error) {
	if len(r.MentionedGroups) == 0 {
		return r.Mentioned, nil
	}
	if gm.g == nil {
		g, err := loadGroups(gm.tx, gm.realmID)
		if err != nil {
			return nil, err
		}
		gm.g = g
	}
	ids := slices.Sorted(maps.Keys(r.MentionedGroups))
	out := maps.Clone(r.Mentioned)
	byRole := false
	for _, id := range ids {
		grp := gm.g.byID[id]
		if grp == nil {
			continue
		}
		if sender != nil && !gm.g.allows(groupSettingValue(gm.g, grp, "can_mention_group"), sender) {
			return nil, errCannotMentionGroup(grp.Name)
		}
		byRole = gm.addMembers(id, out, map[int64]bool{}) || byRole
	}
	if byRole {
		// A system group's members are the users of its roles.
		if gm.users == nil {
			users, err := gm.tx.Users(gm.realmID, nil)
			if err != nil {
				return nil, err
			}
			gm.users = users
		}
		for i := range gm.users {
			u := &gm.users[i]
			for _, id := range ids {
				if gm.g.contains(id, u) {
					out[u.ID] = true
					break
				}
			}
		}
	}
	return out, nil
}

// addMembers adds the direct members of the group and of its subgroups,
// as groups.contains counts them, and reports whether a system group is
// among them, whose members are decided by role.
func (gm *groupMentions) addMembers(id int64, out, seen map[int64]bool) (byRole bool) {
	grp := gm.g.byID[id]
	if grp == nil || seen[id] || grp.Deactivated {
		return false
	}
	seen[id] = true
	if grp.IsSystem {
		byRole = true
	} else {
		for _, uid := range grp.Members {
			out[uid] = true
		}
	}
	for _, sub := range grp.Subgroups {
		byRole = gm.addMembers(sub, out, seen) || byRole
	}
	return byRole
}

// checkWildcardMentions refuses a channel message whose wildcard mention
// would notify more users than its sender may: @all and the like in a
// channel of more than wildcardMentionThreshold active subscribers, @topic
// in a topic that more than wildcardMentionThreshold active users have
// written to. It reads what it counts itself: it runs before the message
// is stored, for the rare wildcard mention by someone who is not an
// administrator, and serves edits too.
//
// Errors: ErrStreamWildcardMention, ErrTopicWildcardMention.
func checkWildcardMentions(tx storage.Tx, sender *storage.UserRecord, m *storage.MessageRecord, stream, topic bool) error {
	if (!stream && !topic) || canMentionManyUsers(sender) {
		return nil
	}
	if stream {
		subs, err := tx.ChannelSubscriptions([]int64{m.ChannelID})
		if err != nil {
			return err
		}
		n, err := countActive(tx, m.RealmID, subscriberIDs(subs)[m.ChannelID], wildcardMentionThreshold+1)
		if err != nil {
			return err
		}
		if n > wildcardMentionThreshold {
			return ErrStreamWildcardMention
		}
	}
	if topic {
		// The topic's senders, newest messages first, until there are
		// more than the threshold of active ones.
		key := storage.TopicKey(m.Topic)
		senders := map[int64]bool{}
		f := storage.MessageFilter{RealmID: m.RealmID, UserID: sender.ID, ChannelHistory: true, ChannelID: m.ChannelID,
			TopicKey: &key, Descending: true, Limit: 1000}
		for {
			rows, err := tx.FindMessages(f)
			if err != nil {
				return err
			}
			var fresh []int64
			for _, r := range rows {
				if !senders[r.Message.SenderID] {
					senders[r.Message.SenderID] = true
					fresh = append(fresh, r.Message.SenderID)
				}
			}
			if len(fresh) > 0 {
				all := make([]int64, 0, len(senders))
				for id := range senders {
					all = append(all, id)
				}
				n, err := countActive(tx, m.RealmID, all, wildcardMentionThreshold+1)
				if err != nil {
					return err
				}
				if n > wildcardMentionThreshold {
					return ErrTopicWildcardMention
				}
			}
			if len(rows) < f.Limit {
				return nil
			}
			f.MaxID = rows[len(rows)-1].Message.ID - 1
		}
	}
	return nil
}

// countActive counts the active users among ids, stopping at enough.
func countActive(tx storage.Tx, realmID int64, ids []int64, enough int) (int, error) {
	users, err := tx.Users(realmID, uniqueIDs(ids))
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range users {
		if users[i].IsActive {
			if n++; n >= enough {
				break
			}
		}
	}
	return n, nil
}
