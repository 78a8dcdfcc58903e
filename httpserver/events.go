package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

func (s *Server) eventRoutes() {
	s.handle("/register", map[string]endpoint{
		http.MethodPost: {chat.OpRegister, s.register},
	})
	s.handle("/events", map[string]endpoint{
		http.MethodGet:    {chat.OpGetEvents, s.getEvents},
		http.MethodDelete: {chat.OpDeleteQueue, s.deleteQueue},
	})
	s.handle("/typing", map[string]endpoint{
		http.MethodPost: {chat.OpSetTyping, s.setTyping},
	})
}

// POST /register
func (s *Server) register(c *call) (fields, error) {
	req := chat.RegisterRequest{
		ClientGravatar: c.p.Bool("client_gravatar", true),
		ApplyMarkdown:  c.p.Bool("apply_markdown", false),
	}
	c.p.BoolObject("client_capabilities", &req.ClientCapabilities)
	req.EventTypes = c.p.StringList("event_types")
	req.FetchEventTypes = c.p.StringList("fetch_event_types")
	for _, pair := range c.p.PairList("narrow") {
		req.Narrow = append(req.Narrow, chat.NarrowTerm{Operator: pair[0], Operand: pair[1]})
	}
	lifespan, _ := c.p.Int("queue_lifespan_secs")
	req.SlimPresence = c.p.Bool("slim_presence", false)
	if days, ok := c.p.Int("presence_history_limit_days"); ok {
		d := int(days)
		req.PresenceHistoryLimitDays = &d
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	req.QueueLifespan = chat.QueueLifespanSeconds(lifespan)
	state, err := s.svc.Register(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"", inline{map[string]any(state)}}}, nil
}

// GET /events. Like the reference server, missing parameters here are plain
// BAD_REQUEST errors without var_name.
func (s *Server) getEvents(c *call) (fields, error) {
	queueID, ok := c.p.String("queue_id")
	if !ok && c.p.Err() == nil {
		return nil, errorf("Missing 'queue_id' argument")
	}
	if _, ok := c.p.peek("last_event_id"); !ok && c.p.Err() == nil {
		return nil, errorf("Missing 'last_event_id' argument")
	}
	lastEventID, _ := c.p.Int("last_event_id")
	dontBlock := c.p.Bool("dont_block", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	events, err := s.svc.GetEvents(c.ctx, c.actor, queueID, lastEventID, dontBlock)
	if err != nil {
		return nil, err
	}
	return fields{{"events", events}, {"queue_id", queueID}}, nil
}

// DELETE /events
func (s *Server) deleteQueue(c *call) (fields, error) {
	queueID := c.p.RequiredString("queue_id")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteQueue(c.ctx, c.actor, queueID)
}

// POST /typing
func (s *Server) setTyping(c *call) (fields, error) {
	req := chat.TypingRequest{}
	req.Type, _ = c.p.String("type")
	req.Op = c.p.RequiredString("op")
	if req.Type == "stream" || req.Type == "channel" {
		req.StreamID = c.p.OptInt("stream_id")
		req.Topic = c.p.OptString("topic")
	} else {
		req.To = c.p.IntList("to")
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.SetTyping(c.ctx, c.actor, req)
}
