package chat

import (
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
)

// Channel-move texts, as the reference words them.
var (
	ErrDirectMessageToChannel = errorf("Direct messages cannot be moved to channels.")
	ErrContentWithChannelMove = errorf("Cannot change message content while changing channel")
	ErrNoMovePermission       = errorf("You don't have permission to move this message")
	ErrChannelMoveTimeLimit   = errorf("The time limit for editing this message's channel has passed")
)

// CodeMoveMessagesTimeLimitExceeded answers a move of a whole topic by a
// user who may move only its more recent messages.
const CodeMoveMessagesTimeLimitExceeded Code = "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"

// messageMove is a checked request to move messages: from a topic of one
// channel to a topic of the same or another channel.
type messageMove struct {
	from, to             storage.Channel
	origTopic, topic     string
	mode                 string
	notifyOld, notifyNew bool
	// resolved and unresolved say that the move only marks the topic
	// resolved or unresolved, which the notification bot announces.
	resolved, unresolved bool
}

func (mv *messageMove) channelChanged() bool { return mv.from.ID != mv.to.ID }

// record is the history record of the move of message id.
func (mv *messageMove) record(id, userID int64, at time.Time) storage.MessageEditRecord {
	r := storage.MessageEditRecord{MessageID: id, UserID: userID, Time: at}
	if mv.topicChanged() {
		r.PrevTopic, r.Topic = &mv.origTopic, &mv.topic
	}
	if mv.channelChanged() {
		r.PrevChannelID, r.ChannelID = mv.from.ID, mv.to.ID
	}
	return r
}
func (mv *messageMove) topicChanged() bool { return mv.origTopic != mv.topic }

// planMove checks a move that edit asks of m, and returns nil when edit
// moves nothing.
func (s *Service) planMove(tx storage.Tx, cc *channelContext, m *storage.MessageRecord, edit MessageEdit, mode string) (*messageMove, error) {
	if edit.Topic == nil && edit.StreamID == nil {
		return nil, nil
	}
	if m.RecipientType != RecipientChannel {
		if edit.StreamID != nil {
			return nil, ErrDirectMessageToChannel
		}
		return nil, ErrDirectMessageTopic
	}
	if edit.StreamID != nil && edit.Content != nil {
		return nil, ErrContentWithChannelMove
	}
	from, err := tx.Channel(m.ChannelID)
	if err != nil {
		return nil, err
	}
	mv := &messageMove{from: from, to: from, origTopic: m.Topic, topic: m.Topic, mode: mode, notifyNew: true}
	if edit.SendNotificationToOldThread != nil {
		mv.notifyOld = *edit.SendNotificationToOldThread
	}
	if edit.SendNotificationToNewThread != nil {
		mv.notifyNew = *edit.SendNotificationToNewThread
	}
	if edit.Topic != nil {
		topic, err := normaliseTopic(*edit.Topic)
		if err != nil {
			return nil, err
		}
		mv.topic = topic
		mv.resolved = strings.HasPrefix(topic, resolvedTopicPrefix) && !strings.HasPrefix(m.Topic, resolvedTopicPrefix) &&
			strings.TrimPrefix(topic, resolvedTopicPrefix) == m.Topic
		mv.unresolved = strings.HasPrefix(m.Topic, resolvedTopicPrefix) && !strings.HasPrefix(topic, resolvedTopicPrefix) &&
			strings.TrimLeft(m.Topic, "✔ ") == topic
		if mv.topicChanged() && !mv.resolved && !mv.unresolved {
			if err := s.checkTopicMovable(cc, m); err != nil {
				return nil, err
			}
		}
	}
	if edit.StreamID != nil && *edit.StreamID != m.ChannelID {
		if err := s.checkChannelMovable(tx, cc, m, mv, *edit.StreamID); err != nil {
			return nil, err
		}
	}
	if !mv.channelChanged() && !mv.topicChanged() {
		if edit.Content == nil {
			return nil, ErrNothingToChange
		}
		return nil, nil
	}
	switch effectiveTopicsPolicy(&mv.to, &cc.realm) {
	case TopicsDisableEmpty:
		if mv.topic == "" {
			return nil, ErrEmptyTopicDisallowed
		}
	case TopicsEmptyTopicOnly:
		if mv.topic != "" {
			return nil, ErrOnlyEmptyTopicAllowed
		}
	}
	return mv, nil
}

// checkChannelMovable applies the rules for moving m to the channel
// toID: administrators may, and the organization's
// can_move_messages_between_channels_group (members by default), within its
// time limit unless moderator, to a channel they can read and post in.
func (s *Service) checkChannelMovable(tx storage.Tx, cc *channelContext, m *storage.MessageRecord, mv *messageMove, toID int64) error {
	if !cc.actor.Role.IsAdmin() && !cc.realmAllows("can_move_messages_between_channels_group") {
		return ErrNoMovePermission
	}
	to, err := cc.channel(tx, toID, true)
	if err != nil {
		return err
	}
	if to.IsArchived || !cc.g.allows(to.CanSendMessageGroup, &cc.actor) {
		return ErrNoPostPermission
	}
	if limit := cc.realm.MoveMessagesBetweenStreamsLimitSeconds; limit > 0 && !cc.actor.Role.IsModerator() &&
		s.now().Sub(m.DateSent) > limit.Duration()+editGrace {
		return ErrChannelMoveTimeLimit
	}
	mv.to = to
	return nil
}

