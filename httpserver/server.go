// Package httpserver serves the chat API over HTTP under /api/v1, with the
// reference server's conventions: HTTP Basic authentication with an API key,
// form-encoded parameters with JSON-encoded values, and JSON envelopes for
// every answer, errors included.
//
// Handlers only decode parameters, call one method of *chat.Service and
// write its result; every rule lives in package chat.
package httpserver

import (
	"context"
	"encoding/base64"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat"
)

// Prefix is the path under which the API is served.
const Prefix = "/api/v1"

// Options holds the settings of a Server. The zero value works.
type Options struct {
	// Logger receives internal errors and recovered panics. Nil means
	// slog.Default().
	Logger *slog.Logger
	// RateLimits are the request budgets; the zero value sets none.
	// chatd uses DefaultRateLimits.
	RateLimits RateLimits
	// BodyTimeout bounds the time to read a request's form body, so that a
	// client trickling bytes cannot hold a connection; a body not read in
	// time is answered 408. Zero sets no bound. chatd uses 60 s.
	BodyTimeout time.Duration
	// WriteTimeout bounds the time from the start of a request to the end
	// of its answer. It must exceed the longest long-poll of GET /events
	// (55 s with the Hub's defaults). Zero sets no bound. chatd uses 90 s.
	// Both timeouts apply to the routes of this package's API only; they
	// are set per request, so that routes that stream large bodies are not
	// bound by them.
	WriteTimeout time.Duration
	// SharedBudgets, when set, keeps the RateLimits budgets where the
	// processes of a deployment share them (postgres.RateBudgets); nil
	// keeps them in this process.
	SharedBudgets SharedBudgets
}

// Server is an http.Handler for the API of one chat.Service.
type Server struct {
	svc    *chat.Service
	log    *slog.Logger
	mux    *http.ServeMux
	limits rateLimiters
	opts   Options
	// transfers counts the file transfers in progress by user.
	transfers transferSlots
	// registered lists every method and pattern given to handle or
	// handleRaw, so that tests can check that each one is covered
	// (export_test.go).
	registered []registeredRoute
}

// registeredRoute is one method of a mux pattern (Prefix included for the
// API's routes) and the operation it runs.
type registeredRoute struct {
	method, pattern string
	op              chat.Operation
}

// handleRaw registers h for the full mux pattern, for routes that answer
// outside the JSON conventions of handle (streamed uploads, tus, file
// downloads). h checks the method and calls admit itself; methods and a
// record what it serves, so that the route is listed with the others.
func (s *Server) handleRaw(pattern string, op chat.Operation, methods []string, h http.HandlerFunc) {
	ops := make(map[string]chat.Operation, len(methods))
	for _, m := range methods {
		ops[m] = op
	}
	s.handleRawOps(pattern, ops, h)
}

// handleRawOps is handleRaw for a path whose methods run different
// operations.
func (s *Server) handleRawOps(pattern string, ops map[string]chat.Operation, h http.HandlerFunc) {
	for _, m := range slices.Sorted(maps.Keys(ops)) {
		s.registered = append(s.registered, registeredRoute{m, pattern, ops[m]})
	}
	s.mux.HandleFunc(pattern, h)
}

