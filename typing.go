package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/teamchat/chat/storage"
)

// TypingRequest describes a typing notification (POST /typing).
type TypingRequest struct {
	// Type is "direct" (the default when empty), "stream" or "channel".
	Type string
	// Op is "start" or "stop".
	Op string
	// To lists the recipients of a direct message being composed; nil
	// means the parameter was not sent.
	To []int64
	// StreamID and Topic name the channel topic of a channel message
	// being composed; nil means not sent. "general chat" and "(no topic)"
	// mean the empty topic.
	StreamID *int64
	Topic    *string
}

// Typing texts.
var (
	ErrInvalidTypingType = &Error{Code: CodeBadRequest, Msg: "Invalid type"}
	ErrInvalidTypingOp   = &Error{Code: CodeBadRequest, Msg: "Invalid op"}
	ErrTypingMissingTo   = &Error{Code: CodeBadRequest, Msg: "Missing 'to' argument"}
	ErrTypingEmptyTo     = &Error{Code: CodeBadRequest, Msg: "Empty 'to' list"}
	// ErrTypingMissingStreamID is plain BAD_REQUEST, as the reference
	// server's, not REQUEST_VARIABLE_MISSING.
	ErrTypingMissingStreamID = &Error{Code: CodeBadRequest, Msg: "Missing 'stream_id' argument"}
)

// setChannelTyping is SetTyping for a channel topic.
func (s *Service) setChannelTyping(ctx context.Context, actor Actor, req TypingRequest) error {
	if req.StreamID == nil {
		return ErrTypingMissingStreamID
	}
	if req.Topic == nil {
		return ErrMissingTopic
	}
	var events []Event
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, *req.StreamID, false)
		if err != nil {
			return err
		}
		to := &MessageTo{IDs: []int64{c.ID}}
		m := &storage.MessageRecord{}
		if _, err := s.channelRecipient(tx, cc, &SendMessageRequest{To: to, Topic: req.Topic}, m); err != nil {
			return err
		}
		subs, err := tx.ChannelSubscriptions([]int64{c.ID})
		if err != nil {
			return err
		}
		recipients, err := activeAmong(tx, cc.realm.ID, subscriberIDs(subs)[c.ID])
		if err != nil {
			return err
		}
		if len(recipients) == 0 || len(recipients) > maxTypingSubscribers {
			return nil
		}
		events = append(events, formattedEvent(cc.realm.ID, recipients, &channelTypingEvent{Op: req.Op,
			SenderID: cc.actor.ID, SenderEmail: apiEmail(&cc.actor, s.emailDomain(cc.realm)), StreamID: c.ID, Topic: m.Topic}))
		return nil
	})
	if err == nil && len(events) > 0 {
		s.cfg.Events.Publish(ctx, events)
	}
	return err
}

// channelTypingEvent is a typing event of a channel topic: an empty topic
// is named for queues without empty_topic_name.
type channelTypingEvent struct {
	Op          string `json:"op"`
	SenderID    int64  `json:"sender_id"`
	SenderEmail string `json:"sender_email"`
	StreamID    int64  `json:"stream_id"`
	Topic       string `json:"topic"`

	// byTopic holds the forms by the topic's name.
	byTopic formCache[string]
}

func (e *channelTypingEvent) kind() string { return "typing" }

func (e *channelTypingEvent) payload() map[string]any {
	return map[string]any{"type": "typing", "op": e.Op, "message_type": "stream",
		"sender": map[string]any{"user_id": e.SenderID, "email": e.SenderEmail}, "stream_id": e.StreamID, "topic": e.Topic}
}

// ForQueue encodes the event with the topic named as q wants it.
func (e *channelTypingEvent) ForQueue(q QueueInfo) []json.RawMessage {
	topic := topicForQueue(q, e.Topic)
	return e.byTopic.get(topic, func() []json.RawMessage {
		p := e.payload()
		p["topic"] = topic
		return []json.RawMessage{encodeJSON(p)}
	})
}

// SetTyping tells the recipients of a message that the actor started or
// stopped composing it. The server keeps no typing state; clients repeat
// "start" while composing. For a direct message the event goes to every
// active recipient, the actor included; for a channel message to the
// channel's active subscribers (none when there are more than 100), and
// only to the queues of clients that handle channel typing events. Any
// active user may call it.
//
// Errors, in the order they are checked: ErrInvalidTypingType,
// ErrInvalidTypingOp; for direct messages ErrTypingMissingTo,
// ErrTypingEmptyTo, BAD_REQUEST "Invalid user ID {id}" for a recipient
// that is not a user of the organization; for channel messages
// ErrTypingMissingStreamID, ErrMissingTopic, ErrInvalidChannelID and the
// posting permission errors of SendMessage; and those of Users.
func (s *Service) SetTyping(ctx context.Context, actor Actor, req TypingRequest) error {
	switch req.Type {
	case "", "direct":
	case "stream", "channel":
		if req.Op != "start" && req.Op != "stop" {
			return ErrInvalidTypingOp
		}
		return s.setChannelTyping(ctx, actor, req)
	default:
		return ErrInvalidTypingType
	}
	if req.Op != "start" && req.Op != "stop" {
		return ErrInvalidTypingOp
	}
	var event Event
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, UserQuery{})
		if err != nil {
			return err
		}
		if req.To == nil {
			return ErrTypingMissingTo
		}
		if len(req.To) == 0 {
			return ErrTypingEmptyTo
		}
		ids := req.To
		if !slices.Contains(ids, actor.UserID()) {
			ids = append([]int64{actor.UserID()}, ids...)
		}
		users, err := tx.Users(v.realm.ID, ids)
		if err != nil {
			return err
		}
		if len(users) != len(uniqueIDs(ids)) {
			for _, id := range ids {
				if _, err := targetUser(tx, v.realm.ID, id); errors.Is(err, ErrNoSuchUser) {
					return errorf("Invalid user ID %d", id)
				}
			}
		}
		recipients := make([]map[string]any, 0, len(users))
		var notify []int64
		for i := range users {
			u := &users[i]
			recipients = append(recipients, map[string]any{"user_id": u.ID, "email": apiEmail(u, v.emailDomain)})
			if u.IsActive {
				notify = append(notify, u.ID)
			}
		}
		event = Event{RealmID: v.realm.ID, UserIDs: notify, Payload: map[string]any{
			"type": "typing", "op": req.Op, "message_type": "direct",
			"sender":     map[string]any{"user_id": v.user.ID, "email": apiEmail(&v.user, v.emailDomain)},
			"recipients": recipients,
		}}
		return nil
	})
	if err != nil {
		return err
	}
	s.cfg.Events.Publish(ctx, []Event{event})
	return nil
}

// uniqueIDs returns ids without repetitions, in their first order.
func uniqueIDs(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
