package httpserver

// RegisteredRoutes lists the routes of s as "METHOD /pattern" (the mux
// pattern, Prefix included for the API's routes, with its {wildcards}),
// each mapped to the access class its handler was registered with:
// public, authenticated, admin, owner or human.
func RegisteredRoutes(s *Server) map[string]string {
	names := map[access]string{public: "public", authenticated: "authenticated", adminOnly: "admin", ownerOnly: "owner", humanOnly: "human"}
	out := map[string]string{}
	for _, r := range s.registered {
		out[r.method+" "+r.pattern] = names[r.access]
	}
	return out
}
