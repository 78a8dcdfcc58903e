package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/teamchat/chat/storage"
)

// A server authenticates every request before running its operation, and
// for a small write the read transaction that checks the credentials costs
// as much as the write. AuthenticateRequest therefore remembers the
// credentials it accepted, and on the next request with the same ones
// defers the check into the request's first transaction: the user and the
// organization that the operation reads anyway are compared with the
// remembered credentials there, before the operation's result can count;
// a host that names the organization by realmForHost's fallbacks alone
// (an IP address of a server with one organization) is resolved again
// there too. The remembered answer is never trusted on its own, so no
// change made elsewhere (another process, a tool writing to the database)
// needs to reach this process for a revoked key, a deactivation or a
// changed address to take effect on the next request.

// credentials are HTTP Basic credentials at a host, trimmed.
type credentials struct {
	host, email, apiKey string
}

// acceptedCredentials maps credentials to the user they authenticated.
type acceptedCredentials struct {
	mu sync.Mutex
	m  map[credentials]accepted
}

// accepted is the user that credentials authenticated, and their API
// key's stored form (sealed, when keys are sealed), which every later
// check compares with the stored key: sealing takes an HMAC and an AES-GCM
// seal, and a long-polling client is checked on every poll.
type accepted struct {
	userID int64
	stored string
}

// maxAcceptedCredentials bounds the map; when it is full it starts over.
const maxAcceptedCredentials = 1 << 16

func (a *acceptedCredentials) get(c credentials) (accepted, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.m[c]
	return v, ok
}

func (a *acceptedCredentials) put(c credentials, v accepted) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) >= maxAcceptedCredentials {
		a.m = make(map[credentials]accepted)
	}
	a.m[c] = v
}

func (a *acceptedCredentials) drop(c credentials) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, c)
}

// pendingAuth is a request's deferred credential check.
type pendingAuth struct {
	creds  credentials
	userID int64
	// storedKey is the stored form of creds.apiKey (see accepted).
	storedKey string
	done      atomic.Bool
}

// Actor is the party an operation acts for. Every operation that acts for
// a user takes one and resolves it inside its own transaction, where it
// re-reads the user and their organization and checks that both are
// active. AsUser names a user the caller has authenticated itself (a Go
// program acting for its users); AuthenticateRequest turns the credentials
// of a request into an Actor, whose check may be deferred into the
// operation's transaction. The zero Actor is nobody: operations refuse it
// with ErrNotLoggedIn.
type Actor struct {
	id int64
	// pending is the deferred credential check of a request, or nil.
	pending *pendingAuth
}

// hostNames reports whether host, as a request names it, resolves to r in
// tx: it is r's host, or realmForHost's fallbacks take it there (as they
// take any address of a server with one organization, 127.0.0.1:9991
// included). Clients of such a server that use its IP address were
// authenticated afresh, in a transaction of its own, on every request: the
// fallbacks depend on the other organizations, which this check reads
// (once per round of checks, with known).
func (s *Service) hostNames(tx storage.Tx, host string, r *Realm, known *actorRecords) (bool, error) {
	host = strings.ToLower(host)
	if r.Host == host {
		return true, nil
	}
	if known != nil {
		if id, ok := known.hosts[host]; ok {
			return id == r.ID, nil
		}
	}
	resolved, err := s.realmForHost(tx, host)
	if err != nil && !errors.Is(err, ErrInvalidSubdomain) {
		return false, err
	}
	if known != nil {
		if known.hosts == nil {
			known.hosts = map[string]int64{}
		}
		known.hosts[host] = resolved.ID
	}
	return resolved.ID != 0 && resolved.ID == r.ID, nil
}

// checkedID is the ID of the user whose records a check of the actor
// reads: the user its pending credentials named, if any.
func (a Actor) checkedID() int64 {
	if p := a.pending; p != nil && !p.done.Load() {
		return p.userID
	}
	return a.id
}

// AsUser returns the Actor for the user with the given ID.
func AsUser(id int64) Actor { return Actor{id: id} }

// UserID returns the ID of the user the actor acts as.
func (a Actor) UserID() int64 { return a.id }

// noActor is passed by operations that act for nobody, such as
// provisioning and the checks of credentials themselves.
var noActor Actor

