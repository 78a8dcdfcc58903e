package chat

import (
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat/storage/memory"
)

// TestDummyHashCost: a login that names no account compares against a
// hash of the service's own cost, so that it takes as long as one that
// names an account (a cheaper decoy told which addresses exist).
func TestDummyHashCost(t *testing.T) {
	for _, cost := range []int{bcrypt.MinCost, bcrypt.MinCost + 2} {
		s := New(memory.New(), Config{PasswordCost: cost})
		got, err := bcrypt.Cost(s.dummyHash())
		if err != nil || got != cost {
			t.Errorf("dummy hash cost = %d, %v; want %d", got, err, cost)
		}
		s.Close()
	}
}
