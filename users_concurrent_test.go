package chat_test

import (
	"fmt"
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
