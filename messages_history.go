package chat

import (
	"context"

	"github.com/teamchat/chat/storage"
)

// MessageHistoryEntry is one state of a message in its edit history (GET
// /messages/{id}/history): the first is the message as sent, each next
// one the message after an edit or move, with what that change replaced.
type MessageHistoryEntry struct {
	Topic           string `json:"topic"`
	Content         string `json:"content"`
	RenderedContent string `json:"rendered_content"`
	Timestamp       int64  `json:"timestamp"`
	// UserID is the sender for the first state, then who made the change.
	UserID              int64   `json:"user_id"`
	PrevContent         *string `json:"prev_content,omitempty"`
	PrevRenderedContent *string `json:"prev_rendered_content,omitempty"`
	PrevTopic           *string `json:"prev_topic,omitempty"`
	PrevStream          *int64  `json:"prev_stream,omitempty"`
	Stream              *int64  `json:"stream,omitempty"`
}

// ErrEditHistoryDisabled answers requests for edit history in an
// organization whose policy shows none.
var ErrEditHistoryDisabled = errorf("Message edit history is disabled in this organization")

// MessageHistory returns the edit history of a message the actor can read,
// oldest state first; a message never edited has one state. Any user may
// ask, as the organization's message_edit_history_visibility_policy
// allows: every change ("all"), only moves ("moves", without the previous
// contents), or none.
//
// Errors: ErrEditHistoryDisabled, ErrInvalidMessage, and those of the
// actor check.
func (s *Service) MessageHistory(ctx context.Context, actor Actor, id int64) ([]MessageHistoryEntry, error) {
	var out []MessageHistoryEntry
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContextFor(tx, actor, OpMessageHistory)
		if err != nil {
			return err
		}
		policy := cc.realm.MessageEditHistoryVisibilityPolicy
		if policy == EditHistoryNone {
			return ErrEditHistoryDisabled
		}
		m, _, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		edits, err := tx.MessageEdits([]int64{m.ID})
		if err != nil {
			return err
		}
		out = messageHistory(&m, edits)
		if policy == EditHistoryMoves {
			out = movesOnly(out)
		}
		return nil
	})
	return out, err
}

// messageHistory rebuilds the states of m from its current one, undoing
// its edits from the newest.
func messageHistory(m *storage.MessageRecord, edits []storage.MessageEditRecord) []MessageHistoryEntry {
	out := make([]MessageHistoryEntry, len(edits)+1)
	state := MessageHistoryEntry{Topic: m.Topic, Content: m.Content, RenderedContent: m.RenderedContent}
	channel := m.ChannelID
	for i := len(edits); i >= 1; i-- {
		e := &edits[i-1]
		entry := state
		entry.Timestamp, entry.UserID = e.Time.Unix(), e.UserID
		entry.PrevContent, entry.PrevRenderedContent, entry.PrevTopic = e.PrevContent, e.PrevRenderedContent, e.PrevTopic
		if e.PrevChannelID != 0 {
			prev, now := e.PrevChannelID, channel
			entry.PrevStream, entry.Stream = &prev, &now
			channel = e.PrevChannelID
		}
		out[i] = entry
		if e.PrevContent != nil {
			state.Content, state.RenderedContent = *e.PrevContent, *e.PrevRenderedContent
		}
		if e.PrevTopic != nil {
			state.Topic = *e.PrevTopic
		}
	}
	state.Timestamp, state.UserID = m.DateSent.Unix(), m.SenderID
	out[0] = state
	return out
}

// movesOnly keeps the first state and the moves of a history, without the
// contents that the moves' states replaced.
func movesOnly(states []MessageHistoryEntry) []MessageHistoryEntry {
	out := states[:1]
	for _, st := range states[1:] {
		if st.PrevTopic == nil && st.PrevStream == nil {
			continue
		}
		st.PrevContent, st.PrevRenderedContent = nil, nil
		out = append(out, st)
	}
	return out
}
