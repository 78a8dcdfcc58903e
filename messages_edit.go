package chat

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// Edit and deletion texts.
var (
	ErrNothingToChange    = errorf("Nothing to change")
	ErrEditingDisabled    = errorf("Your organization has turned off message editing")
	ErrNoEditPermission   = errorf("You don't have permission to edit this message")
	ErrEditTimeLimit      = errorf("The time limit for editing this message has passed")
	ErrNoDeletePermission = errorf("You don't have permission to delete this message")
	ErrDeleteTimeLimit    = errorf("The time limit for deleting this message has passed")
)

// editGrace is the time after the edit limit during which edits still
// pass, for clients that started editing just in time.
const editGrace = 20 * time.Second

// checkEditable applies the content-edit rules: the organization allows
// editing, the actor sent the message, and the edit limit has not passed.
func (s *Service) checkEditable(cc *channelContext, m *storage.MessageRecord) error {
	if !cc.realm.AllowMessageEditing {
		return ErrEditingDisabled
	}
	if m.SenderID != cc.actor.ID {
		return ErrNoEditPermission
	}
	if limit := cc.realm.MessageContentEditLimitSeconds; limit > 0 &&
		s.now().Sub(m.DateSent) > time.Duration(limit)*time.Second+editGrace {
		return ErrEditTimeLimit
	}
	return nil
}

// EditMessage replaces the content of the actor's message (PATCH
// /messages/{id} with content only); see UpdateMessage.
func (s *Service) EditMessage(ctx context.Context, actor Actor, id int64, content *string) error {
	_, err := s.UpdateMessage(ctx, actor, id, MessageEdit{Content: content})
	return err
}

// MessageUpdate is the answer of UpdateMessage.
type MessageUpdate struct {
	// DetachedUploads are the editor's files that the edit took out of
	// the message and that no message links any more: only their owner
	// can read them now.
	DetachedUploads []AttachmentView `json:"detached_uploads"`
}

// UpdateMessage edits a message (PATCH /messages/{id}) in one
// transaction: its content, replaced by the sender (blank content becomes
// "(deleted)"); its topic, renamed by any user within the organization's
// move_messages_within_stream_limit_seconds of sending (moderators and
// administrators at any time; resolving and unresolving at any time); and
// its channel, changed by members within its
// move_messages_between_streams_limit_seconds (moderators and administrators at any time) to a channel they can read
// and post in. A move takes the message, the later or all the messages
// of its topic (edit.PropagateMode); users who cannot read the new
// channel lose the messages, and the notification bot tells the old topic
// (when asked) and the new one (unless asked not to). The users who read
// the messages get update_message events with their flags. The answer
// lists the editor's files the edit took out of the message that no
// message links any more.
//
// Errors: ErrNothingToChange, ErrInvalidPropagateMode,
// ErrPropagateWithoutMove, ErrInvalidMessage, ErrEditingDisabled,
// ErrNoEditPermission, ErrEditTimeLimit, ErrDirectMessageTopic,
// ErrDirectMessageToChannel, ErrContentWithChannelMove,
// ErrTopicEditTimeLimit, ErrNoMovePermission, ErrChannelMoveTimeLimit,
// ErrInvalidChannelID, ErrNoPostPermission, a
// CodeMoveMessagesTimeLimitExceeded error, ErrEmptyTopicDisallowed,
// ErrOnlyEmptyTopicAllowed, ErrMessageNullBytes, ErrStreamWildcardMention,
// ErrTopicWildcardMention, "You are not allowed to mention user group
// '{name}'." (as for SendMessage), and those of the actor check.
func (s *Service) UpdateMessage(ctx context.Context, actor Actor, id int64, edit MessageEdit) (MessageUpdate, error) {
	out := MessageUpdate{DetachedUploads: []AttachmentView{}}
	if edit.Content == nil && edit.Topic == nil && edit.StreamID == nil {
		return out, ErrNothingToChange
	}
	mode := edit.PropagateMode
	switch mode {
	case "":
		mode = PropagateChangeOne
	case PropagateChangeOne, PropagateChangeLater, PropagateChangeAll:
	default:
		return out, ErrInvalidPropagateMode
	}
	if mode != PropagateChangeOne && edit.Topic == nil && edit.StreamID == nil {
		return out, ErrPropagateWithoutMove
	}
	var pre *preRendered
	if edit.Content != nil {
		var err error
		if pre, err = s.preRender(ctx, actor, *edit.Content); err != nil {
			return out, err
		}
	}
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		m, _, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		// Clients such as the terminal client send the content unchanged
		// with a move: that is no content edit, and needs no sender.
		if edit.Content != nil && (edit.Topic != nil || edit.StreamID != nil) &&
			strings.TrimRight(*edit.Content, " \t\r\n") == strings.TrimRight(m.Content, " \t\r\n") {
			edit.Content = nil
		}
		mv, err := s.planMove(tx, cc, &m, edit, mode)
		if err != nil {
			return err
		}
		// One history record for m, whatever the request changes of it.
		rec := storage.MessageEditRecord{MessageID: m.ID, UserID: cc.actor.ID, Time: s.now()}
		if edit.Content != nil {
			orig := m
			if m, err = s.editContent(tx, emit, cc, m, *edit.Content, pre, &out.DetachedUploads); err != nil {
				return err
			}
			rec.PrevContent, rec.PrevRenderedContent = &orig.Content, &orig.RenderedContent
		}
		edits := []storage.MessageEditRecord{rec}
		if mv != nil {
			moved, err := s.moveMessages(tx, emit, cc, m, mv)
			if err != nil {
				return err
			}
			for _, id := range moved {
				move := mv.record(id, cc.actor.ID, rec.Time)
				if id == m.ID {
					move.PrevContent, move.PrevRenderedContent = rec.PrevContent, rec.PrevRenderedContent
					edits[0] = move
				} else {
					edits = append(edits, move)
				}
			}
		}
		return tx.AddMessageEdits(edits)
	})
	if err != nil {
		return MessageUpdate{}, err
	}
	return out, nil
}

