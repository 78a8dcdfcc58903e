package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/teamchat/chat"
)

// Nearly every write transaction starts by reading the acting user and
// their organization, and for a small write (a status, a reaction) those
// two reads cost as much as the write. The writer connection therefore
// keeps the realm and user rows its transactions read, for as long as
// nothing can have changed them:
//
//   - another connection's commit (another process, a tool) changes the
//     connection's PRAGMA data_version, read at the start of every write
//     transaction, once it holds the write lock, so nobody can commit
//     until it ends; a new value empties the cache;
//   - the rows are tied to the driver connection they were read on, since
//     data_version values of different connections are not comparable
//     (database/sql replaces a connection that broke);
//   - a transaction that writes a realm or a user (CreateRealm,
//     UpdateRealm, CreateUser, UpdateUser: the only statements that
//     change those tables) drops that row from the cache and reads it
//     from the database for the rest of the transaction without keeping
//     it, so that nothing it wrote, committed or rolled back, is kept;
//     once it has committed, the cache takes the users it updated as
//     UpdateUser stored them.
//
// Rows read by a transaction that did not write them are those of the
// last commit, so they stay right whether it commits or not.

// maxCachedRows bounds each map; a full map starts over.
const maxCachedRows = 4096

// rowCache is the writer's cache. Write transactions run one at a time on
// the single writer connection; the mutex only orders them for the race
// detector's sake and is never contended.
type rowCache struct {
	mu      sync.Mutex
	conn    any // the driver connection the rows were read on
	version int64
	realms  map[int64]chat.Realm
	users   map[int64]chat.UserRecord
	// The rows the current transaction wrote, and the users it updated
	// as a read would return them, which the cache takes if it commits.
	wroteRealms, wroteUsers map[int64]bool
	updatedUsers            map[int64]chat.UserRecord
}

// begin starts a write transaction that holds the write lock on conn: it
// empties the cache unless conn and its data_version are those of the
// rows.
func (c *rowCache) begin(ctx context.Context, conn any, sqlTx *sql.Tx, dataVersion *sql.Stmt) error {
	var version int64
	if err := sqlTx.StmtContext(ctx, dataVersion).QueryRowContext(ctx).Scan(&version); err != nil {
		return fmt.Errorf("sqlite: read data_version: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != conn || c.version != version {
		c.clear()
		c.conn, c.version = conn, version
	}
	clear(c.wroteRealms)
	clear(c.wroteUsers)
	clear(c.updatedUsers)
	return nil
}

// committed takes the users the committed transaction updated: the next
// transaction need not read them back.
func (c *rowCache) committed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, u := range c.updatedUsers {
		if len(c.users) >= maxCachedRows {
			c.users = make(map[int64]chat.UserRecord)
		}
		c.users[id] = u
	}
	clear(c.updatedUsers)
}

// updatedUser notes a user as the transaction's update stored it.
func (c *rowCache) updatedUser(u chat.UserRecord) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updatedUsers[u.ID] = u
}

func (c *rowCache) clear() {
	c.realms = make(map[int64]chat.Realm)
	c.users = make(map[int64]chat.UserRecord)
	c.wroteRealms = make(map[int64]bool)
	c.wroteUsers = make(map[int64]bool)
	c.updatedUsers = make(map[int64]chat.UserRecord)
}

// wroteRealm notes that the transaction writes the realm.
func (c *rowCache) wroteRealm(id int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.realms, id)
	c.wroteRealms[id] = true
}

// wroteUser notes that the transaction writes the user.
func (c *rowCache) wroteUser(id int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.users, id)
	c.wroteUsers[id] = true
}

func (c *rowCache) realm(id int64) (chat.Realm, bool) {
	if c == nil {
		return chat.Realm{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.realms[id]
	return r, ok
}

func (c *rowCache) putRealm(r chat.Realm) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wroteRealms[r.ID] {
		return
	}
	if len(c.realms) >= maxCachedRows {
		c.realms = make(map[int64]chat.Realm)
	}
	c.realms[r.ID] = r
}

func (c *rowCache) user(id int64) (chat.UserRecord, bool) {
	if c == nil {
		return chat.UserRecord{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	u, ok := c.users[id]
	return u, ok
}

func (c *rowCache) putUser(u chat.UserRecord) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wroteUsers[u.ID] {
		return
	}
	if len(c.users) >= maxCachedRows {
		c.users = make(map[int64]chat.UserRecord)
	}
	c.users[u.ID] = u
}
