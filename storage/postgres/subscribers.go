package postgres

import (
	"slices"
	"sync"

	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Every channel message reads its channel's active subscribers, a
// thousand rows for a channel of a thousand. The store keeps each
// channel's list with the version the channel's row carried when it was
// read (migration 27): a trigger gives the row a new version, from a
// sequence, in the transaction that changes the list, whichever process
// or tool makes the change. So a list read with a version is the list of
// every snapshot that shows that version: a transaction's own changes
// give it a version of its own, which, if it rolls back, no committed
// row ever carries. ActiveSubscribers reads the channels' versions and,
// in the same statement, the lists of those whose version the store does
// not have.
//
// Under SERIALIZABLE, reading the channel's row is what reading the
// subscriptions was: a concurrent change to the list writes that row, so
// PostgreSQL sees the same conflict.
//
// A database restored from a backup hands out versions again from where
// the backup's sequence was: restart the processes that ran on it before,
// whose lists could otherwise be taken for the restored channels'.

// maxListedSubscribers bounds the user IDs the cache holds (8 MiB); a
// list that would go over it empties the cache first.
const maxListedSubscribers = 1 << 20

// maxListedChannels bounds the channels the cache holds, whatever their
// size.
const maxListedChannels = 4096

// subscriberLists is the store's cache of channels' active subscribers.
type subscriberLists struct {
	mu       sync.Mutex
	channels map[int64]subscriberList
	weight   int // the user IDs of all lists
}

type subscriberList struct {
	version int64
	userIDs []int64 // ascending, never shared with a caller
}

// versions returns, for each channel it has, the version of its list.
func (c *subscriberLists) versions(channelIDs []int64) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int64, 0, len(channelIDs))
	for _, id := range channelIDs {
		if l, ok := c.channels[id]; ok {
			out = append(out, l.version)
		}
	}
	return out
}

// get returns a copy of the channel's list if it has the version.
func (c *subscriberLists) get(channelID, version int64) ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.channels[channelID]
	if !ok || l.version != version {
		return nil, false
	}
	return slices.Clone(l.userIDs), true
}

// put keeps a copy of the channel's list at the version, in place of any
// other.
func (c *subscriberLists) put(channelID, version int64, userIDs []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.channels[channelID]; ok {
		c.weight -= len(old.userIDs)
		delete(c.channels, channelID)
	}
	if len(userIDs) > maxListedSubscribers {
		return
	}
	if c.channels == nil || len(c.channels) >= maxListedChannels || c.weight+len(userIDs) > maxListedSubscribers {
		c.channels, c.weight = make(map[int64]subscriberList), 0
	}
	c.channels[channelID] = subscriberList{version: version, userIDs: slices.Clone(userIDs)}
	c.weight += len(userIDs)
}

// ActiveSubscribers answers from the store's lists of the channels whose
// versions it has, and reads the others' from the index of active users'
// subscriptions by (channel, user) (migration 25), in one statement that
// reads the channels' rows for their versions and organization.
func (t *tx) ActiveSubscribers(realmID int64, channelIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(channelIDs) == 0 {
		return out, nil
	}
	lost, err := t.activeSubscribers(out, realmID, channelIDs, t.lists.versions(channelIDs))
	if err == nil && len(lost) > 0 {
		// Another transaction replaced those lists between the two
		// looks: read them.
		_, err = t.activeSubscribers(out, realmID, lost, nil)
	}
	return out, err
}

// activeSubscribers adds to out the lists of the channels of the realm,
// those whose version is one of known from the store's lists, and returns
// the channels whose lists the store no longer had.
func (t *tx) activeSubscribers(out map[int64][]int64, realmID int64, channelIDs, known []int64) (lost []int64, err error) {
	if known == nil {
		known = []int64{} // not NULL, which = ANY would answer with NULL
	}
	err = t.query("ActiveSubscribers", `SELECT c.id, c.subscribers_version, c.subscribers_version = ANY($3),
			CASE WHEN c.subscribers_version = ANY($3) THEN NULL ELSE ARRAY(SELECT s.user_id FROM subscriptions AS s
				WHERE s.channel_id = c.id AND s.user_active ORDER BY s.user_id) END
		FROM channels AS c WHERE c.id = ANY($1) AND c.realm_id = $2`, func(sc sqlcommon.Scanner) error {
		var id, version int64
		var cached bool
		var users []int64
		if err := sc.Scan(&id, &version, &cached, &users); err != nil {
			return err
		}
		if cached {
			var ok bool
			if users, ok = t.lists.get(id, version); !ok {
				lost = append(lost, id)
				return nil
			}
		} else {
			t.lists.put(id, version, users)
		}
		if len(users) > 0 {
			out[id] = users
		}
		return nil
	}, channelIDs, realmID, known)
	return lost, err
}
