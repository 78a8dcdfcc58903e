package chat

import (
	"context"

	"github.com/teamchat/chat/storage"
)

// markReadBatch is the number of messages marked read per transaction by
// the bulk operations, so that no transaction holds the writer long and
// 100 000 unread messages are marked within one request.
var markReadBatch = 1000

// markReadUsers is the number of users whose messages of a channel
// markChannelReadFor marks read per transaction, at most.
const markReadUsers = 200

// MarkAllAsRead marks every unread message of the actor read, in
// transactions of markReadBatch messages, each with its
// update_message_flags event. Like DeleteTopic, it checks the time spent
// against Config.DeleteTopicTimeBudget before each batch and returns false
// when the budget is used up, for the client to repeat the request; true
// once nothing is left unread. Any user may call it.
//
// Errors: those of the actor check.
func (s *Service) MarkAllAsRead(ctx context.Context, actor Actor) (bool, error) {
	return s.markRead(ctx, actor, OpMarkAllAsRead, func(tx storage.Tx, cc *channelContext) (storage.MessageFilter, error) {
		return storage.MessageFilter{}, nil
	})
}

// MarkChannelAsRead marks the actor's unread messages of a channel read,
// as MarkAllAsRead does. Any user may call it for a channel whose messages
// they may read.
//
// Errors: ErrInvalidChannelID; those of the actor check.
func (s *Service) MarkChannelAsRead(ctx context.Context, actor Actor, channelID int64) error {
	complete, err := s.markRead(ctx, actor, OpMarkChannelAsRead, func(tx storage.Tx, cc *channelContext) (storage.MessageFilter, error) {
		c, err := cc.channel(tx, channelID, true)
		return storage.MessageFilter{ChannelID: c.ID}, err
	})
	if err == nil && !complete {
		err = ErrMarkReadIncomplete
	}
	return err
}

// MarkTopicAsRead marks the actor's unread messages of a channel's topic
// read, as MarkAllAsRead does; the topic is matched without regard to
// case, and "general chat" means the empty topic. Any user may call it for
// a channel whose messages they may read.
//
// Errors: ErrInvalidChannelID; "No such topic '{topic}'" for a topic
// without messages; those of the actor check.
func (s *Service) MarkTopicAsRead(ctx context.Context, actor Actor, channelID int64, topic string) error {
	if topic == EmptyTopicDisplayName {
		topic = ""
	}
	key := storage.TopicKey(topic)
	complete, err := s.markRead(ctx, actor, OpMarkTopicAsRead, func(tx storage.Tx, cc *channelContext) (storage.MessageFilter, error) {
		c, err := cc.channel(tx, channelID, true)
		if err != nil {
			return storage.MessageFilter{}, err
		}
		ids, err := tx.TopicMessageIDs(c.ID, key, 1)
		if err != nil {
			return storage.MessageFilter{}, err
		}
		if len(ids) == 0 {
			return storage.MessageFilter{}, errorf("No such topic '%s'", topic)
		}
		return storage.MessageFilter{ChannelID: c.ID, TopicKey: &key}, nil
	})
	if err == nil && !complete {
		err = ErrMarkReadIncomplete
	}
	return err
}

// ErrMarkReadIncomplete answers a request to mark a channel or topic read
// that ran out of time; what was marked stays marked, and the request can
// be repeated.
var ErrMarkReadIncomplete = errorf("Marking messages as read took too long; repeat the request to finish.")

// markRead marks the actor's unread messages that selection's filter
// keeps read, batch by batch; it reports whether it finished within the
// time budget.
func (s *Service) markRead(ctx context.Context, actor Actor, op Operation,
	selection func(tx storage.Tx, cc *channelContext) (storage.MessageFilter, error)) (bool, error) {
	return s.inBatches(ctx, actor, func(tx storage.Tx, emit func(Event)) (bool, error) {
		cc, err := s.channelContextFor(tx, actor, op)
		if err != nil {
			return false, err
		}
		f, err := selection(tx, cc)
		if err != nil {
			return false, err
		}
		var changed []int64
		batch, found := markReadBatch, 0
		if op == OpMarkAllAsRead {
			// Everything: one bulk statement per batch (MarkRead),
			// without reading the messages.
			batch *= 10
			if changed, err = storage.MarkRead(tx, cc.realm.ID, cc.actor.ID, batch); err != nil {
				return false, err
			}
			found = len(changed)
		} else {
			f.RealmID = cc.realm.ID
			if found, changed, err = readBatch(tx, f, cc.actor.ID); err != nil {
				return false, err
			}
		}
		if len(changed) == 0 {
			return true, nil
		}
		emit(readFlagsEvent(cc.realm.ID, cc.actor.ID, changed))
		return found < batch, nil
	})
}

