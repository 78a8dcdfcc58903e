package httpserver

import (
	"net/http"
	"strings"

	"github.com/teamchat/chat"
)

// messageRoutes registers sending, reading, editing and deleting messages,
// reactions, reports and edit typing.
func (s *Server) messageRoutes() {
	s.handle("/messages", map[string]endpoint{
		http.MethodGet:  {chat.OpGetMessages, s.getMessages},
		http.MethodPost: {chat.OpSendMessage, s.sendMessage},
	})
	s.handle("/messages/flags", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateMessageFlags, s.updateMessageFlags},
	})
	s.handle("/messages/flags/narrow", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateMessageFlagsForNarrow, s.updateMessageFlagsForNarrow},
	})
	s.handle("/mark_all_as_read", map[string]endpoint{
		http.MethodPost: {chat.OpMarkAllAsRead, s.markAllAsRead},
	})
	s.handle("/mark_stream_as_read", map[string]endpoint{
		http.MethodPost: {chat.OpMarkChannelAsRead, s.markStreamAsRead},
	})
	s.handle("/mark_topic_as_read", map[string]endpoint{
		http.MethodPost: {chat.OpMarkTopicAsRead, s.markTopicAsRead},
	})
	s.handle("/messages/render", map[string]endpoint{
		http.MethodPost: {chat.OpRenderMessage, s.renderMessage},
	})
	s.handle("/messages/matches_narrow", map[string]endpoint{
		http.MethodGet: {chat.OpMatchesNarrow, s.matchesNarrow},
	})
	s.handle("/messages/{message_id}", map[string]endpoint{
		http.MethodGet:    {chat.OpGetMessage, s.getMessage},
		http.MethodPatch:  {chat.OpEditMessage, s.editMessage},
		http.MethodDelete: {chat.OpDeleteMessage, s.deleteMessage},
	})
	s.handle("/messages/{message_id}/history", map[string]endpoint{
		http.MethodGet: {chat.OpMessageHistory, s.messageHistory},
	})
	s.handle("/messages/{message_id}/reactions", map[string]endpoint{
		http.MethodPost:   {chat.OpAddReaction, s.addReaction},
		http.MethodDelete: {chat.OpRemoveReaction, s.removeReaction},
	})
	s.handle("/messages/{message_id}/report", map[string]endpoint{
		http.MethodPost: {chat.OpReportMessage, s.reportMessage},
	})
	s.handle("/messages/{message_id}/typing", map[string]endpoint{
		http.MethodPost: {chat.OpEditTyping, s.editTyping},
	})
}

// POST /messages/flags
func (s *Server) updateMessageFlags(c *call) (fields, error) {
	req := chat.MessageFlagsRequest{
		Messages: c.p.RequiredIntList("messages"),
		Op:       c.p.RequiredString("op"),
		Flag:     c.p.RequiredString("flag"),
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	if err := s.svc.UpdateMessageFlags(c.ctx, c.actor, req); err != nil {
		return nil, err
	}
	return fields{{"messages", req.Messages}}, nil
}

// POST /messages/flags/narrow
func (s *Server) updateMessageFlagsForNarrow(c *call) (fields, error) {
	p := c.p
	req := chat.FlagsNarrowRequest{
		Anchor:        p.RequiredString("anchor"),
		IncludeAnchor: p.Bool("include_anchor", true),
		NumBefore:     p.RequiredInt("num_before"),
		NumAfter:      p.RequiredInt("num_after"),
		Narrow:        requiredNarrow(p, "narrow"),
		Op:            p.RequiredString("op"),
		Flag:          p.RequiredString("flag"),
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.UpdateMessageFlagsForNarrow(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"processed_count", res.ProcessedCount}, {"updated_count", res.UpdatedCount},
		{"first_processed_id", res.FirstProcessedID}, {"last_processed_id", res.LastProcessedID},
		{"found_oldest", res.FoundOldest}, {"found_newest", res.FoundNewest}}, nil
}

// POST /mark_all_as_read
func (s *Server) markAllAsRead(c *call) (fields, error) {
	complete, err := s.svc.MarkAllAsRead(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"complete", complete}}, nil
}

