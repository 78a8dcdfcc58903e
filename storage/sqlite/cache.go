package sqlite

import (
	"slices"
	"sync"

	"github.com/teamchat/chat/storage"
)

// usersCache keeps each realm's full user list, tagged with the realm's
// users_version when it was read. A trigger bumps users_version in the same
// transaction as every write to the realm's users, whichever process makes
// it, so a cached list is exactly the committed list while the versions
// match; a transaction that reads the version learns whether the cache
// holds what it would read itself. Reading 100 000 rows costs far more than
// copying them, and user lists are read on every GET /users.
type usersCache struct {
	mu     sync.Mutex
	realms map[int64]cachedUsers
}

type cachedUsers struct {
	version int64
	users   []storage.UserRecord // ordered by ID; never modified
}

// get returns the realm's cached list if it has the version.
func (c *usersCache) get(realmID, version int64) ([]storage.UserRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.realms[realmID]
	if !ok || e.version != version {
		return nil, false
	}
	return e.users, true
}

// put caches a copy of the realm's committed list at the version.
func (c *usersCache) put(realmID, version int64, users []storage.UserRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.realms == nil {
		c.realms = map[int64]cachedUsers{}
	}
	c.realms[realmID] = cachedUsers{version: version, users: slices.Clone(users)}
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

// channelsCache keeps each realm's channel list as usersCache keeps its
// users, tagged with the realm's channels_version, which a trigger bumps
// with every write to the realm's channels.
type channelsCache struct {
	mu     sync.Mutex
	realms map[int64]cachedChannels
}

type cachedChannels struct {
	version  int64
	channels []storage.Channel // ordered by ID; never modified
}

// get returns a copy of the realm's cached list if it has the version.
func (c *channelsCache) get(realmID, version int64) ([]storage.Channel, bool) {
	c.mu.Lock()
	e, ok := c.realms[realmID]
	c.mu.Unlock()
	if !ok || e.version != version {
		return nil, false
	}
	return cloneChannels(e.channels), true
}

// put caches a copy of the realm's committed list at the version.
func (c *channelsCache) put(realmID, version int64, channels []storage.Channel) {
	kept := cloneChannels(channels)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.realms == nil {
		c.realms = map[int64]cachedChannels{}
	}
	c.realms[realmID] = cachedChannels{version: version, channels: kept}
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
