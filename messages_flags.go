package chat

import (
	"context"
	"slices"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// Personal message flags: what a user marks on the messages they read.

// editableFlags are the flags a user sets and clears through the API; the
// others are the server's, from the message's content or how the user
// came by it.
var editableFlags = map[string]storage.MessageFlags{
	"read": storage.FlagRead, "starred": storage.FlagStarred, "collapsed": storage.FlagCollapsed,
}

// knownFlags are the flags the reference server names, editable or not;
// a name outside them is an invalid flag rather than a read-only one.
var knownFlags = []string{"read", "starred", "collapsed", "mentioned", "stream_wildcard_mentioned",
	"topic_wildcard_mentioned", "group_mentioned", "has_alert_word", "historical"}

// MessageFlagsRequest changes one flag of the actor's messages.
type MessageFlagsRequest struct {
	// Op is "add" or "remove".
	Op string
	// Flag is "read", "starred" or "collapsed".
	Flag string
	// Messages are the IDs of the messages.
	Messages []int64
}

// UpdateMessageFlags adds or removes a flag on messages the actor may
// read. A message the actor did not receive but may read (a channel's
// public history) gets a row of its own, marked historical and read, as
// the reference server makes; marking a channel's messages unread skips
// those of channels the actor is not subscribed to, which keeps every
// unread channel message in a subscribed channel. The actor's queues get
// an update_message_flags event naming the messages, with the details of
// each message made unread. Any user may call it.
//
// Errors, in the order they are checked: "Invalid flag: '{flag}'", "Flag
// not editable: '{flag}'", "Invalid message flag operation: '{op}'",
// ErrInvalidMessage for a message the actor may not read; those of the
// actor check.
func (s *Service) UpdateMessageFlags(ctx context.Context, actor Actor, req MessageFlagsRequest) error {
	if _, err := checkFlagRequest(req); err != nil {
		return err
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContextFor(tx, actor, OpUpdateMessageFlags)
		if err != nil {
			return err
		}
		_, err = applyFlag(tx, cc, req, emit)
		return err
	})
}

// checkFlagRequest checks a flag request's flag and operation, in the
// order the reference reports them, and returns the flag's bit.
func checkFlagRequest(req MessageFlagsRequest) (storage.MessageFlags, error) {
	flag, editable := editableFlags[req.Flag]
	switch {
	case !slices.Contains(knownFlags, req.Flag):
		return 0, errorf("Invalid flag: '%s'", req.Flag)
	case !editable:
		return 0, errorf("Flag not editable: '%s'", req.Flag)
	case req.Op != "add" && req.Op != "remove":
		return 0, errorf("Invalid message flag operation: '%s'", req.Op)
	}
	return flag, nil
}

// applyFlag changes a checked flag request's flag on the actor's messages
// and emits its event; it returns how many messages' flag changed.
func applyFlag(tx storage.Tx, cc *channelContext, req MessageFlagsRequest, emit func(Event)) (int, error) {
	flag := editableFlags[req.Flag]
	adding := req.Op == "add"
	ids := uniqueIDs(req.Messages)
	var historical []storage.UserMessage
	var unread []storage.MessageRow
	kept := ids[:0:0]
	for _, id := range ids {
		m, flags, err := readableMessage(tx, cc, id)
		if err != nil {
			return 0, err
		}
		if flag == storage.FlagRead && !adding {
			if _, sub := cc.subs[m.ChannelID]; m.RecipientType == RecipientChannel && !sub {
				continue
			}
			unread = append(unread, storage.MessageRow{Message: m, Flags: flags})
		}
		kept = append(kept, id)
		if flags&storage.FlagHistorical != 0 {
			historical = append(historical, storage.UserMessage{UserID: cc.actor.ID, MessageID: id,
				Flags: storage.FlagRead | storage.FlagHistorical})
		}
	}
	if err := tx.CreateUserMessages(historical); err != nil {
		return 0, err
	}
	set, clear := flag, storage.MessageFlags(0)
	if !adding {
		set, clear = 0, flag
	}
	changed, err := tx.UpdateUserMessageFlags(cc.actor.ID, kept, set, clear)
	if err != nil {
		return 0, err
	}
	event := map[string]any{"type": "update_message_flags", "op": req.Op, "operation": req.Op,
		"flag": req.Flag, "messages": kept, "all": false}
	if flag == storage.FlagRead && !adding {
		event["message_details"] = unreadDetails(cc, unread)
	}
	emit(Event{RealmID: cc.realm.ID, UserIDs: []int64{cc.actor.ID}, Payload: event})
	return len(changed), nil
}

// unreadDetails describes messages made unread, with the actor's flags as
// read before the change, as clients need them to update their unread
// counts, keyed by message ID.
func unreadDetails(cc *channelContext, rows []storage.MessageRow) map[string]any {
	out := make(map[string]any, len(rows))
	for _, r := range rows {
		m := &r.Message
		d := map[string]any{"mentioned": r.Flags.MentionedAny()}
		if m.RecipientType == RecipientChannel {
			d["type"], d["stream_id"], d["topic"] = "stream", m.ChannelID, m.Topic
			d["unmuted_stream_msg"] = !cc.subs[m.ChannelID].IsMuted
		} else {
			others := slices.DeleteFunc(slices.Clone(m.DirectUserIDs), func(id int64) bool { return id == cc.actor.ID })
			d["type"], d["user_ids"] = "private", others
		}
		out[strconv.FormatInt(m.ID, 10)] = d
	}
	return out
}