// editContent replaces the content of m after the content-edit checks,
// stores it and emits its update_message event; it returns the message
// as stored. pre is the content's rendering when preRender made one.
func (s *Service) editContent(tx storage.Tx, emit func(Event), cc *channelContext, m storage.MessageRecord, content string,
	pre *preRendered, detached *[]AttachmentView) (storage.MessageRecord, error) {
	if err := s.checkEditable(cc, &m); err != nil {
		return m, err
	}
	text, err := normaliseContent(content)
	if err == ErrEmptyMessage {
		text, err = "(deleted)", nil
	}
	if err != nil {
		return m, err
	}
	// Emoticons as the sender translates them (only the sender edits
	// content; the setting is theirs in the reference too).
	emoticons, err := translatesEmoticons(tx, m.SenderID, text)
	if err != nil {
		return m, err
	}
	r, ok := pre.of(cc.realm.ID, text, emoticons)
	if !ok {
		rc, err := s.newRenderContext(tx, cc.realm.ID, &cc.realm, text, func(c *storage.Channel) bool { return cc.access(c).content(c) }, cc.actor.ID)
		if err != nil {
			return m, err
		}
		rc.env.TranslateEmoticons = emoticons
		if r, err = rc.render(text); err != nil {
			return m, err
		}
	}
	gm := groupMentions{tx: tx, realmID: cc.realm.ID, g: cc.g}
	mentioned, err := gm.mentioned(r, &cc.actor)
	if err != nil {
		return m, err
	}
	orig := m
	m.Content, m.RenderedContent = text, r.HTML
	m.HasLink, m.HasImage, m.HasAttachment = r.HasLink, r.HasImage, r.HasAttachment
	if m.RecipientType == RecipientChannel {
		if err := checkWildcardMentions(tx, &cc.actor, &m, r.StreamWildcard, r.TopicWildcard); err != nil {
			return m, err
		}
	}
	m.EditedAt = s.now()
	if err := tx.UpdateMessage(m); err != nil {
		return m, err
	}
	if err := s.linkAttachments(tx, &cc.actor, m.ID, m.Content); err != nil {
		return m, err
	}
	if *detached, err = detachAttachments(tx, &cc.actor, m.ID, orig.Content, m.Content); err != nil {
		return m, err
	}
	rows, err := tx.MessageRecipients(m.ID)
	if err != nil {
		return m, err
	}
	words, err := tx.RealmAlertWords(m.RealmID)
	if err != nil {
		return m, err
	}
	if rows, err = remention(tx, &m, rows, deliveryRendering{mentioned, r.StreamWildcard, r.TopicWildcard}, newAlertWordsMatcher(words)); err != nil {
		return m, err
	}
	flags := map[int64]storage.MessageFlags{}
	to := []int64{}
	for _, r := range rows {
		if r.Flags != 0 {
			flags[r.UserID] = r.Flags
		}
		to = append(to, r.UserID)
	}
	payload := map[string]any{
		"type": "update_message", "user_id": cc.actor.ID, "edit_timestamp": m.EditedAt.Unix(),
		"message_id": m.ID, "message_ids": []int64{m.ID}, "rendering_only": false,
		"orig_content": orig.Content, "orig_rendered_content": orig.RenderedContent,
		"content": m.Content, "rendered_content": m.RenderedContent, "is_me_message": isMeMessage(m.Content),
	}
	if m.RecipientType == RecipientChannel {
		c, err := tx.Channel(m.ChannelID)
		if err != nil {
			return m, err
		}
		payload["stream_id"], payload["stream_name"] = c.ID, c.Name
	}
	emit(formattedEvent(cc.realm.ID, to, &updateMessageEvent{Payload: payload, Flags: flags}))
	return m, nil
}

