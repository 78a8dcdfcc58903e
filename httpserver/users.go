package httpserver

import (
	"strings"

	"github.com/teamchat/chat"
)

// userQuery reads the options shared by the user-reading routes.
func userQuery(p *params) chat.UserQuery {
	return chat.UserQuery{
		ClientGravatar:             p.Bool("client_gravatar", true),
		IncludeCustomProfileFields: p.Bool("include_custom_profile_fields", false),
	}
}

// GET /users
func (s *Server) getUsers(c *call) (fields, error) {
	q := userQuery(c.p)
	q.UserIDs = c.p.IntList("user_ids")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	users, err := s.svc.Users(c.ctx, c.actor, q)
	if err != nil {
		return nil, err
	}
	return fields{{"members", users}}, nil
}

// GET /users/{user_id} and GET /users/{email}: a segment of digits only is
// a user ID, anything else an email address.
func (s *Server) getUser(c *call) (fields, error) {
	q := userQuery(c.p)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	segment := c.r.PathValue("user")
	var (
		u   chat.User
		err error
	)
	if allDigits(segment) {
		var id int64
		if id, err = pathID(c.r, "user", chat.ErrNoSuchUser); err == nil {
			u, err = s.svc.User(c.ctx, c.actor, id, q)
		}
	} else {
		u, err = s.svc.UserByEmail(c.ctx, c.actor, segment, q)
	}
	if err != nil {
		return nil, err
	}
	return fields{{"user", &u}}, nil
}

// GET /users/me: the user object's fields at the top level.
func (s *Server) getMe(c *call) (fields, error) {
	u, err := s.svc.Me(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"", inline{&u}}}, nil
}

// POST /users
func (s *Server) createUser(c *call) (fields, error) {
	email := c.p.RequiredString("email")
	password := c.p.RequiredString("password")
	fullName := c.p.RequiredString("full_name")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.CreateUser(c.ctx, c.actor, email, password, fullName)
	if err != nil {
		return nil, err
	}
	return fields{{"user_id", id}}, nil
}

// DELETE /users/{user_id}
func (s *Server) deactivateUser(c *call) (fields, error) {
	id, err := pathID(c.r, "user", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeactivateUser(c.ctx, c.actor, id)
}

// POST /users/{user_id}/reactivate
func (s *Server) reactivateUser(c *call) (fields, error) {
	id, err := pathID(c.r, "user_id", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.ReactivateUser(c.ctx, c.actor, id)
}

// POST /fetch_api_key
func (s *Server) fetchAPIKey(c *call) (fields, error) {
	username := c.p.RequiredString("username")
	password := c.p.RequiredString("password")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	// Attempts are counted per username, so that one account's password
	// cannot be guessed from many addresses; a success clears the count.
	attempts := strings.ToLower(strings.TrimSpace(username))
	if err := charge(s.limits.login, attempts, c.w); err != nil {
		return nil, err
	}
	res, err := s.svc.FetchAPIKey(c.ctx, c.r.Host, username, password)
	if err != nil {
		return nil, err
	}
	if s.limits.login != nil {
		s.limits.login.clear(attempts)
	}
	return fields{{"api_key", res.APIKey}, {"email", res.Email}, {"user_id", res.UserID}}, nil
}

// GET /server_settings
func (s *Server) serverSettings(c *call) (fields, error) {
	settings, err := s.svc.ServerSettings(c.ctx, c.r.Host)
	if err != nil {
		return nil, err
	}
	return fields{{"", inline{settings}}}, nil
}
