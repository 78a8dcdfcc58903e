package chat

import (
	"slices"

	"github.com/teamchat/chat/storage"
)

// Topic-move texts, as the reference words them.
var (
	ErrInvalidPropagateMode = errorf("Invalid propagate_mode")
	ErrDirectMessageTopic   = errorf("Direct messages cannot have topics.")
	ErrPropagateWithoutMove = errorf("Invalid propagate_mode without topic edit")
	ErrTopicEditTimeLimit   = errorf("The time limit for editing this message's topic has passed.")
)

// Propagate modes of a topic move: the one message, it and the later
// messages of its topic, or every message of its topic.
const (
	PropagateChangeOne   = "change_one"
	PropagateChangeLater = "change_later"
	PropagateChangeAll   = "change_all"
)

// MessageEdit is a request to PATCH /messages/{id}: nil fields are left
// as they are.
type MessageEdit struct {
	// Content replaces the message's content.
	Content *string
	// Topic renames the topic of the message (and of the messages
	// PropagateMode names).
	Topic *string
	// StreamID moves the message (and those PropagateMode names) to
	// another channel.
	StreamID *int64
	// PropagateMode is PropagateChangeOne (the default when empty),
	// PropagateChangeLater or PropagateChangeAll.
	PropagateMode string
	// SendNotificationToOldThread and SendNotificationToNewThread ask the
	// notification bot to tell the old and the new topic of a move; nil
	// means false and true.
	SendNotificationToOldThread, SendNotificationToNewThread *bool
}

// checkTopicMovable applies the rules for moving m to another topic of its
// channel: administrators may, and the organization's
// can_move_messages_between_topics_group (everyone by default), within its
// time limit unless moderator.
func (s *Service) checkTopicMovable(cc *channelContext, m *storage.MessageRecord) error {
	if m.RecipientType != RecipientChannel {
		return ErrDirectMessageTopic
	}
	if !cc.actor.Role.IsAdmin() && !cc.realmAllows("can_move_messages_between_topics_group") {
		return ErrNoEditPermission
	}
	if limit := cc.realm.MoveMessagesWithinStreamLimitSeconds; limit > 0 && !cc.actor.Role.IsModerator() &&
		s.now().Sub(m.DateSent) > limit.Duration()+editGrace {
		return ErrTopicEditTimeLimit
	}
	return nil
}

// moveMessages moves m and, by the move's mode, the later or all the
// messages of its topic, in the caller's transaction. To another channel,
// the users who cannot read it lose their rows of the messages (and get
// delete_message events), and the subscribers of a private channel with
// protected history get rows, read. One update_message event goes to
// everyone who reads the messages after the move; users' topic settings
// follow a whole topic; the notification bot tells the topics.
func (s *Service) moveMessages(tx storage.Tx, emit func(Event), cc *channelContext, m storage.MessageRecord, mv *messageMove) ([]int64, error) {
	msgs, err := movedMessages(tx, cc, m, mv.mode)
	if err != nil {
		return nil, err
	}
	if err := s.checkMoveAllLimit(cc, mv, msgs); err != nil {
		return nil, err
	}
	newKey := storage.TopicKey(mv.topic)
	before, err := tx.TopicMessageIDs(mv.to.ID, newKey, 1)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(msgs))
	for i := range msgs {
		ids[i] = msgs[i].ID
	}
	now := s.now()
	// In batches of statements where the backend can (MessageMoverTx).
	if err := storage.MoveMessages(tx, ids, mv.to.ID, mv.topic, now); err != nil {
		return nil, err
	}
	// The readers of all the messages in one query; the flags of the
	// message the event names.
	to, err := storage.MessageReaders(tx, ids)
	if err != nil {
		return nil, err
	}
	readers := make(map[int64]bool, len(to))
	for _, u := range to {
		readers[u] = true
	}
	rows, err := tx.MessageRecipients(m.ID)
	if err != nil {
		return nil, err
	}
	flags := map[int64]storage.MessageFlags{}
	for _, r := range rows {
		if r.Flags != 0 {
			flags[r.UserID] = r.Flags
		}
	}
	if mv.channelChanged() {
		var gained []int64
		if to, gained, err = s.moveAccess(tx, emit, cc, mv, ids, to); err != nil {
			return nil, err
		}
		for _, u := range gained {
			flags[u] = storage.FlagRead
		}
	}
	payload := map[string]any{
		"type": "update_message", "user_id": cc.actor.ID, "edit_timestamp": now.Unix(),
		"message_id": m.ID, "message_ids": ids, "rendering_only": false,
		"stream_id": mv.from.ID, "stream_name": mv.from.Name, "propagate_mode": mv.mode,
		"orig_subject": mv.origTopic,
	}
	if mv.topicChanged() {
		ls, err := realmLinkifiers(tx, cc.realm.ID)
		if err != nil {
			return nil, err
		}
		payload["subject"], payload["topic_links"] = mv.topic, topicLinks(mv.topic, compileLinkifiers(ls))
	}
	if mv.channelChanged() {
		payload["new_stream_id"] = mv.to.ID
	}
	emit(formattedEvent(cc.realm.ID, to, &updateMessageEvent{Payload: payload, Flags: flags}))
	if mv.mode == PropagateChangeAll {
		if err := s.moveUserTopics(tx, emit, cc, mv, readers); err != nil {
			return nil, err
		}
	}
	left, err := tx.TopicMessageIDs(mv.from.ID, storage.TopicKey(mv.origTopic), 1)
	if err != nil {
		return nil, err
	}
	bot := s.moveNotices(cc, mv, m.ID, len(msgs), len(left) == 0, len(before) == 0)
	return ids, s.sendBotMessages(tx, emit, bot, nil, nil)
}

