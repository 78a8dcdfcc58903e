package httpserver

import (
	"encoding/json"
	"net/http"

	"github.com/teamchat/chat"
)

// profileRoutes registers the routes of user administration, status,
// settings, custom profile fields and JWT login.
func (s *Server) profileRoutes() {
	s.handle("/realm/profile_fields", map[string]endpoint{
		http.MethodGet:   {chat.OpProfileFields, s.getProfileFields},
		http.MethodPost:  {chat.OpCreateProfileField, s.createProfileField},
		http.MethodPatch: {chat.OpCreateProfileField, s.reorderProfileFields},
	})
	s.handle("/realm/profile_fields/{field_id}", map[string]endpoint{
		http.MethodPatch:  {chat.OpCreateProfileField, s.updateProfileField},
		http.MethodDelete: {chat.OpCreateProfileField, s.deleteProfileField},
	})
	s.handle("/users/me/status", map[string]endpoint{
		http.MethodPost: {chat.OpUpdateStatus, s.updateStatus},
	})
	s.handle("/users/me/profile_data", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateProfileData, s.updateProfileData},
	})
	s.handle("/settings", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateSettings, s.updateSettings},
	})
	// The reference's older routes of the same settings, which its Python
	// library still calls.
	s.handle("/settings/notifications", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateSettings, s.updateSettings},
	})
	s.handle("/settings/display", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateSettings, s.updateSettings},
	})
	s.handle("/realm/user_settings_defaults", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateUserSettingsDefaults, s.updateUserSettingsDefaults},
	})
	s.handle("/jwt/fetch_api_key", map[string]endpoint{
		http.MethodPost: {chat.OpFetchAPIKeyJWT, s.fetchAPIKeyJWT},
	})
}

// GET /realm/profile_fields
func (s *Server) getProfileFields(c *call) (fields, error) {
	list, err := s.svc.ProfileFields(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"custom_fields", list}}, nil
}

// POST /realm/profile_fields
func (s *Server) createProfileField(c *call) (fields, error) {
	name, _ := c.p.String("name")
	hint, _ := c.p.String("hint")
	req := chat.NewProfileField{Name: name, Hint: hint}
	req.Type = chat.FieldType(c.p.RequiredInt("field_type"))
	req.FieldData = c.p.JSONObject("field_data")
	req.DisplayInProfileSummary = c.p.Bool("display_in_profile_summary", false)
	req.Required = c.p.Bool("required", false)
	req.EditableByUser = c.p.Bool("editable_by_user", true)
	req.UseForUserMatching = c.p.Bool("use_for_user_matching", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.CreateProfileField(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"id", id}}, nil
}

// PATCH /realm/profile_fields/{field_id}
func (s *Server) updateProfileField(c *call) (fields, error) {
	id, err := profileFieldID(c)
	if err != nil {
		return nil, err
	}
	p := c.p
	req := chat.ProfileFieldUpdate{Name: p.OptString("name"), Hint: p.OptString("hint"), FieldData: p.JSONObject("field_data"),
		DisplayInProfileSummary: p.OptBool("display_in_profile_summary"), Required: p.OptBool("required"),
		EditableByUser: p.OptBool("editable_by_user"), UseForUserMatching: p.OptBool("use_for_user_matching")}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateProfileField(c.ctx, c.actor, id, req)
}

// profileFieldID reads the field_id path segment; a bad one is an unknown
// field, as the reference reports it.
func profileFieldID(c *call) (int64, error) {
	id, err := pathID(c.r, "field_id", errorf("Field id %s not found.", c.r.PathValue("field_id")))
	return id, err
}

// DELETE /realm/profile_fields/{field_id}
func (s *Server) deleteProfileField(c *call) (fields, error) {
	id, err := profileFieldID(c)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteProfileField(c.ctx, c.actor, id)
}

