package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

// botStorageRoutes registers the bot storage.
func (s *Server) botStorageRoutes() {
	s.handle("/bot_storage", map[string]endpoint{
		http.MethodGet:    {chat.OpBotStorage, s.getBotStorage},
		http.MethodPut:    {chat.OpSetBotStorage, s.putBotStorage},
		http.MethodDelete: {chat.OpDeleteBotStorage, s.deleteBotStorage},
	})
}

// GET /bot_storage
func (s *Server) getBotStorage(c *call) (fields, error) {
	keys := c.p.StringList("keys")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	stored, err := s.svc.BotStorage(c.ctx, c.actor, keys)
	if err != nil {
		return nil, err
	}
	return fields{{"storage", stored}}, nil
}

// PUT /bot_storage
func (s *Server) putBotStorage(c *call) (fields, error) {
	entries := c.p.RequiredStringObject("storage")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.SetBotStorage(c.ctx, c.actor, entries)
}

// DELETE /bot_storage
func (s *Server) deleteBotStorage(c *call) (fields, error) {
	keys := c.p.StringList("keys")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteBotStorage(c.ctx, c.actor, keys)
}
