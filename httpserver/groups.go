package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

// userGroupRoutes registers the routes that manage user groups.
func (s *Server) userGroupRoutes() {
	s.handle("/user_groups/create", map[string]endpoint{
		http.MethodPost: {chat.OpCreateUserGroup, s.createUserGroup},
	})
	s.handle("/user_groups/{user_group_id}", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateUserGroup, s.updateUserGroup},
	})
	s.handle("/user_groups/{user_group_id}/deactivate", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateUserGroup, s.deactivateUserGroup},
	})
	s.handle("/user_groups/{user_group_id}/members", map[string]endpoint{
		http.MethodGet:  {chat.OpUserGroups, s.getUserGroupMembers},
		http.MethodPost: {chat.OpUpdateUserGroup, s.updateUserGroupMembers},
	})
	s.handle("/user_groups/{user_group_id}/members/{user_id}", map[string]endpoint{
		http.MethodGet: {chat.OpUserGroups, s.isUserGroupMember},
	})
	s.handle("/user_groups/{user_group_id}/subgroups", map[string]endpoint{
		http.MethodGet:  {chat.OpUserGroups, s.getUserGroupSubgroups},
		http.MethodPost: {chat.OpUpdateUserGroup, s.updateUserGroupSubgroups},
	})
}

func userGroupID(c *call) (int64, error) {
	return pathID(c.r, "user_group_id", chat.ErrInvalidUserGroup)
}

// POST /user_groups/create
func (s *Server) createUserGroup(c *call) (fields, error) {
	p := c.p
	req := chat.NewUserGroup{Name: p.RequiredString("name"), Members: p.IntList("members"),
		Subgroups: p.IntList("subgroups")}
	if d := p.OptString("description"); d != nil {
		req.Description = *d
	}
	for _, name := range chat.UserGroupSettingNames() {
		p.Decode(name, func(b []byte) error {
			v, err := chat.ParseGroupSetting(name, b)
			if err == nil {
				if req.Settings == nil {
					req.Settings = map[string]chat.GroupSetting{}
				}
				req.Settings[name] = v
			}
			return err
		})
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.CreateUserGroup(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"group_id", id}}, nil
}

// PATCH /user_groups/{user_group_id}
func (s *Server) updateUserGroup(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	p := c.p
	req := chat.UserGroupUpdate{Name: p.OptString("name"), Description: p.OptString("description")}
	for _, name := range chat.UserGroupSettingNames() {
		p.Decode(name, func(b []byte) error {
			var u chat.GroupSettingUpdate
			if u.UnmarshalJSON(b) != nil {
				return errorf("Invalid %s", name)
			}
			if req.Settings == nil {
				req.Settings = map[string]chat.GroupSettingUpdate{}
			}
			req.Settings[name] = u
			return nil
		})
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateUserGroup(c.ctx, c.actor, id, req)
}

// POST /user_groups/{user_group_id}/deactivate
func (s *Server) deactivateUserGroup(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeactivateUserGroup(c.ctx, c.actor, id)
}

// addDelete reads the add and delete lists of a membership change.
func addDelete(c *call, add, del string) ([]int64, []int64, error) {
	a, d := c.p.IntList(add), c.p.IntList(del)
	if err := c.p.Err(); err != nil {
		return nil, nil, err
	}
	if len(a) == 0 && len(d) == 0 {
		return nil, nil, errorf("Nothing to do. Specify at least one of \"%s\" or \"%s\".", add, del)
	}
	return a, d, nil
}

// POST /user_groups/{user_group_id}/members
func (s *Server) updateUserGroupMembers(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	add, del, err := addDelete(c, "add", "delete")
	if err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateUserGroupMembers(c.ctx, c.actor, id, add, del)
}

// POST /user_groups/{user_group_id}/subgroups
func (s *Server) updateUserGroupSubgroups(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	add, del, err := addDelete(c, "add", "delete")
	if err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateUserGroupSubgroups(c.ctx, c.actor, id, add, del)
}

// GET /user_groups/{user_group_id}/members
func (s *Server) getUserGroupMembers(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	direct := c.p.Bool("direct_member_only", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	members, err := s.svc.UserGroupMembers(c.ctx, c.actor, id, direct)
	if err != nil {
		return nil, err
	}
	return fields{{"members", members}}, nil
}

// GET /user_groups/{user_group_id}/members/{user_id}
func (s *Server) isUserGroupMember(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	user, err := pathID(c.r, "user_id", chat.ErrNoSuchUser)
	if err != nil {
		return nil, err
	}
	direct := c.p.Bool("direct_member_only", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	is, err := s.svc.IsUserGroupMember(c.ctx, c.actor, id, user, direct)
	if err != nil {
		return nil, err
	}
	return fields{{"is_user_group_member", is}}, nil
}

// GET /user_groups/{user_group_id}/subgroups
func (s *Server) getUserGroupSubgroups(c *call) (fields, error) {
	id, err := userGroupID(c)
	if err != nil {
		return nil, err
	}
	direct := c.p.Bool("direct_subgroup_only", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	subs, err := s.svc.UserGroupSubgroups(c.ctx, c.actor, id, direct)
	if err != nil {
		return nil, err
	}
	return fields{{"subgroups", subs}}, nil
}
