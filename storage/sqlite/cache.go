package sqlite

import (
	"slices"
	"sync"

	"github.com/teamchat/chat/storage"
)

// realmCache keeps one list per realm (its users, its channels), tagged
// with the realm's version of that list when it was read. A trigger bumps
// the version in the same transaction as every write to the list's table,
// whichever process makes it, so a cached list is exactly the committed
// list while the versions match; a transaction that reads the version
// learns whether the cache holds what it would read itself. Reading 100 000
// rows costs far more than copying them, and user lists are read on every
// GET /users and by several blocks of every POST /register.
//
// Transactions that miss the same version at once read the list once:
// the blocks of a register, read side by side, would otherwise each read
// the 10 000 users of an organization whose list a write just changed.
//
// The lists it returns are shared: callers copy what they return or keep.
type realmCache[T any] struct {
	// clone copies a list so that the copy shares nothing modifiable: the
	// cache keeps such a copy of what a reader read.
	clone   func([]T) []T
	mu      sync.Mutex
	realms  map[int64]cachedList[T]
	loading map[int64]*listLoad[T]
}

type cachedList[T any] struct {
	version int64
	list    []T // never modified
}

// listLoad is a read of a realm's list in progress, which others of the
// same version wait for.
type listLoad[T any] struct {
	version int64
	done    chan struct{}
	list    []T
	err     error
}

// get returns the realm's cached list if it has the version.
func (c *realmCache[T]) get(realmID, version int64) ([]T, bool) {
	c.mu.Lock()
	e, ok := c.realms[realmID]
	c.mu.Unlock()
	if !ok || e.version != version {
		return nil, false
	}
	return e.list, true
}

// load returns the realm's list at version: the cached one, the one
// another transaction is reading, or the one read reads (a read of
// committed data only), which then fills the cache.
func (c *realmCache[T]) load(realmID, version int64, read func() ([]T, error)) ([]T, error) {
	c.mu.Lock()
	if e, ok := c.realms[realmID]; ok && e.version == version {
		c.mu.Unlock()
		return e.list, nil
	}
	if l, ok := c.loading[realmID]; ok && l.version == version {
		c.mu.Unlock()
		<-l.done
		if l.err != nil {
			return read()
		}
		return l.list, nil
	}
	l := &listLoad[T]{version: version, done: make(chan struct{})}
	if c.loading == nil {
		c.loading = map[int64]*listLoad[T]{}
	}
	c.loading[realmID] = l
	c.mu.Unlock()

	list, err := read()
	if err == nil {
		l.list = c.clone(list)
	}
	l.err = err
	c.mu.Lock()
	if c.loading[realmID] == l {
		delete(c.loading, realmID)
	}
	if err == nil {
		if c.realms == nil {
			c.realms = map[int64]cachedList[T]{}
		}
		c.realms[realmID] = cachedList[T]{version: version, list: l.list}
	}
	c.mu.Unlock()
	close(l.done)
	return list, err
}

// pick returns a fresh slice of the users whose IDs are in ids (all of them
// when ids is nil), ordered by ID and without duplicates. A UserRecord holds
// no pointers but immutable strings, so a shallow copy does not alias the
// cache.
func pick(users []storage.UserRecord, ids []int64) []storage.UserRecord {
	if ids == nil {
		return slices.Clone(users)
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	want = slices.Compact(want)
	out := make([]storage.UserRecord, 0, len(want))
	for _, id := range want {
		i, found := slices.BinarySearchFunc(users, id, func(u storage.UserRecord, id int64) int {
			switch {
			case u.ID < id:
				return -1
			case u.ID > id:
				return 1
			}
			return 0
		})
		if found {
			out = append(out, users[i])
		}
	}
	return out
}

// cloneChannels copies channels with their group settings' lists, so that
// the copy shares nothing that can be modified.
func cloneChannels(channels []storage.Channel) []storage.Channel {
	out := make([]storage.Channel, len(channels))
	for i := range channels {
		out[i] = channels[i].Clone()
	}
	return out
}
