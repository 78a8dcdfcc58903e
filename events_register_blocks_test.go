package chat_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// usersCounter is a store that counts the reads of whole user lists.
type usersCounter struct {
	storage.Store
	reads *atomic.Int64
}

func (c usersCounter) View(ctx context.Context, fn func(storage.Tx) error) error {
	return c.Store.View(ctx, func(tx storage.Tx) error { return fn(countingTx{tx, c.reads}) })
}

type countingTx struct {
	storage.Tx
	reads *atomic.Int64
}

func (t countingTx) Users(realmID int64, ids []int64) ([]storage.UserRecord, error) {
	if ids == nil {
		t.reads.Add(1)
	}
	return t.Tx.Users(realmID, ids)
}

// TestRegisterReadsUsersOnce: the blocks of one register that list the
// organization's users (realm_user, realm_bot, user_status,
// realm_user_groups) share one read of them, and the answer is the one
// each would have made alone.
func TestRegisterReadsUsersOnce(t *testing.T) {
	reads := &atomic.Int64{}
	f := newFixture(t, func(*testing.T) storage.Store { return usersCounter{memory.New(), reads} })
	ctx := t.Context()
	blocks := []string{"realm_user", "realm_bot", "user_status", "realm_user_groups"}
	reads.Store(0)
	together, err := f.svc.Register(ctx, chat.AsUser(f.admin.ID), chat.RegisterRequest{FetchEventTypes: blocks})
	wantNoErr(t, "Register", err)
	if n := reads.Load(); n != 1 {
		t.Errorf("one register read the user list %d times, want 1", n)
	}
	for _, block := range blocks {
		alone, err := f.svc.Register(ctx, chat.AsUser(f.admin.ID), chat.RegisterRequest{FetchEventTypes: []string{block}})
		wantNoErr(t, "Register "+block, err)
		for k, v := range alone {
			if k == "queue_id" {
				continue
			}
			if !jsonEqual(t, v, together[k]) {
				t.Errorf("%s: %s differs when read with the other blocks", block, k)
			}
		}
	}
}

// jsonEqual compares two values by their JSON.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	wantNoErr(t, "marshal", err)
	jb, err := json.Marshal(b)
	wantNoErr(t, "marshal", err)
	return string(ja) == string(jb)
}
