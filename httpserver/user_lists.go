package httpserver

import (
	"context"
	"net/http"

	"github.com/teamchat/chat"
)

// userListRoutes registers the routes of a user's alert words and muted
// users.
func (s *Server) userListRoutes() {
	s.handle("/users/me/alert_words", map[string]endpoint{
		http.MethodGet:    {chat.OpAlertWords, s.getAlertWords},
		http.MethodPost:   {chat.OpAlertWords, s.addAlertWords},
		http.MethodDelete: {chat.OpAlertWords, s.removeAlertWords},
	})
	s.handle("/users/me/muted_users/{muted_user_id}", map[string]endpoint{
		http.MethodPost:   {chat.OpMuteUser, s.muteUser},
		http.MethodDelete: {chat.OpMuteUser, s.unmuteUser},
	})
}

// GET /users/me/alert_words
func (s *Server) getAlertWords(c *call) (fields, error) {
	words, err := s.svc.AlertWords(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"alert_words", words}}, nil
}

// POST /users/me/alert_words
func (s *Server) addAlertWords(c *call) (fields, error) {
	return s.changeAlertWords(c, s.svc.AddAlertWords)
}

// DELETE /users/me/alert_words
func (s *Server) removeAlertWords(c *call) (fields, error) {
	return s.changeAlertWords(c, s.svc.RemoveAlertWords)
}

func (s *Server) changeAlertWords(c *call, change func(context.Context, chat.Actor, []string) ([]string, error)) (fields, error) {
	if _, ok := c.p.peek("alert_words"); !ok {
		return nil, chat.MissingArgument("alert_words")
	}
	words := c.p.StringList("alert_words")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	out, err := change(c.ctx, c.actor, words)
	if err != nil {
		return nil, err
	}
	return fields{{"alert_words", out}}, nil
}

// POST /users/me/muted_users/{muted_user_id}
func (s *Server) muteUser(c *call) (fields, error) {
	id, err := pathID(c.r, "muted_user_id", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.MuteUser(c.ctx, c.actor, id)
}

// DELETE /users/me/muted_users/{muted_user_id}
func (s *Server) unmuteUser(c *call) (fields, error) {
	id, err := pathID(c.r, "muted_user_id", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.UnmuteUser(c.ctx, c.actor, id)
}