// readBatch marks read up to markReadBatch of the user's unread messages
// that f keeps (its realm and narrowing fields; the reader, Unread and
// Limit are set here). It returns how many it found and the IDs it
// changed.
func readBatch(tx storage.Tx, f storage.MessageFilter, userID int64) (int, []int64, error) {
	f.UserID, f.Unread, f.Limit = userID, true, markReadBatch
	rows, err := tx.FindMessages(f)
	if err != nil || len(rows) == 0 {
		return 0, nil, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.Message.ID
	}
	changed, err := tx.UpdateUserMessageFlags(userID, ids, storage.FlagRead, 0)
	return len(rows), changed, err
}

// readFlagsEvent tells a user that messages were marked read.
func readFlagsEvent(realmID, userID int64, ids []int64) Event {
	return Event{RealmID: realmID, UserIDs: []int64{userID}, Payload: map[string]any{
		"type": "update_message_flags", "op": "add", "operation": "add", "flag": "read",
		"messages": ids, "all": false,
	}}
}

// markChannelReadFor marks each user's unread messages of a channel read
// after a change that took the channel from them, as the reference's
// deferred work does: an unsubscription (notify: each batch sends its
// user an update_message_flags event, as MarkChannelAsRead would) and an
// archiving (no events: the channel's update tells clients). Otherwise
// those messages stay unread for good, in every unread count and
// first_unread anchor, where clients no longer show them (zulip-terminal
// fails to start on such an anchor).
//
// It runs after the change committed, to the end even when the request's
// context ends, in transactions of at most markReadBatch messages and
// markReadUsers users: archiving a channel of 2 000 subscribers, half of
// them with 20 unread messages, took 834–1 035 ms on SQLite with one
// transaction per user, 586–647 ms so (most of the rest is the reads that
// find each user's unread messages). A failure is logged, not returned,
// the change standing; the first user of the failed transaction is
// skipped, and the others are tried again.
func (s *Service) markChannelReadFor(ctx context.Context, realmID, channelID int64, userIDs []int64, notify bool) {
	ctx = context.WithoutCancel(ctx)
	filter := storage.MessageFilter{RealmID: realmID, ChannelID: channelID}
	for next := 0; next < len(userIDs); {
		end := next
		err := s.updateWithEvents(ctx, noActor, func(tx storage.Tx, emit func(Event)) error {
			end = next // the transaction may run again
			for rows := 0; end < len(userIDs) && rows < markReadBatch && end-next < markReadUsers; {
				found, changed, err := readBatch(tx, filter, userIDs[end])
				if err != nil {
					return err
				}
				if notify && len(changed) > 0 {
					emit(readFlagsEvent(realmID, userIDs[end], changed))
				}
				rows += len(changed)
				if found < markReadBatch || len(changed) == 0 {
					end++ // the user's messages are all read
				}
			}
			return nil
		})
		if err != nil {
			s.cfg.Logger.Error("marking a channel's messages read", "channel", channelID, "user", userIDs[next], "err", err)
			end = next + 1
		}
		next = end
	}
}

// TopicSummary is a topic of a channel as GET /users/me/{stream_id}/topics
// lists it: its latest name and its newest message the user may read.
type TopicSummary struct {
	Name  string `json:"name"`
	MaxID int64  `json:"max_id"`
}

// Topics returns the topics of a channel the actor may read, newest first,
// counting only the messages the actor may read: the channel's history
// when it is open to them, else the messages they received. The empty
// topic is named "general chat" unless allowEmptyName. Any user may call
// it.
//
// Errors: ErrInvalidChannelID; those of the actor check.
func (s *Service) Topics(ctx context.Context, actor Actor, channelID int64, allowEmptyName bool) ([]TopicSummary, error) {
	out := []TopicSummary{}
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpTopics)
		if err != nil {
			return err
		}
		c, err := cc.channel(tx, channelID, true)
		if err != nil {
			return err
		}
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: cc.realm.ID, UserID: cc.actor.ID, ChannelID: c.ID,
			ChannelHistory: historyAccess(cc, &c), Descending: true})
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if key := storage.TopicKey(r.Message.Topic); !seen[key] {
				seen[key] = true
				name := r.Message.Topic
				if name == "" && !allowEmptyName {
					name = EmptyTopicDisplayName
				}
				out = append(out, TopicSummary{Name: name, MaxID: r.Message.ID})
			}
		}
		return nil
	})
	return out, err
}
