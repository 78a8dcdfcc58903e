package httpserver

import (
	"encoding/json"
	"net/http"

	"github.com/teamchat/chat"
)

// botRoutes registers the routes that manage bots.
func (s *Server) botRoutes() {
	s.handle("/bots", map[string]endpoint{
		http.MethodGet:  {chat.OpBots, s.getBots},
		http.MethodPost: {chat.OpCreateBot, s.createBot},
	})
	s.handle("/bots/{bot_id}", map[string]endpoint{
		http.MethodPatch:  {chat.OpUpdateBot, s.updateBot},
		http.MethodDelete: {chat.OpUpdateBot, s.deactivateBot},
	})
	s.handle("/bots/{bot_id}/api_key/regenerate", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateBot, s.regenerateBotAPIKey},
	})
}

// POST /bots
func (s *Server) createBot(c *call) (fields, error) {
	p := c.p
	req := chat.NewBot{FullName: p.RequiredString("full_name"), ShortName: p.RequiredString("short_name")}
	if u := p.OptString("payload_url"); u != nil {
		// The reference sends the URL JSON-encoded; a bare one is read too.
		if err := json.Unmarshal([]byte(*u), &req.PayloadURL); err != nil {
			req.PayloadURL = *u
		}
	}
	if t, ok := p.Int("interface_type"); ok {
		req.InterfaceType = int(t)
	}
	if t, ok := p.Int("bot_type"); ok {
		req.BotType = chat.BotType(t)
		if req.BotType == chat.BotNone {
			return nil, chat.ErrInvalidBotType
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	bot, err := s.svc.CreateBot(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"user_id", bot.UserID}, {"api_key", bot.APIKey}, {"avatar_url", bot.AvatarURL},
		{"default_sending_stream", bot.DefaultSendingStream}, {"default_events_register_stream", bot.DefaultEventsRegisterStream},
		{"default_all_public_streams", bot.DefaultAllPublicStreams}}, nil
}

// GET /bots
func (s *Server) getBots(c *call) (fields, error) {
	bots, err := s.svc.Bots(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"bots", bots}}, nil
}

func botID(c *call) (int64, error) {
	return pathID(c.r, "bot_id", chat.ErrNoSuchBot)
}

// PATCH /bots/{bot_id}
func (s *Server) updateBot(c *call) (fields, error) {
	id, err := botID(c)
	if err != nil {
		return nil, err
	}
	req := chat.BotUpdate{FullName: c.p.OptString("full_name"), OwnerID: c.p.OptInt("bot_owner_id")}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	bot, err := s.svc.UpdateBot(c.ctx, c.actor, id, req)
	if err != nil {
		return nil, err
	}
	return fields{{"full_name", bot.FullName}, {"avatar_url", bot.AvatarURL},
		{"default_sending_stream", bot.DefaultSendingStream}, {"default_events_register_stream", bot.DefaultEventsRegisterStream},
		{"default_all_public_streams", bot.DefaultAllPublicStreams}}, nil
}

// DELETE /bots/{bot_id}
func (s *Server) deactivateBot(c *call) (fields, error) {
	id, err := botID(c)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeactivateBot(c.ctx, c.actor, id)
}

// POST /bots/{bot_id}/api_key/regenerate
func (s *Server) regenerateBotAPIKey(c *call) (fields, error) {
	id, err := botID(c)
	if err != nil {
		return nil, err
	}
	key, err := s.svc.RegenerateBotAPIKey(c.ctx, c.actor, id)
	if err != nil {
		return nil, err
	}
	return fields{{"api_key", key}}, nil
}