// mentionFlags are the flags that a message's content sets: its mentions
// and the recipients' alert words.
const mentionFlags = storage.FlagMentioned | storage.FlagStreamWildcardMentioned | storage.FlagTopicWildcardMentioned |
	storage.FlagHasAlertWord

// remention sets the recipients' mention and alert-word flags of an edited
// message to what its new content holds (the sender is never mentioned by
// their own message), and returns the rows as they are now; the read
// state stays.
func remention(tx storage.Tx, m *storage.MessageRecord, rows []storage.UserMessage, r deliveryRendering,
	words alertWordsMatcher) ([]storage.UserMessage, error) {
	lists := flagSources{alertWords: words}
	folded := words.fold(m.Content)
	for i, row := range rows {
		want := row.Flags &^ mentionFlags
		if row.UserID != m.SenderID {
			want |= deliveryFlags(row.UserID, folded, r, deliverOptions{}, &lists) & mentionFlags
		}
		if want == row.Flags {
			continue
		}
		if _, err := tx.UpdateUserMessageFlags(row.UserID, []int64{m.ID}, want&mentionFlags, mentionFlags&^want); err != nil {
			return nil, err
		}
		rows[i].Flags = want
	}
	return rows, nil
}

// DeleteMessage deletes a message (DELETE /messages/{id}). Members of the
// channel's can_delete_any_message_group (administrators for direct
// messages) may delete any message they can read; senders may delete
// their own while they are in the channel's can_delete_own_message_group
// and the organization's deletion limit has not passed.
//
// Errors: ErrInvalidMessage, ErrNoDeletePermission, ErrDeleteTimeLimit,
// and those of the actor check.
func (s *Service) DeleteMessage(ctx context.Context, actor Actor, id int64) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		m, _, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		var c storage.Channel
		anyAllowed, ownAllowed := cc.actor.Role.IsAdmin(), true
		if m.RecipientType == RecipientChannel {
			if c, err = tx.Channel(m.ChannelID); err != nil {
				return err
			}
			anyAllowed = anyAllowed || cc.g.allows(c.CanDeleteAnyMessageGroup, &cc.actor)
			ownAllowed = cc.g.allows(c.CanDeleteOwnMessageGroup, &cc.actor)
		}
		if !anyAllowed {
			if m.SenderID != cc.actor.ID || !ownAllowed {
				return ErrNoDeletePermission
			}
			if limit := cc.realm.MessageContentDeleteLimitSeconds; limit > 0 &&
				s.now().Sub(m.DateSent) > time.Duration(limit)*time.Second {
				return ErrDeleteTimeLimit
			}
		}
		if m.RecipientType == RecipientChannel {
			return s.deleteChannelMessages(tx, emit, cc, &c, m.Topic, []int64{m.ID})
		}
		to, err := messageAudience(tx, m.ID, cc.actor.ID)
		if err != nil {
			return err
		}
		if err := tx.DeleteMessages([]int64{m.ID}); err != nil {
			return err
		}
		emit(formattedEvent(cc.realm.ID, to, &deleteMessageEvent{MessageIDs: []int64{m.ID}}))
		return nil
	})
}

// updateMessageEvent is an update_message event: each reader gets their
// flags on the message.
type updateMessageEvent struct {
	// Payload is the event without "flags".
	Payload map[string]any
	// Flags are the readers' flags; those who have none are left out.
	Flags map[int64]storage.MessageFlags

	byFlags formCache[storage.MessageFlags]
}

func (e *updateMessageEvent) kind() string            { return "update_message" }
func (e *updateMessageEvent) payload() map[string]any { return e.Payload }

// ForQueue encodes the event with the flags of q's user.
func (e *updateMessageEvent) ForQueue(q QueueInfo) []json.RawMessage {
	flags := e.Flags[q.UserID]
	return e.byFlags.get(flags, func() []json.RawMessage {
		p := make(map[string]any, len(e.Payload)+1)
		maps.Copy(p, e.Payload)
		p["flags"] = flags.Names()
		return []json.RawMessage{encodeJSON(p)}
	})
}

// updateMessageEventJSON is the JSON form of an updateMessageEvent. The
// payload is kept raw until decodePayload reads it.
type updateMessageEventJSON struct {
	Payload json.RawMessage                `json:"payload"`
	Flags   map[int64]storage.MessageFlags `json:"flags"`
}