// POST /mark_stream_as_read
func (s *Server) markStreamAsRead(c *call) (fields, error) {
	id := c.p.RequiredInt("stream_id")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.MarkChannelAsRead(c.ctx, c.actor, id)
}

// POST /mark_topic_as_read
func (s *Server) markTopicAsRead(c *call) (fields, error) {
	id := c.p.RequiredInt("stream_id")
	topic := c.p.RequiredString("topic_name")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.MarkTopicAsRead(c.ctx, c.actor, id, topic)
}

// clientName is the sending program's name: the User-Agent's product
// token, or "Unspecified" without one, as the reference server names it.
func clientName(r *http.Request) string {
	ua := strings.TrimSpace(r.UserAgent())
	if ua == "" {
		return "Unspecified"
	}
	name, _, _ := strings.Cut(ua, "/")
	name, _, _ = strings.Cut(name, " ")
	return name
}

// pathMessageID reads {message_id}; anything else names no message.
func pathMessageID(c *call) (int64, error) {
	return pathID(c.r, "message_id", chat.ErrInvalidMessage)
}

// narrowParam reads a narrow parameter; nil when absent.
func narrowParam(p *params, name string) []chat.NarrowElement {
	var out []chat.NarrowElement
	p.Decode(name, func(b []byte) (err error) {
		out, err = chat.ParseNarrow(name, b)
		return err
	})
	return out
}

// requiredNarrow reads a narrow parameter that must be present ("[]" for
// every message).
func requiredNarrow(p *params, name string) []chat.NarrowElement {
	if _, ok := p.peek(name); !ok && p.err == nil {
		p.fail(chat.MissingArgument(name))
	}
	return narrowParam(p, name)
}

// POST /messages
func (s *Server) sendMessage(c *call) (fields, error) {
	p := c.p
	req := chat.SendMessageRequest{Client: clientName(c.r)}
	req.Type = p.RequiredString("type")
	if raw, ok := p.String("to"); ok && p.Err() == nil {
		to, err := chat.ParseMessageTo(raw, req.Type == "direct" || req.Type == "private")
		if err != nil {
			p.fail(err)
		}
		req.To = &to
	}
	req.Topic = p.AliasedString("topic", "subject")
	req.Content = p.RequiredString("content")
	req.QueueID, _ = p.String("queue_id")
	req.LocalID, _ = p.String("local_id")
	req.ReadBySender = p.OptBool("read_by_sender")
	if err := p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.SendMessage(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"id", id}}, nil
}

