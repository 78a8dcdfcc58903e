package chat_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// TestConcurrentUserCreation creates users from several clients at once:
// every creation succeeds however the writes collide (PostgreSQL aborts
// colliding SERIALIZABLE transactions, which must be run again, never
// answered with an error), and each user exists once.
func TestConcurrentUserCreation(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		const clients, each = 8, 15
		var wg sync.WaitGroup
		errs := make(chan error, clients*each)
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := f.svc.CreateUser(t.Context(), chat.AsUser(f.admin.ID),
						fmt.Sprintf("c%d-%d@example.com", c, i), "long-enough-password", "Concurrent")
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("CreateUser under concurrent creations: %v", err)
		}
		users, err := f.svc.Users(t.Context(), chat.AsUser(f.admin.ID), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		n := 0
		for _, u := range users {
			if u.FullName == "Concurrent" {
				n++
			}
		}
		if n != clients*each {
			t.Errorf("%d users created, want %d", n, clients*each)
		}
	})
}

// TestLongPasswords: a password longer than bcrypt's 72 bytes is neither
// refused nor cut: the whole of it logs in, and the same 72 bytes followed
// by something else do not.
func TestLongPasswords(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		long := strings.Repeat("correct horse battery staple ", 5)
		_, err := f.svc.CreateUser(t.Context(), chat.AsUser(f.admin.ID), "long@example.com", long, "Long Password")
		wantNoErr(t, "CreateUser with a 145-byte password", err)
		_, err = f.svc.FetchAPIKey(t.Context(), host1, "long@example.com", long)
		wantNoErr(t, "login with the whole password", err)
		_, err = f.svc.FetchAPIKey(t.Context(), host1, "long@example.com", long[:72]+"and then something else")
		wantErr(t, "login with the same first 72 bytes", err, chat.ErrAuthenticationFailed)
	})
}

// TestJWTBoundToOrganization: an organization with its own key accepts
// only tokens signed with it, and a token whose aud claim names one
// organization does not open another that shares the key.
func TestJWTBoundToOrganization(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		shared, own := []byte("shared-secret"), []byte("other-org-secret")
		f := newFixtureWith(t, newStore, chat.Config{JWTSecret: shared, JWTKeys: map[string][]byte{host2: own}})
		sign := func(key []byte, claims jwt.MapClaims) string {
			s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
			wantNoErr(t, "sign", err)
			return s
		}
		login := func(host, token string) error {
			_, err := f.svc.FetchAPIKeyJWT(t.Context(), host, token, false)
			return err
		}
		wantNoErr(t, "shared key, first organization", login(host1, sign(shared, jwt.MapClaims{"email": f.member.Email})))
		wantErr(t, "shared key, organization with its own", login(host2, sign(shared, jwt.MapClaims{"email": f.member2.Email})), chat.ErrJWTBad)
		wantNoErr(t, "own key", login(host2, sign(own, jwt.MapClaims{"email": f.member2.Email})))
		wantErr(t, "own key elsewhere", login(host1, sign(own, jwt.MapClaims{"email": f.member.Email})), chat.ErrJWTBad)
		wantNoErr(t, "aud naming the organization", login(host1, sign(shared, jwt.MapClaims{"email": f.member.Email, "aud": host1})))
		wantErr(t, "aud naming another", login(host1, sign(shared, jwt.MapClaims{"email": f.member.Email, "aud": []string{host2}})), chat.ErrJWTBad)
	})
}

// TestJWTRequireExpiry: with Config.JWTRequireExpiry a token without exp
// is refused, one with a future exp accepted; without it, both are.
func TestJWTRequireExpiry(t *testing.T) {
	for _, require := range []bool{false, true} {
		secret := []byte("secret")
		f := newFixtureWith(t, func(*testing.T) storage.Store { return memory.New() }, chat.Config{JWTSecret: secret, JWTRequireExpiry: require})
		sign := func(claims jwt.MapClaims) string {
			s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
			wantNoErr(t, "sign", err)
			return s
		}
		_, err := f.svc.FetchAPIKeyJWT(t.Context(), host1, sign(jwt.MapClaims{"email": f.member.Email}), false)
		if require {
			wantErr(t, "no exp, required", err, chat.ErrJWTBad)
		} else {
			wantNoErr(t, "no exp, not required", err)
		}
		_, err = f.svc.FetchAPIKeyJWT(t.Context(), host1, sign(jwt.MapClaims{"email": f.member.Email,
			"exp": f.clock.Now().Add(time.Minute).Unix()}), false)
		wantNoErr(t, fmt.Sprintf("a future exp (required %v)", require), err)
	}
}

// updateCounter counts the write transactions of a store.
type updateCounter struct {
	storage.Store
	updates atomic.Int64
}

func (c *updateCounter) Update(ctx context.Context, fn func(storage.Tx) error) error {
	c.updates.Add(1)
	return c.Store.Update(ctx, fn)
}

// TestFailedLoginsWriteNothing: a login with a wrong password, or for an
// unknown account, compares the password outside any write transaction,
// so failed logins never hold the writer of a one-writer store.
func TestFailedLoginsWriteNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		var counter *updateCounter
		f := newFixture(t, func(t *testing.T) storage.Store {
			counter = &updateCounter{Store: newStore(t)}
			return counter
		})
		before := counter.updates.Load()
		_, err := f.svc.FetchAPIKey(t.Context(), host1, f.owner.Email, "wrong password")
		wantErr(t, "wrong password", err, chat.ErrAuthenticationFailed)
		_, err = f.svc.FetchAPIKey(t.Context(), host1, "nobody@example.com", "whatever")
		wantErr(t, "unknown account", err, chat.ErrAuthenticationFailed)
		if n := counter.updates.Load() - before; n != 0 {
			t.Errorf("failed logins ran %d write transactions, want 0", n)
		}
		_, err = f.svc.FetchAPIKey(t.Context(), host1, f.owner.Email, "owner-password")
		wantNoErr(t, "right password", err)
	})
}
