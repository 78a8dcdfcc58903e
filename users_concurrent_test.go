package chat_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
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
