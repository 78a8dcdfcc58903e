package chat

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// A server authenticates every request before running its operation, and
// for a small write the read transaction that checks the credentials costs
// as much as the write. AuthenticateRequest therefore remembers the
// credentials it accepted, and on the next request with the same ones
// defers the check into the request's first transaction: the user and the
// organization that the operation reads anyway are compared with the
// remembered credentials there, before the operation's result can count.
// The remembered answer is never trusted on its own, so no change made
// elsewhere (another process, a tool writing to the database) needs to
// reach this process for a revoked key, a deactivation or a changed
// address to take effect on the next request.

// credentials are HTTP Basic credentials at a host, trimmed.
type credentials struct {
	host, email, apiKey string
}

// acceptedCredentials maps credentials to the user they authenticated.
type acceptedCredentials struct {
	mu sync.Mutex
	m  map[credentials]int64
}

// maxAcceptedCredentials bounds the map; when it is full it starts over.
const maxAcceptedCredentials = 1 << 16

func (a *acceptedCredentials) get(c credentials) (int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, ok := a.m[c]
	return id, ok
}

func (a *acceptedCredentials) put(c credentials, id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) >= maxAcceptedCredentials {
		a.m = make(map[credentials]int64)
	}
	a.m[c] = id
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
	done   atomic.Bool
}

type pendingAuthKey struct{}

func pendingAuthOf(ctx context.Context) *pendingAuth {
	p, _ := ctx.Value(pendingAuthKey{}).(*pendingAuth)
	if p == nil || p.done.Load() {
		return nil
	}
	return p
}

// AuthenticateRequest is Authenticate for a server that runs the request's
// operation with the context it returns. Credentials it accepted before
// are not checked again here: the returned context makes the request's
// first transaction check them, and fail with Authenticate's error if they
// no longer hold, before the operation's result counts. The server must
// call VerifyRequest before answering. Anyone may call it.
//
// Errors: those of Authenticate.
func (s *Service) AuthenticateRequest(ctx context.Context, host, email, apiKey string) (context.Context, int64, error) {
	c := credentials{host: host, email: strings.TrimSpace(email), apiKey: strings.TrimSpace(apiKey)}
	if !wellFormedAPIKey(c.apiKey) {
		return ctx, 0, ErrMalformedAPIKey
	}
	if id, ok := s.accepted.get(c); ok {
		return context.WithValue(ctx, pendingAuthKey{}, &pendingAuth{creds: c, userID: id}), id, nil
	}
	var u UserRecord
	var exact bool
	err := s.view(ctx, func(tx Tx) (err error) {
		u, exact, err = s.authenticateIn(tx, c.host, c.email, c.apiKey)
		return err
	})
	if err != nil {
		return ctx, 0, err
	}
	// Only an exact host can be checked against the organization alone;
	// the fallbacks of realmForHost depend on the other organizations.
	if exact {
		s.accepted.put(c, u.ID)
	}
	return ctx, u.ID, nil
}

// VerifyRequest finishes the credential check that AuthenticateRequest
// deferred, for a request whose operations ran no transaction or failed
// before the check. It returns nil at once when the check is done or was
// never deferred. Anyone may call it.
//
// Errors: those of Authenticate.
func (s *Service) VerifyRequest(ctx context.Context) error {
	if pendingAuthOf(ctx) == nil {
		return nil
	}
	return s.view(ctx, func(tx Tx) error { return nil })
}

// authTx is a transaction of a request whose credential check is
// deferred; actor does the check when it reads the user.
type authTx struct {
	Tx
	p *pendingAuth
}

// withPendingAuth wraps fn so that a deferred credential check happens in
// its transaction: in actor if fn reads the actor, else after fn. A failed
// check replaces fn's result, so that a request with revoked credentials
// learns nothing else.
func (s *Service) withPendingAuth(ctx context.Context, fn func(Tx) error) func(Tx) error {
	p := pendingAuthOf(ctx)
	if p == nil {
		return fn
	}
	return func(tx Tx) error {
		err := fn(&authTx{Tx: tx, p: p})
		if p.done.Load() {
			return err
		}
		var domainErr *Error
		if err != nil && !errors.As(err, &domainErr) {
			return err // the transaction itself failed
		}
		if _, _, verr := s.verifyPending(tx, p); verr != nil {
			return verr
		}
		return err
	}
}

// verifyPending reads p's user and their organization in tx and checks
// p's credentials against them (checkPending); it returns the records.
func (s *Service) verifyPending(tx Tx, p *pendingAuth) (UserRecord, Realm, error) {
	u, err := tx.User(p.userID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return UserRecord{}, Realm{}, err
	}
	var r Realm
	found := err == nil
	if found {
		if r, err = tx.Realm(u.RealmID); err != nil {
			return UserRecord{}, Realm{}, err
		}
	}
	if err := s.checkPending(tx, p, &u, &r, found); err != nil {
		return UserRecord{}, Realm{}, err
	}
	return u, r, nil
}

// checkPending compares the user (if found) and their organization read in
// tx with p's credentials, marks p done when they hold, and otherwise
// forgets them and returns Authenticate's error for them, checked afresh
// in tx.
func (s *Service) checkPending(tx Tx, p *pendingAuth, u *UserRecord, r *Realm, found bool) error {
	c := p.creds
	if found && r.Host == strings.ToLower(c.host) && EmailKey(u.Email) == EmailKey(c.email) &&
		subtle.ConstantTimeCompare([]byte(u.APIKey), []byte(c.apiKey)) == 1 {
		if err := credentialsUsable(u, r); err != nil {
			s.accepted.drop(c)
			return err
		}
		p.done.Store(true)
		return nil
	}
	s.accepted.drop(c)
	fresh, _, err := s.authenticateIn(tx, c.host, c.email, c.apiKey)
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
