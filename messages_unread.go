package chat

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// maxUnreadMessages bounds the unread messages POST /register reports,
// newest kept, as the reference server's MAX_UNREAD_MESSAGES; beyond it
// old_unreads_missing is true. A variable only so that tests reach it
// with few messages.
var maxUnreadMessages = 50_000

// unreadChannelTopic is one topic's unread messages in unread_msgs.
type unreadChannelTopic struct {
	StreamID         int64   `json:"stream_id"`
	Topic            string  `json:"topic"`
	UnreadMessageIDs []int64 `json:"unread_message_ids"`
}

// unreadDirect is one conversation's unread messages in unread_msgs:
// other_user_id for a one-to-one conversation (sender_id is its older
// name), user_ids_string for a group.
type unreadDirect struct {
	OtherUserID      int64   `json:"other_user_id,omitempty"`
	SenderID         int64   `json:"sender_id,omitempty"`
	UserIDsString    string  `json:"user_ids_string,omitempty"`
	UnreadMessageIDs []int64 `json:"unread_message_ids"`
}

// unreadMsgs is the unread_msgs block of POST /register.
type unreadMsgs struct {
	Count             int                  `json:"count"`
	PMs               []unreadDirect       `json:"pms"`
	Streams           []unreadChannelTopic `json:"streams"`
	Huddles           []unreadDirect       `json:"huddles"`
	Mentions          []int64              `json:"mentions"`
	OldUnreadsMissing bool                 `json:"old_unreads_missing"`
}

// unreadState is the "update_message_flags" state block: with "message"
// fetched too, unread_msgs, the actor's unread messages by conversation,
// which the two event types keep up to date.
func unreadState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	if !fetches(req, "message") {
		return nil
	}
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		rows, err := storage.UnreadMessages(tx, v.realm.ID, v.user.ID, maxUnreadMessages+1)
		if err != nil {
			return err
		}
		subs, err := subscribedSet(tx, v.user.ID)
		if err != nil {
			return err
		}
		topics, err := tx.UserTopics(v.user.ID)
		if err != nil {
			return err
		}
		state["unread_msgs"] = buildUnread(rows, v.user.ID, subs, topics)
		return nil
	})
}

// buildUnread groups the user's unread messages, newest first and at most
// one beyond the cap, by conversation. Topics are grouped as the
// reference groups them, ignoring case, under the name of their oldest
// message listed; counted are direct messages and those of unmuted
// subscribed channels. Wildcard mentions are listed in mentions only
// outside muted conversations, as the reference lists them: a muted
// channel (unless the topic is unmuted or followed) or a muted topic;
// a personal mention is listed anywhere.
func buildUnread(rows []storage.UnreadMessage, self int64, subs map[int64]storage.Subscription, userTopics []storage.UserTopic) unreadMsgs {
	out := unreadMsgs{PMs: []unreadDirect{}, Streams: []unreadChannelTopic{}, Huddles: []unreadDirect{}, Mentions: []int64{}}
	if len(rows) > maxUnreadMessages {
		rows, out.OldUnreadsMissing = rows[:maxUnreadMessages], true
	}
	type topicKey struct {
		channel int64
		topic   string
	}
	topics := map[topicKey]int{}
	// The key of a topic name, by name: a topic's messages repeat it.
	keys := map[string]string{}
	direct := map[string]int{}
	policies := make(map[topicKey]int, len(userTopics))
	for _, ut := range userTopics {
		policies[topicKey{ut.ChannelID, storage.TopicKey(ut.Topic)}] = ut.VisibilityPolicy
	}
	muted := func(m *storage.UnreadMessage) bool {
		switch policies[topicKey{m.ChannelID, storage.TopicKey(m.Topic)}] {
		case storage.TopicMuted:
			return true
		case storage.TopicUnmuted, storage.TopicFollowed:
			return false
		}
		sub, ok := subs[m.ChannelID]
		return ok && sub.IsMuted
	}
	for k := len(rows) - 1; k >= 0; k-- { // oldest first, so that every list ascends
		m := &rows[k]
		if m.Flags&storage.FlagMentioned != 0 ||
			m.Flags.MentionedAny() && (m.RecipientType != RecipientChannel || !muted(m)) {
			out.Mentions = append(out.Mentions, m.ID)
		}
		if m.RecipientType == RecipientChannel {
			tk, ok := keys[m.Topic]
			if !ok {
				tk = storage.TopicKey(m.Topic)
				keys[m.Topic] = tk
			}
			key := topicKey{m.ChannelID, tk}
			i, ok := topics[key]
			if !ok {
				i = len(out.Streams)
				topics[key] = i
				out.Streams = append(out.Streams, unreadChannelTopic{StreamID: m.ChannelID, Topic: m.Topic})
			}
			out.Streams[i].UnreadMessageIDs = append(out.Streams[i].UnreadMessageIDs, m.ID)
			if sub, ok := subs[m.ChannelID]; ok && !sub.IsMuted {
				out.Count++
			}
			continue
		}
		out.Count++
		key := directKey(m.DirectUserIDs, self)
		i, ok := direct[key]
		if !ok {
			d := unreadDirect{}
			if len(m.DirectUserIDs) > 2 {
				i, d.UserIDsString = len(out.Huddles), key
				out.Huddles = append(out.Huddles, d)
			} else {
				other, _ := strconv.ParseInt(key, 10, 64)
				i, d.OtherUserID, d.SenderID = len(out.PMs), other, other
				out.PMs = append(out.PMs, d)
			}
			direct[key] = i
		}
		if len(m.DirectUserIDs) > 2 {
			out.Huddles[i].UnreadMessageIDs = append(out.Huddles[i].UnreadMessageIDs, m.ID)
		} else {
			out.PMs[i].UnreadMessageIDs = append(out.PMs[i].UnreadMessageIDs, m.ID)
		}
	}
	slices.SortFunc(out.PMs, func(a, b unreadDirect) int { return cmp.Compare(a.OtherUserID, b.OtherUserID) })
	slices.SortFunc(out.Huddles, func(a, b unreadDirect) int { return strings.Compare(a.UserIDsString, b.UserIDsString) })
	slices.SortFunc(out.Streams, func(a, b unreadChannelTopic) int {
		return cmp.Or(cmp.Compare(a.StreamID, b.StreamID), strings.Compare(a.Topic, b.Topic))
	})
	return out
}

// directKey names a direct conversation in unread_msgs: the other
// participant of a one-to-one conversation (the user for a note to self),
// else every participant's ID, sorted, joined by commas.
func directKey(participants []int64, self int64) string {
	if len(participants) <= 2 {
		for _, id := range participants {
			if id != self {
				return strconv.FormatInt(id, 10)
			}
		}
		return strconv.FormatInt(self, 10)
	}
	parts := make([]string, len(participants))
	for i, id := range participants {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

// starredState is the "starred_messages" state block: the IDs of the
// actor's starred messages, in increasing order.
func starredState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: v.realm.ID, UserID: v.user.ID, Starred: true})
		if err != nil {
			return err
		}
		ids := make([]int64, len(rows))
		for i, r := range rows {
			ids[i] = r.Message.ID
		}
		state["starred_messages"] = ids
		return nil
	})
}
