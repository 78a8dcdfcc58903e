package httpserver

import (
	"time"

	"github.com/teamchat/chat"
)

// RegisteredRoutes lists the routes of s as "METHOD /pattern" (the mux
// pattern, Prefix included for the API's routes, with its {wildcards}),
// each mapped to the operation its handler runs.
func RegisteredRoutes(s *Server) map[string]chat.Operation {
	out := map[string]chat.Operation{}
	for _, r := range s.registered {
		out[r.method+" "+r.pattern] = r.op
	}
	return out
}

// SetTransferIdleTimeout sets how long a transfer may make no progress,
// for the tests of that bound, and returns the function that restores it.
func SetTransferIdleTimeout(d time.Duration) func() {
	old := transferIdleTimeout
	transferIdleTimeout = d
	return func() { transferIdleTimeout = old }
}