// MarshalJSON writes the event as updateMessageEventJSON.
func (e *updateMessageEvent) MarshalJSON() ([]byte, error) {
	p, err := marshalJSON(e.Payload)
	if err != nil {
		return nil, err
	}
	return marshalJSON(updateMessageEventJSON{Payload: p, Flags: e.Flags})
}

// UnmarshalJSON reads an event written by MarshalJSON, its payload as
// Event.UnmarshalJSON reads one.
func (e *updateMessageEvent) UnmarshalJSON(b []byte) error {
	var w updateMessageEventJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p, err := decodePayload(w.Payload)
	if err != nil {
		return err
	}
	e.Payload, e.Flags = p, w.Flags
	return nil
}

// deleteMessageEvent is a delete_message event: queues without the
// bulk_message_deletion capability get one event per message, with
// message_id; an empty topic is named for queues without
// empty_topic_name.
type deleteMessageEvent struct {
	MessageIDs []int64 `json:"message_ids"`
	// StreamID and Topic name the channel topic of channel messages;
	// StreamID is 0 for direct messages.
	StreamID int64  `json:"stream_id,omitempty"`
	Topic    string `json:"topic,omitempty"`

	// byForm holds the forms by [bulk_message_deletion, empty topic
	// named].
	byForm formCache[[2]bool]
}

func (e *deleteMessageEvent) kind() string { return "delete_message" }

func (e *deleteMessageEvent) payload() map[string]any {
	p := map[string]any{"type": "delete_message", "message_ids": e.MessageIDs, "message_type": "private"}
	if e.StreamID != 0 {
		p["message_type"], p["stream_id"], p["topic"] = "stream", e.StreamID, e.Topic
	}
	return p
}

// ForQueue encodes the event for q's capabilities.
func (e *deleteMessageEvent) ForQueue(q QueueInfo) []json.RawMessage {
	topic := topicForQueue(q, e.Topic)
	renamed := e.StreamID != 0 && topic != e.Topic
	return e.byForm.get([2]bool{q.BulkMessageDeletion, renamed}, func() []json.RawMessage {
		p := e.payload()
		if renamed {
			p["topic"] = topic
		}
		if q.BulkMessageDeletion {
			return []json.RawMessage{encodeJSON(p)}
		}
		delete(p, "message_ids")
		out := make([]json.RawMessage, len(e.MessageIDs))
		for i, id := range e.MessageIDs {
			p["message_id"] = id
			out[i] = encodeJSON(p)
		}
		return out
	})
}

// EditTyping tells the users who see a message that the actor started or
// stopped editing it (POST /messages/{id}/typing). A channel message's
// active subscribers are told, unless the channel has more than 100; a
// direct message's active participants, the actor included.
//
// Errors: ErrInvalidTypingOp, ErrInvalidMessage, ErrEditingDisabled,
// ErrNoEditPermission, ErrEditTimeLimit, and those of the actor check.
func (s *Service) EditTyping(ctx context.Context, actor Actor, id int64, op string) error {
	if op != "start" && op != "stop" {
		return ErrInvalidTypingOp
	}
	var events []Event
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		m, _, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		if err := s.checkEditable(cc, &m); err != nil {
			return err
		}
		payload := map[string]any{"type": "typing_edit_message", "op": op, "sender_id": cc.actor.ID, "message_id": m.ID}
		var candidates []int64
		if m.RecipientType == RecipientChannel {
			subs, err := tx.ChannelSubscriptions([]int64{m.ChannelID})
			if err != nil {
				return err
			}
			candidates = subscriberIDs(subs)[m.ChannelID]
			payload["recipient"] = map[string]any{"type": "channel", "channel_id": m.ChannelID, "topic": m.Topic}
		} else {
			candidates = m.DirectUserIDs
			payload["recipient"] = map[string]any{"type": "direct", "user_ids": m.DirectUserIDs}
		}
		to, err := activeAmong(tx, cc.realm.ID, candidates)
		if err != nil {
			return err
		}
		if m.RecipientType == RecipientChannel && len(to) > maxTypingSubscribers {
			return nil
		}
		events = append(events, Event{RealmID: cc.realm.ID, UserIDs: to, Payload: payload})
		return nil
	})
	if err == nil && len(events) > 0 {
		s.cfg.Events.Publish(ctx, events)
	}
	return err
}

// maxTypingSubscribers is the largest channel whose subscribers get typing
// notifications.
const maxTypingSubscribers = 100

// activeAmong returns the active users among ids, sorted.
func activeAmong(tx storage.Tx, realmID int64, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return []int64{}, nil
	}
	users, err := tx.Users(realmID, ids)
	if err != nil {
		return nil, err
	}
	out := []int64{}
	for i := range users {
		if users[i].IsActive {
			out = append(out, users[i].ID)
		}
	}
	return out, nil
}