// GET /messages
func (s *Server) getMessages(c *call) (fields, error) {
	p := c.p
	// Read in the order whose first error the reference reports.
	req := chat.GetMessagesRequest{
		Anchor:        p.OptString("anchor"),
		IncludeAnchor: p.OptBool("include_anchor"),
		NumBefore:     p.OptInt("num_before"),
		NumAfter:      p.OptInt("num_after"),
		Narrow:        narrowParam(p, "narrow"),
		Format: chat.MessageFormat{
			ClientGravatar:      p.Bool("client_gravatar", true),
			ApplyMarkdown:       p.Bool("apply_markdown", true),
			AllowEmptyTopicName: p.Bool("allow_empty_topic_name", false),
		},
		MessageIDs: p.IntList("message_ids"),
	}
	req.UseFirstUnreadAnchor = p.OptBool("use_first_unread_anchor")
	if err := p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.GetMessages(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	if req.MessageIDs != nil {
		return fields{{"messages", res.Messages}, {"found_anchor", false}, {"found_oldest", false},
			{"found_newest", false}, {"history_limited", false}}, nil
	}
	return fields{{"messages", res.Messages}, {"anchor", res.Anchor}, {"found_anchor", res.FoundAnchor},
		{"found_oldest", res.FoundOldest}, {"found_newest", res.FoundNewest},
		{"history_limited", res.HistoryLimited}}, nil
}

// GET /messages/matches_narrow
func (s *Server) matchesNarrow(c *call) (fields, error) {
	p := c.p
	if _, ok := p.peek("msg_ids"); !ok {
		p.fail(chat.MissingArgument("msg_ids"))
	}
	ids := p.IntList("msg_ids")
	if _, ok := p.peek("narrow"); !ok {
		p.fail(chat.MissingArgument("narrow"))
	}
	narrow := narrowParam(p, "narrow")
	if err := p.Err(); err != nil {
		return nil, err
	}
	out, err := s.svc.MatchesNarrow(c.ctx, c.actor, ids, narrow)
	if err != nil {
		return nil, err
	}
	return fields{{"messages", out}}, nil
}

// GET /messages/{message_id}. client_gravatar is always true here, as
// with the reference server.
func (s *Server) getMessage(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	f := chat.MessageFormat{ClientGravatar: true, ApplyMarkdown: c.p.Bool("apply_markdown", true),
		AllowEmptyTopicName: c.p.Bool("allow_empty_topic_name", false)}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	m, raw, err := s.svc.GetMessage(c.ctx, c.actor, id, f)
	if err != nil {
		return nil, err
	}
	return fields{{"message", m}, {"raw_content", raw}}, nil
}

// GET /messages/{message_id}/history
func (s *Server) messageHistory(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	h, err := s.svc.MessageHistory(c.ctx, c.actor, id)
	if err != nil {
		return nil, err
	}
	return fields{{"message_history", h}}, nil
}

// POST /messages/render
func (s *Server) renderMessage(c *call) (fields, error) {
	content := c.p.RequiredString("content")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	html, err := s.svc.RenderMessage(c.ctx, c.actor, content)
	if err != nil {
		return nil, err
	}
	return fields{{"rendered", html}}, nil
}

// PATCH /messages/{message_id}: content edits and moves.
func (s *Server) editMessage(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	// The official Python library repeats the path's message_id in the
	// body; it is read, so not reported as ignored.
	c.p.OptInt("message_id")
	edit := chat.MessageEdit{Content: c.p.OptString("content"), Topic: c.p.OptString("topic"),
		StreamID: c.p.OptInt("stream_id"), SendNotificationToOldThread: c.p.OptBool("send_notification_to_old_thread"),
		SendNotificationToNewThread: c.p.OptBool("send_notification_to_new_thread")}
	if mode := c.p.OptString("propagate_mode"); mode != nil {
		edit.PropagateMode = *mode
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.UpdateMessage(c.ctx, c.actor, id, edit)
	if err != nil {
		return nil, err
	}
	return fields{{"detached_uploads", res.DetachedUploads}}, nil
}

// DELETE /messages/{message_id}
func (s *Server) deleteMessage(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteMessage(c.ctx, c.actor, id)
}

// reactionRequest reads emoji_name, emoji_code and reaction_type.
func reactionRequest(p *params, nameRequired bool) chat.ReactionRequest {
	var req chat.ReactionRequest
	if nameRequired {
		req.Name = p.RequiredString("emoji_name")
	} else {
		req.Name, _ = p.String("emoji_name")
	}
	req.Code = p.OptString("emoji_code")
	req.Type = p.OptString("reaction_type")
	return req
}

// POST /messages/{message_id}/reactions
func (s *Server) addReaction(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	req := reactionRequest(c.p, true)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.AddReaction(c.ctx, c.actor, id, req)
}

// DELETE /messages/{message_id}/reactions
func (s *Server) removeReaction(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	req := reactionRequest(c.p, false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.RemoveReaction(c.ctx, c.actor, id, req)
}

// POST /messages/{message_id}/report
func (s *Server) reportMessage(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	typ := c.p.RequiredString("report_type")
	desc, _ := c.p.String("description")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.ReportMessage(c.ctx, c.actor, id, typ, desc)
}

// POST /messages/{message_id}/typing
func (s *Server) editTyping(c *call) (fields, error) {
	id, err := pathMessageID(c)
	if err != nil {
		return nil, err
	}
	op := c.p.RequiredString("op")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.EditTyping(c.ctx, c.actor, id, op)
}
