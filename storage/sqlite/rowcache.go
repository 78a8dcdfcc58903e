package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/teamchat/chat/storage"
)

// Nearly every write transaction starts by reading the acting user and
// their organization, and a reaction also reads the message, its
// recipients and the realm's emoji; for such a small write those reads
// cost more than the write. The writer connection therefore keeps the
// rows its transactions read, for as long as nothing can have changed
// them:
//
//   - another connection's commit (another process, a tool) changes the
//     connection's PRAGMA data_version, read at the start of every write
//     transaction, once it holds the write lock, so nobody can commit
//     until it ends; a new value empties the cache;
//   - the rows are tied to the driver connection they were read on, since
//     data_version values of different connections are not comparable
//     (database/sql replaces a connection that broke);
//   - a transaction that writes a row drops it from the cache and reads
//     it from the database for the rest of the transaction without
//     keeping it, so that nothing it wrote, committed or rolled back, is
//     kept; once it has committed, the cache takes the users it updated
//     as UpdateUser stored them. The statements that write these tables
//     are few, and each notes what it writes: realms (CreateRealm,
//     UpdateRealm), users (CreateUser, UpdateUser), messages
//     (CreateMessages, UpdateMessage, DeleteMessages), user_messages
//     (CreateUserMessages, UpdateUserMessageFlags, and DeleteMessages
//     through ON DELETE CASCADE)
//     and realm_emoji (CreateRealmEmoji, UpdateRealmEmoji);
//   - a channel's active subscribers (ActiveSubscribers, a join of
//     subscriptions and users read by every channel message: 1.6 ms of
//     the writer's time for a channel of 1 000) change with subscriptions
//     (CreateSubscriptions, DeleteSubscription name their channels) and
//     with a user's activity (UpdateUser, which forgets every channel's).
//
// Rows read by a transaction that did not write them are those of the
// last commit, so they stay right whether it commits or not.

// maxCachedRows bounds each set; a full set starts over.
const maxCachedRows = 4096

// maxCachedWeight bounds the weight of a set whose values weigh more than
// one (the subscribers of 4 096 channels of 10 000 would otherwise be 320
// MB): a set that would weigh more starts over.
const maxCachedWeight = 1 << 20

// rowSet is the cached rows of one kind, by key.
type rowSet[K comparable, V any] struct {
	rows map[K]V
	// wrote are the keys the current transaction wrote; wroteAll says it
	// wrote rows it did not name.
	wrote    map[K]bool
	wroteAll bool
	// clone copies a value, so that callers never share one.
	clone func(V) V
	// weigh, when not nil, gives a value's weight (a list's length), and
	// weight is the sum over rows.
	weigh  func(V) int
	weight int
}

func (s *rowSet[K, V]) reset() {
	s.rows, s.wrote, s.wroteAll = make(map[K]V), make(map[K]bool), false
	s.weight = 0
}

// weightOf is v's weight: one without weigh.
func (s *rowSet[K, V]) weightOf(v V) int {
	if s.weigh == nil {
		return 1
	}
	return s.weigh(v)
}

// drop removes the row of k, if any.
func (s *rowSet[K, V]) drop(k K) {
	if old, ok := s.rows[k]; ok {
		s.weight -= s.weightOf(old)
		delete(s.rows, k)
	}
}

func (s *rowSet[K, V]) get(k K) (V, bool) {
	v, ok := s.rows[k]
	if ok && s.clone != nil {
		v = s.clone(v)
	}
	return v, ok
}

func (s *rowSet[K, V]) put(k K, v V) {
	if s.wroteAll || s.wrote[k] {
		return
	}
	s.drop(k)
	w := s.weightOf(v)
	if w > maxCachedWeight {
		return
	}
	if len(s.rows) >= maxCachedRows || s.weight+w > maxCachedWeight {
		s.rows, s.weight = make(map[K]V), 0
	}
	if s.clone != nil {
		v = s.clone(v)
	}
	s.rows[k] = v
	s.weight += w
}

func (s *rowSet[K, V]) write(k K) {
	s.drop(k)
	s.wrote[k] = true
}

func (s *rowSet[K, V]) writeAll() {
	s.rows, s.weight = make(map[K]V), 0
	s.wroteAll = true
}

// emojiKey names a realm emoji lookup by name.
type emojiKey struct {
	realmID int64
	name    string
}

// emojiRow is the answer of a lookup by name: found is false for none.
type emojiRow struct {
	emoji storage.RealmEmoji
	found bool
}

// activeSubscribers are a channel's active subscribers as ActiveSubscribers
// read them for a realm, in user ID order.
type activeSubscribers struct {
	realmID int64
	userIDs []int64
}

func cloneSubscribers(a activeSubscribers) activeSubscribers {
	a.userIDs = slices.Clone(a.userIDs)
	return a
}

