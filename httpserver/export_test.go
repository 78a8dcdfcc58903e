package httpserver

// RegisteredRoutes lists the routes of s as "METHOD /path" (the path
// relative to Prefix, with its {wildcards}), each mapped to the access
// class its handler was registered with: public, authenticated,
// admin or owner.
func RegisteredRoutes(s *Server) map[string]string {
	names := map[access]string{public: "public", authenticated: "authenticated", adminOnly: "admin", ownerOnly: "owner"}
	out := map[string]string{}
	for _, r := range s.registered {
		out[r.method+" "+r.path] = names[r.access]
	}
	return out
}
