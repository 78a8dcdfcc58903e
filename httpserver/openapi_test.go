package httpserver_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/teamchat/chat/httpserver"
)

// The OpenAPI description (httpserver/openapi.json) is checked against
// every answer the tests of this package produce: newEnvWith wraps the
// server in validated, so each request sent through an env, by env.do or
// straight to env.h, is matched to its operation by method and path and
// its status, Content-Type and JSON body are validated against the
// operation's response. Requests to paths or methods the document does
// not describe (unknown routes, 405s, OPTIONS, downloads outside
// /api/v1) are not checked. TestMain fails the run when some operation of
// the document was never answered with a success, so every operation has
// at least one checked example.

// contract is the loaded document and its router, built once.
var contract struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error

	mu      sync.Mutex
	success map[string]bool // operation ID → answered with a 2xx
}

func loadContract() (*openapi3.T, routers.Router, error) {
	contract.once.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(httpserver.OpenAPI())
		if err != nil {
			contract.err = fmt.Errorf("loading openapi.json: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			contract.err = fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
			return
		}
		// The document's server is the relative "/api/v1"; the router
		// needs a scheme and host, which are not part of the contract.
		routed := *doc
		routed.Servers = openapi3.Servers{{URL: "http://{host}" + httpserver.Prefix, Variables: map[string]*openapi3.ServerVariable{"host": {Default: host}}}}
		router, err := gorillamux.NewRouter(&routed)
		if err != nil {
			contract.err = fmt.Errorf("routing openapi.json: %w", err)
			return
		}
		contract.doc, contract.router = doc, router
		contract.success = map[string]bool{}
	})
	return contract.doc, contract.router, contract.err
}

// validateAnswer checks one answer against the document. It returns nil
// for requests the document does not describe.
func validateAnswer(r *http.Request, status int, header http.Header, body []byte) error {
	_, router, err := loadContract()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(r.URL.Path, httpserver.Prefix+"/") {
		return nil
	}
	route, pathParams, err := router.FindRoute(r)
	if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("routing %s %s: %w", r.Method, r.URL.Path, err)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus:   true,
		MultiError:              true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020()},
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: pathParams, Route: route, Options: opts,
		},
		Status:  status,
		Header:  header,
		Options: opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(r.Context(), in); err != nil {
		return fmt.Errorf("%s %s (operation %s) answered %d, which openapi.json does not allow: %w\nbody: %s",
			r.Method, r.URL.Path, route.Operation.OperationID, status, err, body)
	}
	if status >= 200 && status < 300 {
		contract.mu.Lock()
		contract.success[route.Operation.OperationID] = true
		contract.mu.Unlock()
	}
	return nil
}

// validated wraps h so that every answer it gives is checked against the
// OpenAPI document; a mismatch fails t.
func validated(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &teeWriter{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if !rec.wrote {
			rec.WriteHeader(http.StatusOK)
		}
		if err := validateAnswer(r, rec.status, w.Header(), rec.body.Bytes()); err != nil {
			t.Error(err)
		}
	})
}

// teeWriter passes an answer through and keeps a copy of its body when the
// body is JSON (downloads and tus bytes are not kept).
type teeWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	keep   bool
	body   bytes.Buffer
}

func (w *teeWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote, w.status = true, status
		w.keep = strings.HasPrefix(w.Header().Get("Content-Type"), "application/json")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.keep {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && fullRun() {
		if missing := unexercisedOperations(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no test got a success answer from these operations of openapi.json: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// fullRun tells whether every test ran, so that operations not exercised
// mean a gap rather than a filtered run.
func fullRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}

// unexercisedOperations lists, sorted, the operations of the document that
// no test got a 2xx answer from.
func unexercisedOperations() []string {
	doc, _, err := loadContract()
	if err != nil {
		return []string{err.Error()}
	}
	contract.mu.Lock()
	defer contract.mu.Unlock()
	var missing []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if !contract.success[op.OperationID] {
				missing = append(missing, op.OperationID)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

func TestOpenAPIDocumentServed(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/openapi.json", nil, nil)
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.raw)
	}
	if res.raw != string(httpserver.OpenAPI()) {
		t.Error("GET /api/v1/openapi.json does not answer the embedded document")
	}
	if res.body["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", res.body["openapi"])
	}
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	// Every operation has a unique ID, which the coverage check keys on.
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || seen[op.OperationID] {
				t.Errorf("%s %s: operation ID %q missing or repeated", method, path, op.OperationID)
			}
			seen[op.OperationID] = true
		}
	}
}