// rowCache is the writer's cache. Write transactions run one at a time on
// the single writer connection; the mutex only orders them for the race
// detector's sake and is never contended.
type rowCache struct {
	mu         sync.Mutex
	conn       any // the driver connection the rows were read on
	version    int64
	realms     rowSet[int64, storage.Realm]
	users      rowSet[int64, storage.UserRecord]
	messages   rowSet[int64, storage.MessageRecord]
	recipients rowSet[int64, []storage.UserMessage] // by message, in user order
	emoji      rowSet[emojiKey, emojiRow]
	// subscribers are ActiveSubscribers' answers, by channel.
	subscribers rowSet[int64, activeSubscribers]
	// updatedUsers are the users the current transaction updated, as a
	// read would return them.
	updatedUsers map[int64]storage.UserRecord
}

// lock locks c and returns its unlock, or nil for the nil cache of a read
// transaction.
func (c *rowCache) lock() func() {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	return c.mu.Unlock
}

// empty forgets every row. The sets of lists are weighed by their
// length: a message's recipients and a channel's subscribers.
func (c *rowCache) empty() {
	c.realms.reset()
	c.users.reset()
	c.messages = rowSet[int64, storage.MessageRecord]{clone: cloneMessage}
	c.messages.reset()
	c.recipients = rowSet[int64, []storage.UserMessage]{clone: slices.Clone[[]storage.UserMessage],
		weigh: func(rows []storage.UserMessage) int { return max(1, len(rows)) }}
	c.recipients.reset()
	c.emoji.reset()
	c.subscribers = rowSet[int64, activeSubscribers]{clone: cloneSubscribers,
		weigh: func(a activeSubscribers) int { return max(1, len(a.userIDs)) }}
	c.subscribers.reset()
}

// begin starts a write transaction that holds the write lock on conn: it
// empties the cache unless conn and its data_version are those of the
// rows, and reports whether it did.
func (c *rowCache) begin(ctx context.Context, conn any, sqlTx *sql.Tx, dataVersion *sql.Stmt) (bool, error) {
	var version int64
	if err := sqlTx.StmtContext(ctx, dataVersion).QueryRowContext(ctx).Scan(&version); err != nil {
		return false, fmt.Errorf("sqlite: read data_version: %w", err)
	}
	defer c.lock()()
	reset := c.conn != conn || c.version != version || c.updatedUsers == nil
	if reset {
		c.empty()
		c.conn, c.version = conn, version
	}
	for _, s := range []interface{ endTx() }{&c.realms, &c.users, &c.messages, &c.recipients, &c.emoji, &c.subscribers} {
		s.endTx()
	}
	c.updatedUsers = make(map[int64]storage.UserRecord)
	return reset, nil
}

// endTx forgets what the previous transaction wrote.
func (s *rowSet[K, V]) endTx() {
	clear(s.wrote)
	s.wroteAll = false
}

func cloneMessage(m storage.MessageRecord) storage.MessageRecord {
	m.DirectUserIDs = slices.Clone(m.DirectUserIDs)
	return m
}

// committed takes the users the committed transaction updated: the next
// transaction need not read them back.
func (c *rowCache) committed() {
	defer c.lock()()
	for id, u := range c.updatedUsers {
		delete(c.users.wrote, id)
		c.users.put(id, u)
	}
	clear(c.updatedUsers)
}

// updatedUser notes a user as the transaction's update stored it.
func (c *rowCache) updatedUser(u storage.UserRecord) {
	if unlock := c.lock(); unlock != nil {
		defer unlock()
		c.updatedUsers[u.ID] = u
	}
}

// cached reads a row of set from c, when c is a writer's cache.
func cached[K comparable, V any](c *rowCache, set func(*rowCache) *rowSet[K, V], k K) (V, bool) {
	unlock := c.lock()
	if unlock == nil {
		var zero V
		return zero, false
	}
	defer unlock()
	return set(c).get(k)
}

// keep puts a row read from the database into set.
func keep[K comparable, V any](c *rowCache, set func(*rowCache) *rowSet[K, V], k K, v V) {
	if unlock := c.lock(); unlock != nil {
		defer unlock()
		set(c).put(k, v)
	}
}

// wrote notes that the transaction writes the rows of set with keys ks.
func wrote[K comparable, V any](c *rowCache, set func(*rowCache) *rowSet[K, V], ks ...K) {
	if unlock := c.lock(); unlock != nil {
		defer unlock()
		for _, k := range ks {
			set(c).write(k)
		}
	}
}

// wroteAll notes that the transaction writes rows of set it does not name.
func wroteAll[K comparable, V any](c *rowCache, set func(*rowCache) *rowSet[K, V]) {
	if unlock := c.lock(); unlock != nil {
		defer unlock()
		set(c).writeAll()
	}
}

// The sets, for the generic functions above.
func realmRows(c *rowCache) *rowSet[int64, storage.Realm]             { return &c.realms }
func userRows(c *rowCache) *rowSet[int64, storage.UserRecord]         { return &c.users }
func messageRows(c *rowCache) *rowSet[int64, storage.MessageRecord]   { return &c.messages }
func recipientRows(c *rowCache) *rowSet[int64, []storage.UserMessage] { return &c.recipients }
func emojiRows(c *rowCache) *rowSet[emojiKey, emojiRow]               { return &c.emoji }
func subscriberRows(c *rowCache) *rowSet[int64, activeSubscribers]    { return &c.subscribers }