// AuthenticateRequest is Authenticate for a server that runs the request's
// operation as the Actor it returns. Credentials it accepted before are
// not checked again here: the operation checks them in its first
// transaction, and fails with Authenticate's error if they no longer
// hold, before its result counts. The server must call VerifyRequest
// before answering. Anyone may call it.
//
// Errors: those of Authenticate.
func (s *Service) AuthenticateRequest(ctx context.Context, host, email, apiKey string) (Actor, error) {
	c := credentials{host: host, email: strings.TrimSpace(email), apiKey: strings.TrimSpace(apiKey)}
	if !wellFormedAPIKey(c.apiKey) {
		return noActor, ErrMalformedAPIKey
	}
	if a, ok := s.accepted.get(c); ok {
		return Actor{id: a.userID, pending: &pendingAuth{creds: c, userID: a.userID, storedKey: a.stored}}, nil
	}
	var u storage.UserRecord
	err := s.view(ctx, noActor, func(tx storage.Tx) (err error) {
		u, err = s.authenticateIn(tx, c.host, c.email, c.apiKey)
		return err
	})
	if err != nil {
		return noActor, err
	}
	s.accepted.put(c, accepted{u.ID, s.storedAPIKey(c.apiKey)})
	return AsUser(u.ID), nil
}

// VerifyRequest finishes the credential check that AuthenticateRequest
// deferred, for a request whose operations ran no transaction or failed
// before the check. It returns nil at once when the check is done or was
// never deferred. Anyone may call it.
//
// Errors: those of Authenticate.
func (s *Service) VerifyRequest(ctx context.Context, actor Actor) error {
	if p := actor.pending; p == nil || p.done.Load() {
		return nil
	}
	return s.view(ctx, actor, func(tx storage.Tx) error { return nil })
}

// withPendingAuth wraps fn so that the actor's deferred credential check,
// if any, happens in its transaction: in Service.actor if fn reads the
// actor, else after fn. A failed check replaces fn's result, so that a
// request with revoked credentials learns nothing else.
func (s *Service) withPendingAuth(actor Actor, fn func(storage.Tx) error) func(storage.Tx) error {
	p := actor.pending
	if p == nil || p.done.Load() {
		return fn
	}
	return func(tx storage.Tx) error {
		err := fn(tx)
		if p.done.Load() {
			return err
		}
		var domainErr *Error
		if err != nil && !errors.As(err, &domainErr) {
			return err // the transaction itself failed
		}
		if _, _, verr := s.verifyPending(tx, p, nil); verr != nil {
			return verr
		}
		return err
	}
}

// verifyPending reads p's user and their organization in tx (unless
// known has them) and checks p's credentials against them
// (checkPending); it returns the records.
func (s *Service) verifyPending(tx storage.Tx, p *pendingAuth, known *actorRecords) (storage.UserRecord, Realm, error) {
	u, r, err := known.read(tx, p.userID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return storage.UserRecord{}, Realm{}, err
	}
	found := err == nil
	if err := s.checkPending(tx, p, &u, &r, found, known); err != nil {
		return storage.UserRecord{}, Realm{}, err
	}
	return u, r, nil
}

// checkPending compares the user (if found) and their organization read in
// tx with p's credentials, marks p done when they hold, and otherwise
// forgets them and returns Authenticate's error for them, checked afresh
// in tx. known, which may be nil, holds records of the round.
func (s *Service) checkPending(tx storage.Tx, p *pendingAuth, u *storage.UserRecord, r *Realm, found bool, known *actorRecords) error {
	c := p.creds
	if found && storage.EmailKey(u.Email) == storage.EmailKey(c.email) && s.storedKeyMatches(u.APIKey, c.apiKey, p.storedKey) {
		names, err := s.hostNames(tx, c.host, r, known)
		if err != nil {
			return err
		}
		if names {
			if err := credentialsUsable(u, r); err != nil {
				s.accepted.drop(c)
				return err
			}
			p.done.Store(true)
			return nil
		}
	}
	s.accepted.drop(c)
	fresh, err := s.authenticateIn(tx, c.host, c.email, c.apiKey)
	if err != nil {
		return err
	}
	if fresh.ID != p.userID {
		// The credentials now name someone else: this request was
		// admitted as the other user, so it cannot go on.
		return ErrInvalidAPIKey
	}
	p.done.Store(true)
	return nil
}