// PATCH /realm/profile_fields
func (s *Server) reorderProfileFields(c *call) (fields, error) {
	order := c.p.RequiredIntList("order")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.ReorderProfileFields(c.ctx, c.actor, order)
}

// PATCH /users/{user_id} and PATCH /users/{email}
func (s *Server) updateUser(c *call) (fields, error) {
	var req chat.UserUpdate
	req.FullName = c.p.OptString("full_name")
	if role := c.p.OptInt("role"); role != nil {
		r := chat.Role(*role)
		req.Role = &r
	}
	req.ProfileData = c.p.ProfileData("profile_data")
	req.NewEmail = c.p.OptString("new_email")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.pathUser(c)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateUser(c.ctx, c.actor, id, req)
}

// pathUser resolves the {user} segment: digits are a user ID, anything else
// an email address the actor can name.
func (s *Server) pathUser(c *call) (int64, error) {
	if id, err := pathID(c.r, "user", chat.ErrNoSuchUser); err == nil {
		return id, nil
	}
	u, err := s.svc.UserByEmail(c.ctx, c.actor, c.r.PathValue("user"), chat.UserQuery{})
	if err != nil {
		return 0, err
	}
	return u.UserID, nil
}

// POST /users/me/status
func (s *Server) updateStatus(c *call) (fields, error) {
	req := chat.StatusUpdate{
		StatusText:   c.p.OptString("status_text"),
		Away:         c.p.OptBool("away"),
		EmojiName:    c.p.OptString("emoji_name"),
		EmojiCode:    c.p.OptString("emoji_code"),
		ReactionType: c.p.OptString("reaction_type"),
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateStatus(c.ctx, c.actor, req)
}

// PATCH /users/me/profile_data
func (s *Server) updateProfileData(c *call) (fields, error) {
	data := c.p.ProfileData("data")
	if data == nil && c.p.Err() == nil {
		if _, ok := c.p.String("data"); !ok {
			return nil, chat.MissingArgument("data")
		}
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateProfileData(c.ctx, c.actor, data)
}

// PATCH /settings
func (s *Server) updateSettings(c *call) (fields, error) {
	var req chat.SettingsUpdate
	if v := c.p.OptInt("email_address_visibility"); v != nil {
		ev := chat.EmailVisibility(*v)
		req.EmailAddressVisibility = &ev
	}
	req.PresenceEnabled = c.p.OptBool("presence_enabled")
	for _, name := range chat.PersonalSettingNames() {
		if chat.IsStringSetting(name) {
			if v := c.p.OptString(name); v != nil {
				b, _ := json.Marshal(*v)
				setSettingValue(&req, name, b)
			}
			continue
		}
		c.p.Decode(name, func(b []byte) error {
			setSettingValue(&req, name, b)
			return nil
		})
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateSettings(c.ctx, c.actor, req)
}

func setSettingValue(req *chat.SettingsUpdate, name string, raw []byte) {
	if req.Values == nil {
		req.Values = map[string]json.RawMessage{}
	}
	req.Values[name] = json.RawMessage(raw)
}

// PATCH /realm/user_settings_defaults
func (s *Server) updateUserSettingsDefaults(c *call) (fields, error) {
	var vis *chat.EmailVisibility
	if v := c.p.OptInt("email_address_visibility"); v != nil {
		ev := chat.EmailVisibility(*v)
		vis = &ev
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateUserSettingsDefaults(c.ctx, c.actor, vis)
}

// POST /jwt/fetch_api_key
func (s *Server) fetchAPIKeyJWT(c *call) (fields, error) {
	token, _ := c.p.String("token")
	include := c.p.Bool("include_profile", false)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	res, err := s.svc.FetchAPIKeyJWT(c.ctx, c.r.Host, token, include)
	if err != nil {
		return nil, err
	}
	out := fields{{"api_key", res.APIKey}, {"email", res.Email}}
	if res.User != nil {
		out = append(out, field{"user", res.User})
	}
	return out, nil
}
