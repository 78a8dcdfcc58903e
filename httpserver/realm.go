package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

// realmRoutes registers organization administration: settings,
// linkifiers, allowed domains and video calls.
func (s *Server) realmRoutes() {
	s.handle("/realm", map[string]endpoint{
		http.MethodPatch: {chat.OpUpdateRealm, s.updateRealm},
	})
	s.handle("/realm/linkifiers", map[string]endpoint{
		http.MethodGet: {chat.OpLinkifiers, s.getLinkifiers},
	})
	s.handle("/realm/filters", map[string]endpoint{
		// GET here is kept for older clients.
		http.MethodGet:  {chat.OpLinkifiers, s.getLinkifiers},
		http.MethodPost: {chat.OpAddLinkifier, s.addLinkifier},
	})
	s.handle("/realm/filters/{filter_id}", map[string]endpoint{
		http.MethodPatch:  {chat.OpUpdateLinkifier, s.updateLinkifier},
		http.MethodDelete: {chat.OpDeleteLinkifier, s.deleteLinkifier},
	})
	s.handle("/realm/emoji", map[string]endpoint{
		http.MethodGet: {chat.OpRealmEmoji, s.getRealmEmoji},
	})
	s.handle("/realm/domains", map[string]endpoint{
		http.MethodGet:  {chat.OpRealmDomains, s.getRealmDomains},
		http.MethodPost: {chat.OpAddRealmDomain, s.addRealmDomain},
	})
	s.handle("/realm/domains/{domain}", map[string]endpoint{
		http.MethodPatch:  {chat.OpUpdateRealmDomain, s.updateRealmDomain},
		http.MethodDelete: {chat.OpDeleteRealmDomain, s.deleteRealmDomain},
	})
	s.handle("/calls/videocall/create", map[string]endpoint{
		http.MethodPost: {chat.OpCreateVideoCall, s.createVideoCall},
	})
}

// PATCH /realm: the answer echoes each changed setting.
func (s *Server) updateRealm(c *call) (fields, error) {
	var req chat.RealmUpdate
	for _, p := range req.Params() {
		c.p.Optional(p.Name, p.Dest)
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	changes, err := s.svc.UpdateRealm(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	out := make(fields, len(changes))
	for i, ch := range changes {
		out[i] = field{ch.Name, ch.Value}
	}
	return out, nil
}

// GET /realm/linkifiers (and GET /realm/filters)
func (s *Server) getLinkifiers(c *call) (fields, error) {
	list, err := s.svc.Linkifiers(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"linkifiers", list}}, nil
}

// GET /realm/emoji
func (s *Server) getRealmEmoji(c *call) (fields, error) {
	emoji, err := s.svc.RealmEmoji(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"emoji", emoji}}, nil
}

// linkifierRequest reads the parameters of POST and PATCH.
func linkifierRequest(p *params) chat.LinkifierRequest {
	return chat.LinkifierRequest{
		Pattern:                 p.RequiredString("pattern"),
		URLTemplate:             p.RequiredString("url_template"),
		ExampleInput:            p.OptString("example_input"),
		ReverseTemplate:         p.OptString("reverse_template"),
		AlternativeURLTemplates: p.StringList("alternative_url_templates"),
	}
}

// POST /realm/filters
func (s *Server) addLinkifier(c *call) (fields, error) {
	req := linkifierRequest(c.p)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	id, err := s.svc.AddLinkifier(c.ctx, c.actor, req)
	if err != nil {
		return nil, err
	}
	return fields{{"id", id}}, nil
}

// PATCH /realm/filters/{filter_id}
func (s *Server) updateLinkifier(c *call) (fields, error) {
	id, err := pathID(c.r, "filter_id", chat.ErrLinkifierNotFound)
	if err != nil {
		return nil, err
	}
	req := linkifierRequest(c.p)
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateLinkifier(c.ctx, c.actor, id, req)
}

// DELETE /realm/filters/{filter_id}
func (s *Server) deleteLinkifier(c *call) (fields, error) {
	id, err := pathID(c.r, "filter_id", chat.ErrLinkifierNotFound)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteLinkifier(c.ctx, c.actor, id)
}

// GET /realm/domains
func (s *Server) getRealmDomains(c *call) (fields, error) {
	list, err := s.svc.RealmDomains(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"domains", list}}, nil
}

// POST /realm/domains: new_domain is [id, domain].
func (s *Server) addRealmDomain(c *call) (fields, error) {
	domain := c.p.RequiredString("domain")
	allow := c.p.RequiredBool("allow_subdomains")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	d, err := s.svc.AddRealmDomain(c.ctx, c.actor, domain, allow)
	if err != nil {
		return nil, err
	}
	return fields{{"new_domain", []any{d.ID, d.Domain}}}, nil
}

// PATCH /realm/domains/{domain}
func (s *Server) updateRealmDomain(c *call) (fields, error) {
	allow := c.p.RequiredBool("allow_subdomains")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.UpdateRealmDomain(c.ctx, c.actor, c.r.PathValue("domain"), allow)
}

// DELETE /realm/domains/{domain}
func (s *Server) deleteRealmDomain(c *call) (fields, error) {
	return nil, s.svc.DeleteRealmDomain(c.ctx, c.actor, c.r.PathValue("domain"))
}

// POST /calls/videocall/create: it reads no parameters, so every one sent
// is reported as ignored.
func (s *Server) createVideoCall(c *call) (fields, error) {
	url, err := s.svc.CreateVideoCall(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"url", url}}, nil
}
