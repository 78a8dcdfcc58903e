package chat

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// EmptyTopicDisplayName is how clients show the empty topic
// (realm_empty_topic_display_name); operations read it as "".
const EmptyTopicDisplayName = "general chat"

// Visibility policies of a user's topic.
const (
	TopicInherit  = storage.TopicInherit
	TopicMuted    = storage.TopicMuted
	TopicUnmuted  = storage.TopicUnmuted
	TopicFollowed = storage.TopicFollowed
)

// ErrTopicNotMuted answers a request to unmute a topic of a channel that
// does not exist.
var ErrTopicNotMuted = &Error{Code: CodeBadRequest, Msg: "Topic is not muted"}

func checkTopicLength(topic string) error {
	if utf8.RuneCountInString(topic) > MaxTopicLength {
		return errorf("topic is too long (limit: %d characters)", MaxTopicLength)
	}
	return nil
}

// SetUserTopic sets the actor's visibility policy (0 inherit, 1 muted,
// 2 unmuted, 3 followed) for a topic, which need not have messages. The
// name "general chat" means the empty topic. Setting the current policy
// changes nothing and emits no event.
//
// Errors: "Invalid visibility_policy: ...", "topic is too long ...",
// ErrInvalidChannelID (policies 1-3 need access to the channel, 0 only
// that it exists in the organization).
func (s *Service) SetUserTopic(ctx context.Context, actor Actor, channelID int64, topic string, policy int) error {
	if policy < TopicInherit || policy > TopicFollowed {
		return errorf("Invalid visibility_policy: Value error, Not in the list of possible values")
	}
	if err := checkTopicLength(topic); err != nil {
		return err
	}
	if topic == EmptyTopicDisplayName {
		topic = ""
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		var c storage.Channel
		if policy == TopicInherit {
			c, err = tx.Channel(channelID)
			if errors.Is(err, storage.ErrNotFound) || (err == nil && c.RealmID != cc.realm.ID) {
				return ErrInvalidChannelID
			}
		} else {
			c, err = cc.channel(tx, channelID, true)
		}
		if err != nil {
			return err
		}
		return s.setUserTopic(tx, emit, cc, &c, topic, policy)
	})
}

// setUserTopic stores the policy and emits the events when it changed.
func (s *Service) setUserTopic(tx storage.Tx, emit func(Event), cc *channelContext, c *storage.Channel, topic string, policy int) error {
	current := TopicInherit
	old, err := tx.UserTopic(cc.actor.ID, c.ID, storage.TopicKey(topic))
	if err == nil {
		current = old.VisibilityPolicy
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if current == policy {
		return nil
	}
	ut := storage.UserTopic{UserID: cc.actor.ID, ChannelID: c.ID, Topic: topic, VisibilityPolicy: policy, LastUpdated: s.now()}
	if err := tx.SetUserTopic(ut); err != nil {
		return err
	}
	return s.emitUserTopic(tx, emit, cc.realm.ID, ut)
}

// emitUserTopic emits the legacy muted_topics list and the user_topic event
// of a changed row.
func (s *Service) emitUserTopic(tx storage.Tx, emit func(Event), realmID int64, ut storage.UserTopic) error {
	rows, err := tx.UserTopics(ut.UserID)
	if err != nil {
		return err
	}
	muted := [][]any{}
	names := map[int64]string{}
	for _, r := range rows {
		if r.VisibilityPolicy != TopicMuted {
			continue
		}
		name, ok := names[r.ChannelID]
		if !ok {
			c, err := tx.Channel(r.ChannelID)
			if err != nil {
				return err
			}
			name = c.Name
			names[r.ChannelID] = name
		}
		muted = append(muted, []any{name, r.Topic, r.LastUpdated.Unix()})
	}
	to := []int64{ut.UserID}
	emit(Event{RealmID: realmID, UserIDs: to, Payload: map[string]any{"type": "muted_topics", "muted_topics": muted}})
	emit(Event{RealmID: realmID, UserIDs: to, Payload: map[string]any{"type": "user_topic", "stream_id": ut.ChannelID,
		"topic_name": ut.Topic, "last_updated": ut.LastUpdated.Unix(), "visibility_policy": ut.VisibilityPolicy}})
	return nil
}

// MuteTopicRequest is the deprecated muted_topics request: exactly one of
// StreamID and Stream names the channel; Op is "add" or "remove".
type MuteTopicRequest struct {
	StreamID *int64
	Stream   *string
	Topic    string
	Op       string
}

// MuteTopic mutes ("add") or unmutes ("remove") a topic for the actor.
// Adding needs access to the channel and is idempotent; removing needs the
// channel to exist and succeeds when the topic was not muted.
//
// Errors: "Missing 'stream_id' argument" (neither channel parameter),
// "Unsupported parameter combination: stream_id, stream" (both),
// "Invalid op", "topic is too long ...", ErrInvalidChannelID or "Invalid
// channel name 'x'" for add, ErrTopicNotMuted for removing from a channel
// that does not exist.
func (s *Service) MuteTopic(ctx context.Context, actor Actor, req MuteTopicRequest) error {
	switch {
	case req.StreamID == nil && req.Stream == nil:
		return errorf("Missing 'stream_id' argument")
	case req.StreamID != nil && req.Stream != nil:
		return errorf("Unsupported parameter combination: stream_id, stream")
	case req.Op != "add" && req.Op != "remove":
		return errorf("Invalid op")
	}
	if err := checkTopicLength(req.Topic); err != nil {
		return err
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		var c storage.Channel
		if req.StreamID != nil {
			c, err = tx.Channel(*req.StreamID)
			if err == nil && c.RealmID != cc.realm.ID {
				err = storage.ErrNotFound
			}
		} else {
			var found []storage.Channel
			found, err = storage.ChannelsByName(tx, cc.realm.ID, []string{storage.ChannelNameKey(*req.Stream)})
			if err == nil && len(found) == 0 {
				err = storage.ErrNotFound
			} else if err == nil {
				c = found[0]
			}
		}
		if errors.Is(err, storage.ErrNotFound) {
			switch {
			case req.Op == "remove":
				return ErrTopicNotMuted
			case req.Stream != nil:
				return errorf("Invalid channel name '%s'", *req.Stream)
			}
			return ErrInvalidChannelID
		}
		if err != nil {
			return err
		}
		if req.Op == "remove" {
			old, err := tx.UserTopic(cc.actor.ID, c.ID, storage.TopicKey(req.Topic))
			if errors.Is(err, storage.ErrNotFound) || (err == nil && old.VisibilityPolicy != TopicMuted) {
				return nil
			}
			if err != nil {
				return err
			}
			return s.setUserTopic(tx, emit, cc, &c, old.Topic, TopicInherit)
		}
		if !cc.access(&c).content(&c) {
			if req.Stream != nil {
				return errorf("Invalid channel name '%s'", *req.Stream)
			}
			return ErrInvalidChannelID
		}
		return s.setUserTopic(tx, emit, cc, &c, req.Topic, TopicMuted)
	})
}