// moveAccess applies what a move to another channel changes in who reads
// the messages ids, which readers received: those who cannot read the
// new channel lose their rows, and the subscribers of a private channel
// with protected history get rows, read. It returns who reads the
// messages now, and who got rows.
func (s *Service) moveAccess(tx storage.Tx, emit func(Event), cc *channelContext, mv *messageMove, ids, readers []int64) (now, gained []int64, err error) {
	subs, err := tx.ChannelSubscriptions([]int64{mv.to.ID})
	if err != nil {
		return nil, nil, err
	}
	subscribed := map[int64]bool{}
	for _, sub := range subs {
		subscribed[sub.UserID] = true
	}
	users, err := tx.Users(cc.realm.ID, readers)
	if err != nil {
		return nil, nil, err
	}
	var keep, lose []int64
	for i := range users {
		u := &users[i]
		if (channelAccess{user: u, g: cc.g, subscribed: subscribed[u.ID]}).content(&mv.to) {
			keep = append(keep, u.ID)
		} else {
			lose = append(lose, u.ID)
		}
	}
	if len(lose) > 0 {
		if err := tx.DeleteUserMessages(lose, ids); err != nil {
			return nil, nil, err
		}
		emit(formattedEvent(cc.realm.ID, lose, &deleteMessageEvent{MessageIDs: ids, StreamID: mv.from.ID, Topic: mv.origTopic}))
	}
	if !mv.to.InviteOnly || mv.to.HistoryPublicToSubscribers {
		return keep, nil, nil
	}
	had := map[int64]bool{}
	for _, id := range readers {
		had[id] = true
	}
	var candidates []int64
	for id := range subscribed {
		if !had[id] {
			candidates = append(candidates, id)
		}
	}
	// Only active users get rows, as at delivery.
	if gained, err = tx.ActiveUserIDs(cc.realm.ID, candidates); err != nil {
		return nil, nil, err
	}
	var rows []storage.UserMessage
	for _, id := range gained {
		for _, msgID := range ids {
			rows = append(rows, storage.UserMessage{UserID: id, MessageID: msgID, Flags: storage.FlagRead})
		}
	}
	if err := tx.CreateUserMessages(rows); err != nil {
		return nil, nil, err
	}
	now = uniqueIDs(append(keep, gained...))
	slices.Sort(now)
	return now, gained, nil
}

// moveUserTopics moves the users' settings of a whole topic to where it
// went, for the users who still read it, and tells them.
func (s *Service) moveUserTopics(tx storage.Tx, emit func(Event), cc *channelContext, mv *messageMove, readers map[int64]bool) error {
	rows, err := tx.DeleteTopicUserTopics(mv.from.ID, storage.TopicKey(mv.origTopic))
	if err != nil {
		return err
	}
	for _, ut := range rows {
		gone := ut
		gone.VisibilityPolicy, gone.LastUpdated = TopicInherit, s.now()
		if err := s.emitUserTopic(tx, emit, cc.realm.ID, gone); err != nil {
			return err
		}
		ut.ChannelID, ut.Topic, ut.LastUpdated = mv.to.ID, mv.topic, s.now()
		if mv.channelChanged() && !readers[ut.UserID] {
			continue
		}
		if err := tx.SetUserTopic(ut); err != nil {
			return err
		}
		if err := s.emitUserTopic(tx, emit, cc.realm.ID, ut); err != nil {
			return err
		}
	}
	return nil
}

// sortedKeys returns the keys of set in increasing order.
func sortedKeys(set map[int64]bool) []int64 {
	out := make([]int64, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
