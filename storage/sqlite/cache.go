package sqlite

import (
	"cmp"
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
// A write transaction of this process that changes a list whose cached
// version it saw before its first change hands its changes to the cache
// when it commits (patch), and the cache moves to the version it left: a
// register after a user joins would otherwise read the organization's
// 10 000 users again. The changes are merged into the list on its next
// read, once, so that a write never pays for copying the list.
//
// The lists it returns are shared: callers copy what they return or keep.
type realmCache[T any] struct {
	// clone copies a list so that the copy shares nothing modifiable: the
	// cache keeps such a copy of what a reader read.
	clone func([]T) []T
	// merge returns a new list: list with changes applied in order, each
	// replacing the element of its ID or joining the list. Nil means
	// the cache takes no patches.
	merge   func(list, changes []T) []T
	mu      sync.Mutex
	realms  map[int64]cachedList[T]
	loading map[int64]*listLoad[T]
}

type cachedList[T any] struct {
	version int64
	list    []T // never modified
	// pending are changes committed since list was read, to merge into
	// it on its next read.
	pending []T
}

// current returns the list of e with its pending changes merged, and
// stores the merged list; c.mu is held.
func (c *realmCache[T]) current(realmID int64, e cachedList[T]) []T {
	if len(e.pending) == 0 {
		return e.list
	}
	e.list, e.pending = c.merge(e.list, e.pending), nil
	c.realms[realmID] = e
	return e.list
}

// holds reports whether the cache has a list of the realm, of any version.
func (c *realmCache[T]) holds(realmID int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.realms[realmID]
	return ok
}

// patch records that a committed write transaction took the realm's list
// from version from to version to with changes (the stored forms of the
// elements it wrote, in order), when the cache holds version from; else
// the next read reads the list again.
func (c *realmCache[T]) patch(realmID, from, to int64, changes []T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.realms[realmID]
	if !ok || e.version != from || c.merge == nil {
		return
	}
	if len(e.pending)+len(changes) > maxPending(len(e.list)) {
		// Writes with no read between them: the next read reads the
		// list again, rather than the cache holding every change.
		delete(c.realms, realmID)
		return
	}
	e.version = to
	e.pending = append(slices.Clip(e.pending), changes...)
	c.realms[realmID] = e
}

// maxPending bounds the changes a cached list of n elements holds before
// its next read: an eighth of the list, at least 64, so that the changes
// never cost more memory than a small part of the list itself.
func maxPending(n int) int { return max(64, n/8) }

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
	defer c.mu.Unlock()
	e, ok := c.realms[realmID]
	if !ok || e.version != version {
		return nil, false
	}
	return c.current(realmID, e), true
}

// load returns the realm's list at version: the cached one, the one
// another transaction is reading, or the one read reads (a read of
// committed data only), which then fills the cache.
func (c *realmCache[T]) load(realmID, version int64, read func() ([]T, error)) ([]T, error) {
	c.mu.Lock()
	if e, ok := c.realms[realmID]; ok && e.version == version {
		list := c.current(realmID, e)
		c.mu.Unlock()
		return list, nil
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

// mergeUsers returns a copy of users, ordered by ID, with changes applied
// in order: a user of the list replaced, a new one inserted at its place
// (at the end, for a user just created).
func mergeUsers(users, changes []storage.UserRecord) []storage.UserRecord {
	out := make([]storage.UserRecord, len(users), len(users)+len(changes))
	copy(out, users)
	for _, ch := range changes {
		i, found := slices.BinarySearchFunc(out, ch.ID, func(u storage.UserRecord, id int64) int { return cmp.Compare(u.ID, id) })
		if found {
			out[i] = ch
		} else {
			out = slices.Insert(out, i, ch)
		}
	}
	return out
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