// New returns a Server for svc.
func New(svc *chat.Service, opts Options) *Server {
	s := &Server{svc: svc, log: opts.Logger, mux: http.NewServeMux(), limits: newRateLimiters(opts.RateLimits, opts.SharedBudgets), opts: opts}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.routes()
	s.mux.HandleFunc("/", s.notFound)
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// call is one request being served.
type call struct {
	ctx   context.Context
	r     *http.Request
	w     http.ResponseWriter
	actor chat.Actor
	p     *params
}

// endpoint is one method of a route.
type endpoint struct {
	op    chat.Operation
	serve func(*call) (fields, error)
}

// handle registers the endpoints of one path (relative to Prefix), keyed by
// method. GET endpoints also answer HEAD; other methods get a JSON 405.
func (s *Server) handle(path string, methods map[string]endpoint) {
	s.mux.HandleFunc(Prefix+path, s.methodsHandler(path, methods))
}

// methodsHandler registers the endpoints of one path and returns the
// handler that picks the endpoint of a request by its method.
func (s *Server) methodsHandler(path string, methods map[string]endpoint) http.HandlerFunc {
	allowed := make([]string, 0, len(methods)+1)
	for m, ep := range methods {
		allowed = append(allowed, m)
		s.registered = append(s.registered, registeredRoute{m, Prefix + path, ep.op})
	}
	if _, ok := methods[http.MethodGet]; ok {
		allowed = append(allowed, http.MethodHead)
	}
	slices.Sort(allowed)
	return func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		if r.Method == http.MethodOptions {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		ep, ok := methods[method]
		if !ok {
			writeMethodNotAllowed(w, allowed)
			return
		}
		s.serve(w, r, ep)
	}
}

// notFound answers a path that names no route.
func (s *Server) notFound(w http.ResponseWriter, _ *http.Request) {
	writeError(w, s.log, &chat.Error{Code: chat.CodeNotFound, Msg: "Not Found"})
}

// serve authenticates the request as the endpoint requires, reads its
// parameters, runs the endpoint and writes the answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, ep endpoint) {
	if s.opts.WriteTimeout > 0 {
		// net/http lifts the deadline once the answer is flushed, so it
		// does not reach a later request on the same connection.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
			writeError(w, s.log, internalError)
		}
	}()
	// The check of credentials accepted before may be deferred into the
	// operation (chat.Service.AuthenticateRequest): VerifyRequest comes
	// before any answer.
	actor, err := s.authenticateAs(w, r, ep.op, true)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	ctx := r.Context()
	if s.opts.WriteTimeout > 0 {
		// The operation ends with the answer's deadline: a write that
		// runs past it rolls back rather than commit unanswered.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.WriteTimeout)
		defer cancel()
	}
	c := &call{ctx: ctx, r: r, w: w, actor: actor}
	// fail answers err, unless the credentials, whose check may have been
	// deferred into the operation, turn out not to hold, or the access
	// policy does not admit the actor to the operation: then that is the
	// answer, as it would have been before any parameter was read. The
	// operation checks both first itself, so a request that succeeds needs
	// no transaction of its own for them.
	fail := func(err error) {
		if authErr := s.svc.VerifyRequest(ctx, actor); authErr != nil {
			err = authErr
			if limitErr := charge(s.limits.ip, clientIP(r), w); limitErr != nil {
				err = limitErr
			}
		} else if admitErr := s.svc.Admit(context.WithoutCancel(ctx), actor, ep.op); admitErr != nil {
			// Without the request's cancellation: a body that timed out
			// may have cancelled it.
			err = admitErr
		}
		writeError(w, s.log, err)
	}
	p, err := s.readParams(w, r)
	if err != nil {
		fail(err)
		return
	}
	c.p = p
	data, err := ep.serve(c)
	if err != nil {
		fail(err)
		return
	}
	// An operation that ran no transaction has not checked them yet.
	if err := s.svc.VerifyRequest(ctx, actor); err != nil {
		fail(err)
		return
	}
	writeSuccess(w, s.log, data, p.Ignored())
}

// admit authenticates r as the access policy of op requires, charges the
// rate limits and lets the service admit the actor to op; it returns the
// actor (nobody for operations that anyone may run). The routes with
// their own body handling (uploads, tus) call it first.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, op chat.Operation) (chat.Actor, error) {
	actor, err := s.authenticateAs(w, r, op, false)
	if err != nil {
		return chat.Actor{}, err
	}
	return actor, s.svc.Admit(r.Context(), actor, op)
}

