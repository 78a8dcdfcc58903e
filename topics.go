package chat

import (
	"context"
	"slices"

	"github.com/teamchat/chat/storage"
)

// deleteTopicBatch is the number of messages deleted per transaction.
const deleteTopicBatch = 100

// DeleteTopic deletes the messages of a channel's topic, newest first, in
// transactions of 100 messages. Before each batch it checks the time spent
// against Config.DeleteTopicTimeBudget; when the budget is used up it stops
// and returns false, and the client repeats the request. It returns true
// once no message of the topic is left (at once for a topic without
// messages); then the users' visibility policies for the topic are reset.
// The topic is matched without regard to case; "general chat" means the
// empty topic. Administrators only.
//
// Errors: ErrMustBeAdmin, ErrInvalidChannelID (unknown channel, or one the
// administrator has no content access to).
func (s *Service) DeleteTopic(ctx context.Context, actor Actor, channelID int64, topic string) (bool, error) {
	if topic == EmptyTopicDisplayName {
		topic = ""
	}
	key := storage.TopicKey(topic)
	return s.inBatches(ctx, actor, func(tx storage.Tx, emit func(Event)) (bool, error) {
		cc, err := s.channelContextFor(tx, actor, OpDeleteTopic)
		if err != nil {
			return false, err
		}
		c, err := cc.channel(tx, channelID, true)
		if err != nil {
			return false, err
		}
		ids, err := tx.TopicMessageIDs(c.ID, key, deleteTopicBatch)
		if err != nil {
			return false, err
		}
		if len(ids) > 0 {
			return false, s.deleteChannelMessages(tx, emit, cc, &c, topic, ids)
		}
		reset, err := tx.DeleteTopicUserTopics(c.ID, key)
		if err != nil {
			return false, err
		}
		for _, ut := range reset {
			ut.VisibilityPolicy, ut.LastUpdated = TopicInherit, s.now()
			if err := s.emitUserTopic(tx, emit, cc.realm.ID, ut); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// inBatches runs batch, each time in a transaction of its own whose
// events are published when it commits, until batch reports it is done
// or the time budget of Config.DeleteTopicTimeBudget is spent, which it
// checks before each batch; it reports whether it finished.
func (s *Service) inBatches(ctx context.Context, actor Actor, batch func(tx storage.Tx, emit func(Event)) (bool, error)) (bool, error) {
	start := s.cfg.Now()
	for s.cfg.Now().Sub(start) < s.cfg.DeleteTopicTimeBudget {
		done := false
		err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
			var err error
			done, err = batch(tx, emit)
			return err
		})
		if err != nil || done {
			return err == nil, err
		}
	}
	return false, nil
}

// deleteChannelMessages deletes messages of one topic of c, keeps the
// channel's first_message_id and emits the events.
func (s *Service) deleteChannelMessages(tx storage.Tx, emit func(Event), cc *channelContext, c *storage.Channel, topic string, ids []int64) error {
	if err := tx.DeleteMessages(ids); err != nil {
		return err
	}
	firstChanged := false
	if slices.Contains(ids, c.FirstMessageID) {
		first, err := tx.OldestChannelMessageID(c.ID)
		if err != nil {
			return err
		}
		c.FirstMessageID = first
		if err := tx.UpdateChannel(*c); err != nil {
			return err
		}
		firstChanged = true
	}
	subs, err := tx.ChannelSubscriptions([]int64{c.ID})
	if err != nil {
		return err
	}
	subscribers := subscriberIDs(subs)[c.ID]
	to := subscribers
	if _, found := slices.BinarySearch(to, cc.actor.ID); !found {
		to = append(slices.Clone(to), cc.actor.ID)
		slices.Sort(to)
	}
	sorted := slices.Sorted(slices.Values(ids))
	emit(formattedEvent(cc.realm.ID, to, &deleteMessageEvent{MessageIDs: sorted, StreamID: c.ID, Topic: topic}))
	if firstChanged {
		all, err := tx.Users(cc.realm.ID, nil)
		if err != nil {
			return err
		}
		var viewers []int64
		for i := range all {
			u := &all[i]
			_, sub := slices.BinarySearch(subscribers, u.ID)
			if u.IsActive && (channelAccess{user: u, g: cc.g, subscribed: sub}).metadata(c) {
				viewers = append(viewers, u.ID)
			}
		}
		var value any
		if c.FirstMessageID != 0 {
			value = c.FirstMessageID
		}
		emit(Event{RealmID: cc.realm.ID, UserIDs: viewers, Payload: map[string]any{"type": "stream", "op": "update",
			"stream_id": c.ID, "name": c.Name, "property": "first_message_id", "value": value}})
	}
	return nil
}
