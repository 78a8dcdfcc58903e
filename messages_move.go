package chat

import (
	"time"

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

// moveWithinChannelLimit is the reference's default time limit for moving
// messages between topics (a week); moderators and administrators have
// none.
const moveWithinChannelLimit = 7 * 24 * time.Hour

// MessageEdit is a request to PATCH /messages/{id}: nil fields are left
// as they are.
type MessageEdit struct {
	// Content replaces the message's content.
	Content *string
	// Topic renames the topic of the message (and of the messages
	// PropagateMode names).
	Topic *string
	// PropagateMode is PropagateChangeOne (the default when empty),
	// PropagateChangeLater or PropagateChangeAll.
	PropagateMode string
}

// checkTopicMovable applies the rules for moving m to another topic of its
// channel: any user may, within a week of sending unless moderator or
// administrator.
func (s *Service) checkTopicMovable(cc *channelContext, m *storage.MessageRecord) error {
	if m.RecipientType != RecipientChannel {
		return ErrDirectMessageTopic
	}
	if !cc.actor.Role.IsModerator() && s.now().Sub(m.DateSent) > moveWithinChannelLimit+editGrace {
		return ErrTopicEditTimeLimit
	}
	return nil
}

// moveTopic renames the topic of m and, by mode, of the later or all the
// messages of its topic in its channel, in the caller's transaction, and
// emits one update_message event to the users who received any of them.
func (s *Service) moveTopic(tx storage.Tx, emit func(Event), cc *channelContext, m storage.MessageRecord, topic, mode string) error {
	key := storage.TopicKey(m.Topic)
	msgs := []storage.MessageRecord{m}
	if mode != PropagateChangeOne {
		// Every message of the topic, received by anyone or not.
		f := storage.MessageFilter{RealmID: cc.realm.ID, ChannelHistory: true, ChannelID: m.ChannelID, TopicKey: &key}
		if mode == PropagateChangeLater {
			f.MinID = m.ID
		}
		rows, err := tx.FindMessages(f)
		if err != nil {
			return err
		}
		msgs = msgs[:0]
		for _, r := range rows {
			msgs = append(msgs, r.Message)
		}
	}
	ids := make([]int64, len(msgs))
	orig := m.Topic
	now := s.now()
	flags := map[int64]storage.MessageFlags{}
	seen := map[int64]bool{}
	to := []int64{}
	for i, msg := range msgs {
		id := msg.ID
		ids[i] = id
		msg.Topic, msg.EditedAt = topic, now
		if err := tx.UpdateMessage(msg); err != nil {
			return err
		}
		rows, err := tx.MessageRecipients(id)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if !seen[r.UserID] {
				seen[r.UserID] = true
				to = append(to, r.UserID)
			}
			if id == m.ID && r.Flags != 0 {
				flags[r.UserID] = r.Flags
			}
		}
	}
	c, err := tx.Channel(m.ChannelID)
	if err != nil {
		return err
	}
	payload := map[string]any{
		"type": "update_message", "user_id": cc.actor.ID, "edit_timestamp": now.Unix(),
		"message_id": m.ID, "message_ids": ids, "rendering_only": false,
		"stream_id": c.ID, "stream_name": c.Name, "propagate_mode": mode,
		"orig_subject": orig, "subject": topic, "topic_links": []any{},
	}
	emit(formattedEvent(cc.realm.ID, to, &updateMessageEvent{Payload: payload, Flags: flags}))
	return nil
}
