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
// old_unreads_missing is true.
const maxUnreadMessages = 50_000

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
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: v.realm.ID, UserID: v.user.ID, Unread: true,
			Descending: true, Limit: maxUnreadMessages + 1, WithoutContent: true})
		if err != nil {
			return err
		}
		out := unreadMsgs{PMs: []unreadDirect{}, Streams: []unreadChannelTopic{}, Huddles: []unreadDirect{}, Mentions: []int64{}}
		if len(rows) > maxUnreadMessages {
			rows, out.OldUnreadsMissing = rows[:maxUnreadMessages], true
		}
		slices.Reverse(rows)
		subs, err := subscribedSet(tx, v.user.ID)
		if err != nil {
			return err
		}
		type topicKey struct {
			channel int64
			topic   string
		}
		topics := map[topicKey]int{}
		direct := map[string]int{}
		for _, r := range rows {
			m := &r.Message
			if r.Flags.MentionedAny() {
				out.Mentions = append(out.Mentions, m.ID)
			}
			if m.RecipientType == RecipientChannel {
				key := topicKey{m.ChannelID, storage.TopicKey(m.Topic)}
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
			key := directKey(m.DirectUserIDs, v.user.ID)
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
		state["unread_msgs"] = out
		return nil
	})
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