// authenticateAs authenticates r when op needs credentials and charges the
// rate limits. With deferred, the actor's credential check may be deferred
// into its operation (see serve).
func (s *Server) authenticateAs(w http.ResponseWriter, r *http.Request, op chat.Operation, deferred bool) (chat.Actor, error) {
	if op.Access() == chat.Anyone {
		return chat.Actor{}, charge(s.limits.ip, clientIP(r), w)
	}
	actor, err := s.authenticate(r, deferred)
	if err != nil {
		// Failed authentications spend the address's budget, which
		// bounds how fast keys can be guessed.
		if limitErr := charge(s.limits.ip, clientIP(r), w); limitErr != nil {
			err = limitErr
		}
		return chat.Actor{}, err
	}
	// The chunks and offset checks of a resumable upload do not spend the
	// user's request budget: a large file in small chunks would otherwise
	// end in a 429 half-way. Creating uploads does, and each upload is
	// bounded by its declared length.
	if op == chat.OpResumableUpload && (r.Method == http.MethodPatch || r.Method == http.MethodHead) {
		return actor, nil
	}
	if err := charge(s.limits.user, strconv.FormatInt(actor.UserID(), 10), w); err != nil {
		return chat.Actor{}, err
	}
	return actor, nil
}

// readParams reads the parameters of r within Options.BodyTimeout. When
// the body could not be read whole, the connection is closed after the
// answer: the rest of the body would otherwise be read (and waited for)
// before the next request.
func (s *Server) readParams(w http.ResponseWriter, r *http.Request) (*params, error) {
	clear := func() {}
	if s.opts.BodyTimeout > 0 && r.Method != http.MethodGet && r.Method != http.MethodHead {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) == nil {
			clear = func() { rc.SetReadDeadline(time.Time{}) }
		}
	}
	p, err := parseParams(r)
	// The deadline must not outlast the body: net/http's background read,
	// which notices a client going away during a long operation, would
	// take its expiry for a closed connection and cancel the request.
	if err == errBodyTooLarge || err == errBodyTimeout {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	clear()
	return p, err
}

// authenticate checks the HTTP Basic credentials of r,
// or with deferred, lets the request's operation check them when they
// were accepted before.
func (s *Server) authenticate(r *http.Request, deferred bool) (chat.Actor, error) {
	ctx := r.Context()
	header := r.Header.Get("Authorization")
	if header == "" {
		return chat.Actor{}, chat.ErrNotLoggedIn
	}
	scheme, encoded, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "basic") {
		return chat.Actor{}, chat.ErrBasicAuthRequired
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return chat.Actor{}, chat.ErrInvalidBasicAuth
	}
	email, key, ok := strings.Cut(string(decoded), ":")
	if !ok || strings.Contains(key, ":") {
		return chat.Actor{}, chat.ErrInvalidBasicAuth
	}
	if deferred {
		return s.svc.AuthenticateRequest(ctx, r.Host, email, key)
	}
	id, err := s.svc.Authenticate(ctx, r.Host, email, key)
	return chat.AsUser(id), err
}

// routes registers every endpoint.
func (s *Server) routes() {
	s.handle("/server_settings", map[string]endpoint{
		http.MethodGet: {chat.OpServerSettings, s.serverSettings},
	})
	s.handle("/fetch_api_key", map[string]endpoint{
		http.MethodPost: {chat.OpFetchAPIKey, s.fetchAPIKey},
	})
	s.handle("/users", map[string]endpoint{
		http.MethodGet:  {chat.OpUsers, s.getUsers},
		http.MethodPost: {chat.OpCreateUser, s.createUser},
	})
	s.handle("/users/me", map[string]endpoint{
		http.MethodGet: {chat.OpMe, s.getMe},
	})
	s.handle("/users/{user}", map[string]endpoint{
		http.MethodGet:    {chat.OpUser, s.getUser},
		http.MethodPatch:  {chat.OpUpdateUser, s.updateUser},
		http.MethodDelete: {chat.OpDeactivateUser, s.deactivateUser},
	})
	s.handle("/users/{user_id}/reactivate", map[string]endpoint{
		http.MethodPost: {chat.OpReactivateUser, s.reactivateUser},
	})
	s.profileRoutes()
	s.botStorageRoutes()
	s.presenceRoutes()
	s.eventRoutes()
	s.channelRoutes()
	s.realmRoutes()
	s.botRoutes()
	s.userListRoutes()
	s.emojiRoutes()
	s.uploadRoutes()
	s.pushRoutes()
	s.messageRoutes()
	s.openAPIRoutes()
}
