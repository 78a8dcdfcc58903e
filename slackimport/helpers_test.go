package slackimport_test

import (
	"testing"
	_ "time/tzdata" // time zones validate as in chatd, whatever the machine has

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/backends"
	"github.com/teamchat/chat/internal/testkit"
	"github.com/teamchat/chat/storage"
)

// forEachStore runs a test once per storage backend.
var forEachStore = backends.ForEach

// t0 is where the service's clock starts.
var t0 = testkit.T0

// newService is a service on a new store of newStore whose clock starts at
// t0 and whose passwords hash fast.
func newService(t *testing.T, newStore func(t *testing.T) storage.Store, cfg chat.Config) (*chat.Service, *testkit.Clock) {
	t.Helper()
	clock := testkit.NewClock(t0)
	cfg.Now = clock.Now
	cfg.PasswordCost = bcrypt.MinCost
	return chat.New(newStore(t), cfg), clock
}

func ptr[T any](v T) *T { return &v }

// The assertions of package testkit, under the names these tests use.
var (
	wantNoErr   = testkit.NoErr
	wantCodeMsg = testkit.CodeMsg
	diff        = testkit.Diff
)