// checkMoveAllLimit refuses a move of a whole topic by a user with a time
// limit when some of its messages are older than the limit, saying how
// many of the more recent ones the user may move.
func (s *Service) checkMoveAllLimit(cc *channelContext, mv *messageMove, msgs []storage.MessageRecord) error {
	if mv.mode != PropagateChangeAll || cc.actor.Role.IsModerator() || mv.resolved || mv.unresolved {
		return nil
	}
	// The stricter of the limits that apply; none applying, no limit.
	var limit time.Duration
	for _, l := range []struct {
		applies bool
		limit   TimeLimit
	}{{mv.topicChanged(), cc.realm.MoveMessagesWithinStreamLimitSeconds},
		{mv.channelChanged(), cc.realm.MoveMessagesBetweenStreamsLimitSeconds}} {
		if l.applies && l.limit > 0 && (limit == 0 || l.limit.Duration() < limit) {
			limit = l.limit.Duration()
		}
	}
	if limit == 0 {
		return nil
	}
	oldest := s.now().Add(-limit - editGrace)
	var allowed []int64
	for _, m := range msgs {
		if m.DateSent.After(oldest) {
			allowed = append(allowed, m.ID)
		}
	}
	if len(allowed) == len(msgs) {
		return nil
	}
	first := int64(0)
	if len(allowed) > 0 {
		first = allowed[0]
	}
	return &Error{Code: CodeMoveMessagesTimeLimitExceeded,
		Msg: "You only have permission to move the " + strconv.Itoa(len(allowed)) + "/" + strconv.Itoa(len(msgs)) +
			" most recent messages in this topic.",
		Data: map[string]any{"first_message_id_allowed_to_move": first, "total_messages_in_topic": len(msgs),
			"total_messages_allowed_to_move": len(allowed)}}
}

// movedMessages are the messages a move takes: m alone, or with the
// later or all the messages of its topic, received by anyone or not.
func movedMessages(tx storage.Tx, cc *channelContext, m storage.MessageRecord, mode string) ([]storage.MessageRecord, error) {
	if mode == PropagateChangeOne {
		return []storage.MessageRecord{m}, nil
	}
	key := storage.TopicKey(m.Topic)
	f := storage.MessageFilter{RealmID: cc.realm.ID, ChannelHistory: true, ChannelID: m.ChannelID, TopicKey: &key}
	if mode == PropagateChangeLater {
		f.MinID = m.ID
	}
	rows, err := tx.FindMessages(f)
	if err != nil {
		return nil, err
	}
	msgs := make([]storage.MessageRecord, len(rows))
	for i, r := range rows {
		msgs[i] = r.Message
	}
	return msgs, nil
}

// moveNotices has the notification bot tell the old and the new topic of
// a move, as the reference words it, or announce a topic resolved or
// unresolved. allMoved says that the old topic is left empty; newWasEmpty
// that the new one had no message before.
func (s *Service) moveNotices(cc *channelContext, mv *messageMove, first int64, moved int, allMoved, newWasEmpty bool) *botMessages {
	bot := &botMessages{realmID: cc.realm.ID, now: s.now()}
	user := mention(&cc.actor, true)
	if (mv.resolved || mv.unresolved) && !mv.channelChanged() {
		state := "resolved"
		if mv.unresolved {
			state = "unresolved"
		}
		bot.toChannel(&mv.to, mv.topic, user+" has marked this topic as "+state+".")
		return bot
	}
	oldLocation := "#**" + mv.from.Name + ">" + mv.origTopic + "**"
	newLocation := "#**" + mv.to.Name + ">" + mv.topic + "**"
	link := cc.realm.URL + "/#narrow/channel/" + markdown.ChannelSlug(mv.to.ID, mv.to.Name) + "/topic/" +
		markdown.HashComponent(mv.topic) + "/near/" + strconv.FormatInt(first, 10)
	if mv.notifyOld {
		switch {
		case allMoved:
			bot.toChannel(&mv.from, mv.origTopic, "This topic was moved to "+newLocation+" by "+user+".")
		case moved == 1:
			bot.toChannel(&mv.from, mv.origTopic, "[A message]("+link+") was moved from this topic to "+newLocation+" by "+user+".")
		default:
			bot.toChannel(&mv.from, mv.origTopic, strconv.Itoa(moved)+" messages were moved from this topic to "+newLocation+" by "+user+".")
		}
	}
	if mv.notifyNew {
		switch {
		case allMoved && newWasEmpty:
			bot.toChannel(&mv.to, mv.topic, "This topic was moved here from "+oldLocation+" by "+user+".")
		case moved == 1:
			bot.toChannel(&mv.to, mv.topic, "[A message]("+link+") was moved here from "+oldLocation+" by "+user+".")
		default:
			bot.toChannel(&mv.to, mv.topic, strconv.Itoa(moved)+" messages were moved here from "+oldLocation+" by "+user+".")
		}
	}
	return bot
}
