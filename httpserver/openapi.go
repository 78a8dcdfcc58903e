package httpserver

import (
	_ "embed"
	"net/http"
	"strconv"

	"github.com/teamchat/chat"
)

// openAPIDocument is the OpenAPI 3.1 description of the /api/v1 surface,
// written from the API's specification and the README. The HTTP tests check
// every answer they get against it (openapi_test.go).
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the OpenAPI 3.1 description of the API that the Server
// serves, as JSON. The server also serves it, without credentials, at
// GET /api/v1/openapi.json.
func OpenAPI() []byte {
	return append([]byte(nil), openAPIDocument...)
}

// openAPIRoutes registers GET /api/v1/openapi.json. It is public (and so
// charged to the address's rate limit) and answers the document as it is,
// without the success envelope.
func (s *Server) openAPIRoutes() {
	s.mux.HandleFunc(Prefix+"/openapi.json", getOnly(func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.admit(w, r, chat.OpAPIDescription); err != nil {
			writeError(w, s.log, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(openAPIDocument)))
		h.Set("Cache-Control", "public, max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(openAPIDocument)
		}
	}))
}
