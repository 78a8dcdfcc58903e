package chat

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
	"golang.org/x/crypto/bcrypt"
)

// apiKeyLength and apiKeyAlphabet define the API key format: 32 characters
// of [A-Za-z0-9].
const (
	apiKeyLength   = 32
	apiKeyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// newAPIKey draws a key from the configured randomness, without modulo bias
// (bytes at or above 248 = 4*62 are drawn again).
func (s *Service) newAPIKey() (string, error) {
	key := make([]byte, 0, apiKeyLength)
	buf := make([]byte, apiKeyLength*2)
	for len(key) < apiKeyLength {
		if _, err := io.ReadFull(s.cfg.Rand, buf); err != nil {
			return "", fmt.Errorf("reading randomness for an API key: %w", err)
		}
		for _, c := range buf {
			if int(c) < 4*len(apiKeyAlphabet) && len(key) < apiKeyLength {
				key = append(key, apiKeyAlphabet[int(c)%len(apiKeyAlphabet)])
			}
		}
	}
	return string(key), nil
}

// wellFormedAPIKey reports whether key has the API key format.
func wellFormedAPIKey(key string) bool {
	if len(key) != apiKeyLength {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// minPasswordLength is the shortest password accepted, in code points (the
// reference server's default PASSWORD_MIN_LENGTH).
const minPasswordLength = 6

// hashPassword returns the stored form of a password.
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.heavySlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	h, err := bcrypt.GenerateFromPassword(bcryptInput(password), s.cfg.PasswordCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// heavySlots is how many pieces of long CPU-bound work that any client can
// ask for may run at once: password hashes (bcrypt, tens of milliseconds
// each) and the rendering of long messages (up to hundreds of
// milliseconds with many linkifiers). Half of the CPUs Go uses, and at
// least one, so that the other half is left to every other request.
// Without a bound, a stream of failed logins (each hashes, to take as long
// as a real one) kept every CPU busy, and each request of every other
// client waited behind the hashes at every step: with 4 concurrent logins
// on 2 CPUs, the other clients' p99 went from 31 ms to 270 ms
// (bench/soak). Logins, new passwords and long messages wait for a slot
// instead.
//
// A slot also rests, after its work, as long as the work took (its release
// returns at once; the slot frees later), so that heavy work keeps at most
// half of each slot's CPU: back-to-back long messages and failed logins on
// 2 CPUs still took one CPU whole, and with PostgreSQL's processes on the
// other the normal clients' p99 was 2.3 times their p99 alone. One login
// or long message at a time waits for nothing.
func heavySlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// heavySlot waits for a slot to run heavy work in, or for ctx to end, and
// returns its release, which lets the slot rest (s.rest) before it frees.
func (s *Service) heavySlot(ctx context.Context) (func(), error) {
	select {
	case s.heavy <- struct{}{}:
		start := time.Now()
		return func() { s.rest(time.Since(start), func() { <-s.heavy }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// restSlot calls free after d: the rest of a heavy slot.
func restSlot(d time.Duration, free func()) { time.AfterFunc(d, free) }

// bcryptMaxInput is the longest input bcrypt takes.
const bcryptMaxInput = 72

// bcryptInput is what bcrypt hashes for a password: the password itself up
// to bcrypt's limit, and beyond it its SHA-256 digest, so that a long
// password is neither refused nor cut.
func bcryptInput(password string) []byte {
	if len(password) <= bcryptMaxInput {
		return []byte(password)
	}
	sum := sha256.Sum256([]byte(password))
	return []byte("sha256$" + base64.RawStdEncoding.EncodeToString(sum[:]))
}

// dummyHash is compared against when a login names no account, so that a
// failed login takes as long whether or not the account exists: it has the
// cost of the service's own hashes.
func (s *Service) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		s.dummy, _ = bcrypt.GenerateFromPassword([]byte("no such account"), s.cfg.PasswordCost)
	})
	return s.dummy
}

// passwordMatches reports whether password matches the stored hash. An empty
// hash never matches, after as long as a comparison takes. It fails only
// when ctx ends before a heavy slot is free.
func (s *Service) passwordMatches(ctx context.Context, hash, password string) (bool, error) {
	release, err := s.heavySlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if hash == "" {
		bcrypt.CompareHashAndPassword(s.dummyHash(), bcryptInput(password))
		return false, nil
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), bcryptInput(password)) == nil, nil
}

// Authenticate checks HTTP Basic credentials, an API email address and an
// API key, for a request that arrived at host, and returns the ID of the
// user to act as. The email is compared, without regard to case, with the
// user's real address. Both values are trimmed of surrounding white space.
//
// Errors, in the order they are checked:
// ErrMalformedAPIKey, ErrInvalidAPIKey, ErrWrongSubdomain,
// ErrRealmDeactivated, ErrAccountDeactivated, ErrWebhookBotNotAllowed.
func (s *Service) Authenticate(ctx context.Context, host, email, apiKey string) (int64, error) {
	email, apiKey = strings.TrimSpace(email), strings.TrimSpace(apiKey)
	if !wellFormedAPIKey(apiKey) {
		return 0, ErrMalformedAPIKey
	}
	var id int64
	err := s.view(ctx, noActor, func(tx storage.Tx) error {
		u, err := s.authenticateIn(tx, host, email, apiKey)
		id = u.ID
		return err
	})
	return id, err
}

// authenticateIn checks trimmed, well-formed credentials in tx as
// Authenticate does, and returns the user.
func (s *Service) authenticateIn(tx storage.Tx, host, email, apiKey string) (storage.UserRecord, error) {
	realm, err := s.realmForHost(tx, host)
	if err != nil && !errors.Is(err, ErrInvalidSubdomain) {
		return storage.UserRecord{}, err
	}
	var u storage.UserRecord
	found := false
	if err == nil {
		u, err = tx.UserByEmail(realm.ID, email)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return storage.UserRecord{}, err
		}
		found = err == nil && s.apiKeyMatches(u.APIKey, apiKey)
	}
	if !found {
		// The key may belong to this address in another organization.
		other, err := s.userByAPIKey(tx, apiKey)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && storage.EmailKey(other.Email) != storage.EmailKey(email)) {
			return storage.UserRecord{}, ErrInvalidAPIKey
		}
		if err != nil {
			return storage.UserRecord{}, err
		}
		return storage.UserRecord{}, ErrWrongSubdomain
	}
	if err := credentialsUsable(&u, &realm); err != nil {
		return storage.UserRecord{}, err
	}
	return u, nil
}

// credentialsUsable checks, in the order of Authenticate's errors, that
// the user whose key matched may act.
func credentialsUsable(u *storage.UserRecord, realm *Realm) error {
	if realm.Deactivated {
		return ErrRealmDeactivated
	}
	if !u.IsActive {
		return ErrAccountDeactivated
	}
	if u.BotType == BotIncomingWebhook {
		return ErrWebhookBotNotAllowed
	}
	return nil
}

// APIKeyResult is the answer of a login.
type APIKeyResult struct {
	APIKey string `json:"api_key"`
	// Email is the user's real address.
	Email  string `json:"email"`
	UserID int64  `json:"user_id"`
}

// FetchAPIKey logs in with an email address and password at the
// organization reached through host, and returns the user's API key. The
// first login of an account sets its date_joined to the time of the login
// and clears is_imported_stub. Anyone may call it.
//
// Errors: ErrInvalidSubdomain, ErrPasswordAuthDisabled
// (password login is not among Config.AuthenticationMethods),
// ErrEnterValidEmail,
// ErrAuthenticationFailed, ErrLoginUserDeactivated,
// ErrLoginRealmDeactivated.
func (s *Service) FetchAPIKey(ctx context.Context, host, username, password string) (APIKeyResult, error) {
	// The account is read, and the password compared, outside any write
	// transaction: bcrypt takes tens of milliseconds, and a store with one
	// writer (SQLite) would make every organization's writes wait behind
	// a stream of failed logins.
	var hash string
	err := s.view(ctx, noActor, func(tx storage.Tx) error {
		u, _, err := s.loginAccount(tx, host, username)
		hash = u.PasswordHash
		return err
	})
	if err != nil {
		return APIKeyResult{}, err
	}
	// The password is checked before the account's state, so that only its
	// holder learns that an account is deactivated.
	if ok, err := s.passwordMatches(ctx, hash, password); err != nil {
		return APIKeyResult{}, err
	} else if !ok {
		return APIKeyResult{}, ErrAuthenticationFailed
	}
	var out APIKeyResult
	err = s.update(ctx, noActor, func(tx storage.Tx) error {
		u, realm, err := s.loginAccount(tx, host, username)
		if err != nil {
			return err
		}
		if u.PasswordHash != hash || hash == "" {
			return ErrAuthenticationFailed // changed meanwhile
		}
		if !u.IsActive {
			return ErrLoginUserDeactivated
		}
		if realm.Deactivated {
			return ErrLoginRealmDeactivated
		}
		if err := s.recordLogin(tx, &u); err != nil {
			return err
		}
		key, err := s.shownAPIKey(u.APIKey)
		if err != nil {
			return err
		}
		out = APIKeyResult{APIKey: key, Email: u.Email, UserID: u.ID}
		return nil
	})
	return out, err
}

// loginAccount reads the organization of host and the account a login
// names; an unknown account is the zero record, whose empty hash never
// matches.
func (s *Service) loginAccount(tx storage.Tx, host, username string) (storage.UserRecord, Realm, error) {
	realm, err := s.realmForHost(tx, host)
	if err != nil {
		return storage.UserRecord{}, realm, err
	}
	if !s.passwordLoginEnabled() {
		return storage.UserRecord{}, realm, ErrPasswordAuthDisabled
	}
	if !validEmail(username) {
		return storage.UserRecord{}, realm, ErrEnterValidEmail
	}
	u, err := tx.UserByEmail(realm.ID, username)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return u, realm, err
	}
	return u, realm, nil
}

// recordLogin notes a successful login; the first one turns an imported or
// API-created account into a regular one.
func (s *Service) recordLogin(tx storage.Tx, u *storage.UserRecord) error {
	now := s.now()
	if u.LastLogin.IsZero() {
		u.DateJoined = now
		u.IsImportedStub = false
	}
	u.LastLogin = now
	return tx.UpdateUser(*u)
}