// TestOpenAPIValidationFails proves that the check rejects answers that
// break the document: a wrong field type, a missing required field, a
// wrong envelope, an undeclared key in a closed object.
func TestOpenAPIValidationFails(t *testing.T) {
	cases := []struct {
		name, method, path string
		status             int
		body               string
	}{
		{"integer as string", "POST", "/realm/filters", 200, `{"result":"success","msg":"","id":"1"}`},
		{"missing field", "POST", "/streams/1/delete_topic", 200, `{"result":"success","msg":""}`},
		{"error without code", "GET", "/users", 400, `{"result":"error","msg":"x"}`},
		{"success with a message", "PATCH", "/settings", 200, `{"result":"success","msg":"done"}`},
		{"unknown user field", "GET", "/users/1", 200, `{"result":"success","msg":"","user":{"user_id":1,"delivery_email":null,"email":"a@b","full_name":"A","date_joined":"x","is_active":true,"is_owner":false,"is_admin":false,"is_guest":false,"is_bot":false,"bot_type":null,"role":400,"timezone":"","avatar_version":1,"is_imported_stub":false,"shoe_size":44}}`},
		{"role out of range", "GET", "/users/1", 200, `{"result":"success","msg":"","user":{"user_id":1,"delivery_email":null,"email":"a@b","full_name":"A","date_joined":"x","is_active":true,"is_owner":false,"is_admin":false,"is_guest":false,"is_bot":false,"bot_type":null,"role":500,"timezone":"","avatar_version":1,"is_imported_stub":false}}`},
		{"domain pair reversed", "POST", "/realm/domains", 200, `{"result":"success","msg":"","new_domain":["example.com",1]}`},
		{"not JSON", "GET", "/streams", 200, `<html></html>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequestWithContext(context.Background(), c.method, "http://"+host+httpserver.Prefix+c.path, nil)
			h := http.Header{"Content-Type": {"application/json"}}
			if err := validateAnswer(r, c.status, h, []byte(c.body)); err == nil {
				t.Errorf("%s %s %d %s: accepted", c.method, c.path, c.status, c.body)
			}
		})
	}
	// And the same answers in their right shape pass, so the failures
	// above are about the shape.
	r := httptest.NewRequest("POST", "http://"+host+httpserver.Prefix+"/realm/filters", nil)
	if err := validateAnswer(r, 200, http.Header{"Content-Type": {"application/json"}}, []byte(`{"result":"success","msg":"","id":1}`)); err != nil {
		t.Error(err)
	}
	// A handler that answers wrongly fails the test it runs in.
	ft := &fakeT{}
	h := validated(ft, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"result":"success","msg":"","id":true}`)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "http://"+host+httpserver.Prefix+"/realm/filters", nil))
	if !ft.failed {
		t.Error("validated did not fail the test for a wrong answer")
	}
}

// fakeT records a failure instead of failing.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Error(args ...any) { f.failed = true }

// TestEveryRouteDocumented checks the other direction: every route the
// server registers under /api/v1 is an operation of openapi.json.
func TestEveryRouteDocumented(t *testing.T) {
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	registered := httpserver.RegisteredRoutes(httpserver.New(newEnv(t).svc, httpserver.Options{}))
	for _, route := range slices.Sorted(maps.Keys(registered)) {
		method, pattern, _ := strings.Cut(route, " ")
		path, ok := strings.CutPrefix(pattern, httpserver.Prefix)
		if !ok {
			continue // downloads outside the API
		}
		// The raw routes' patterns name their documented paths otherwise.
		documented := map[string]string{
			"/tus": "/tus/", "/tus/{$}": "/tus/",
			"/user_uploads/{realm_id}/{path...}": "/user_uploads/{realm_id}/{dir}/{random}/{filename}",
		}
		if d, ok := documented[path]; ok {
			path = d
		}
		item := doc.Paths.Find(path)
		if item == nil || item.GetOperation(method) == nil {
			t.Errorf("%s is not described in openapi.json", route)
		}
	}
}
