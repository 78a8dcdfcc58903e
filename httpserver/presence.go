package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

// presenceRoutes registers reporting and reading presence.
func (s *Server) presenceRoutes() {
	s.handle("/users/me/presence", map[string]endpoint{
		http.MethodPost: {chat.OpUpdatePresence, s.updatePresence},
	})
	s.handle("/realm/presence", map[string]endpoint{
		http.MethodGet: {chat.OpRealmPresence, s.getRealmPresence},
	})
	s.handle("/users/{user}/presence", map[string]endpoint{
		http.MethodGet: {chat.OpUserPresence, s.getUserPresence},
	})
}

// POST /users/me/presence
func (s *Server) updatePresence(c *call) (fields, error) {
	req := chat.PresenceUpdate{
		Status:       c.p.RequiredString("status"),
		PingOnly:     c.p.Bool("ping_only", false),
		SlimPresence: c.p.Bool("slim_presence", false),
		LastUpdateID: c.p.OptInt("last_update_id"),
	}
	c.p.Bool("new_user_input", false) // read, so not reported as ignored
	if days, ok := c.p.Int("history_limit_days"); ok {
		d := int(days)
		req.HistoryLimitDays = &d
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	st, err := s.svc.UpdatePresence(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, nil
	}
	return fields{{"presences", st.Presences}, {"presence_last_update_id", st.PresenceLastUpdateID},
		{"server_timestamp", st.ServerTimestamp}, {"zephyr_mirror_active", false}}, nil
}

// GET /realm/presence
func (s *Server) getRealmPresence(c *call) (fields, error) {
	st, err := s.svc.RealmPresence(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"presences", st.Presences}, {"server_timestamp", st.ServerTimestamp}}, nil
}

// GET /users/{user_id_or_email}/presence
func (s *Server) getUserPresence(c *call) (fields, error) {
	segment := c.r.PathValue("user")
	var (
		p   map[string]any
		err error
	)
	if allDigits(segment) {
		var id int64
		if id, err = pathID(c.r, "user", chat.ErrNoSuchUser); err == nil {
			p, err = s.svc.UserPresence(c.ctx, c.actor, id, "")
		}
	} else {
		p, err = s.svc.UserPresence(c.ctx, c.actor, 0, segment)
	}
	if err != nil {
		return nil, err
	}
	return fields{{"presence", p}}, nil
}
