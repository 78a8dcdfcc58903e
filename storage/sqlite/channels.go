package sqlite

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// The channel area's statements are prepared once per Store (the query
// enum of tx.go). Lists of IDs or keys travel as one JSON array read with
// json_each, and new subscriptions are inserted subBatch rows per statement,
// so a request that subscribes thousands of users costs few round trips.
// The minimal message store at the end still runs its statements by text.

// exec runs a write statement given by text.
func (t *tx) exec(op, query string, args ...any) (sql.Result, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	t.queries.Add(1)
	res, err := t.execText(query, args...)
	return res, t.check(op, err)
}

// query runs a read statement given by text and calls scan for each row.
func (t *tx) query(op, query string, scan func(scanner) error, args ...any) error {
	t.queries.Add(1)
	rows, err := t.queryText(query, args...)
	return t.scanRows(op, rows, err, scan)
}

// execQ runs a prepared write statement.
func (t *tx) execQ(op string, q query, args ...any) (sql.Result, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	res, err := t.stmt(q).ExecContext(t.ctx, args...)
	return res, t.check(op, err)
}

// queryQ runs a prepared read statement and calls scan for each row.
func (t *tx) queryQ(op string, q query, scan func(scanner) error, args ...any) error {
	rows, err := t.stmt(q).QueryContext(t.ctx, args...)
	return t.scanRows(op, rows, err, scan)
}

func (t *tx) scanRows(op string, rows *sql.Rows, err error, scan func(scanner) error) error {
	if err != nil {
		return t.check(op, err)
	}
	defer rows.Close()
	return t.check(op, sqlcommon.EachRow(rows, scan))
}

// affected turns "no row changed" into storage.ErrNotFound.
func (t *tx) affected(op string, res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return t.check(op, err)
	}
	if n == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// Groups.

// CreateUserGroups inserts the groups inside a savepoint, so that a name
// conflict on a later group leaves none of them stored.
func (t *tx) CreateUserGroups(gs []*storage.UserGroup) error {
	return t.savepoint("CreateUserGroups", len(gs), func() error { return t.createUserGroups(gs) })
}

func (t *tx) createUserGroups(gs []*storage.UserGroup) error {
	for _, g := range gs {
		created, err := sqlcommon.ToNanos(g.DateCreated)
		if err != nil {
			return err
		}
		res, err := t.execQ("CreateUserGroups", qCreateUserGroup, g.RealmID, g.Name, g.Description,
			b2i(g.IsSystem), g.CreatorID, created, b2i(g.Deactivated), jsonIDs(g.Members), jsonIDs(g.Subgroups),
			sqlcommon.UserGroupSettingsText(g.Settings))
		if err != nil {
			return err
		}
		if g.ID, err = res.LastInsertId(); err != nil {
			return t.check("CreateUserGroups", err)
		}
	}
	return nil
}

func (t *tx) UpdateUserGroup(g storage.UserGroup) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.exec("UpdateUserGroup", `UPDATE user_groups SET name = ?, description = ?, deactivated = ?,
		members = ?, subgroups = ?, settings = ? WHERE id = ?`, g.Name, g.Description, b2i(g.Deactivated),
		jsonIDs(g.Members), jsonIDs(g.Subgroups), sqlcommon.UserGroupSettingsText(g.Settings), g.ID)
	if err != nil {
		return err
	}
	return t.affected("UpdateUserGroup", res)
}

func (t *tx) UserGroups(realmID int64) ([]storage.UserGroup, error) {
	out := []storage.UserGroup{}
	err := t.queryQ("UserGroups", qUserGroups, into(&out, sqlcommon.ScanUserGroup), realmID)
	return out, err
}

// Channels.

// channelArgs returns the column values of c from name on, with name_key
// after name.
func channelArgs(c *storage.Channel) ([]any, error) {
	created, err := sqlcommon.ToNanos(c.DateCreated)
	if err != nil {
		return nil, err
	}
	return append([]any{c.Name, storage.ChannelNameKey(c.Name), c.Description, c.RenderedDescription, created, c.CreatorID,
		b2i(c.InviteOnly), b2i(c.IsWebPublic), b2i(c.HistoryPublicToSubscribers), b2i(c.IsDefault),
		int64(c.MessageRetentionDays), string(c.TopicsPolicy), c.FolderID, c.FirstMessageID, b2i(c.IsArchived),
	}, sqlcommon.ChannelGroupArgs(c)...), nil
}

func (t *tx) channels(op string, q query, args ...any) ([]storage.Channel, error) {
	out := []storage.Channel{}
	err := t.queryQ(op, q, into(&out, sqlcommon.ScanChannel), args...)
	return out, err
}

// CreateChannels inserts the channels one by one inside a savepoint, so
// that a name conflict on a later channel leaves none of them stored.
func (t *tx) CreateChannels(cs []*storage.Channel) error {
	return t.savepoint("CreateChannels", len(cs), func() error {
		for _, c := range cs {
			args, err := channelArgs(c)
			if err != nil {
				return err
			}
			res, err := t.execQ("CreateChannels", qCreateChannel, append([]any{c.RealmID}, args...)...)
			if err != nil {
				return err
			}
			if c.ID, err = res.LastInsertId(); err != nil {
				return t.check("CreateChannels", err)
			}
		}
		return nil
	})
}

// savepoint runs fn, which runs statements writes, inside a savepoint that
// is rolled back when fn fails, which undoes fn's statements only (the
// transaction goes on). A single statement needs none: SQLite undoes a
// failed statement whole.
func (t *tx) savepoint(op string, statements int, fn func() error) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if statements <= 1 {
		return fn()
	}
	if _, err := t.tx.ExecContext(t.ctx, `SAVEPOINT batch`); err != nil {
		return t.check(op, err)
	}
	if err := fn(); err != nil {
		if _, rbErr := t.tx.ExecContext(t.ctx, `ROLLBACK TO batch; RELEASE batch`); rbErr != nil {
			return t.check(op, rbErr)
		}
		return err
	}
	_, err := t.tx.ExecContext(t.ctx, `RELEASE batch`)
	return t.check(op, err)
}

func (t *tx) Channel(id int64) (storage.Channel, error) {
	c, err := t.channels("Channel", qChannel, id)
	if err != nil {
		return storage.Channel{}, err
	}
	if len(c) == 0 {
		return storage.Channel{}, storage.ErrNotFound
	}
	return c[0], nil
}

func (t *tx) ChannelsByName(realmID int64, keys []string) ([]storage.Channel, error) {
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	return t.channels("ChannelsByName", qChannelsByName, realmID, string(list))
}

// Channels answers from the channel-list cache when the realm's
// channels_version says it holds the realm's channels as this
// transaction sees them.
func (t *tx) Channels(realmID int64) ([]storage.Channel, error) {
	var version int64
	err := t.stmt(qChannelsVersion).QueryRowContext(t.ctx, realmID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return []storage.Channel{}, nil
	}
	if err != nil {
		return nil, t.check("Channels", err)
	}
	if cached, ok := t.channelCache.get(realmID, version); ok {
		return cloneChannels(cached), nil
	}
	read := func() ([]storage.Channel, error) { return t.channels("Channels", qChannels, realmID) }
	if !t.ReadOnly {
		// Only a read-only transaction sees nothing but committed data, so
		// only it may fill the cache.
		return read()
	}
	all, err := t.channelCache.load(realmID, version, read)
	if err != nil {
		return nil, err
	}
	return cloneChannels(all), nil
}

func (t *tx) UpdateChannel(c storage.Channel) error {
	args, err := channelArgs(&c)
	if err != nil {
		return err
	}
	res, err := t.execQ("UpdateChannel", qUpdateChannel, append(args, c.ID)...)
	if err != nil {
		return err
	}
	return t.affected("UpdateChannel", res)
}

// Subscriptions.

const (
	insertSubs = `INSERT INTO subscriptions (` + sqlcommon.SubscriptionColumns + `) VALUES `
	subRow     = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// subBatch is the number of rows of one qCreateSubscriptions: 640
	// parameters, well under SQLite's limit of 32 766.
	subBatch = 64
)

// subRows is subBatch rows of placeholders.
var subRows = subRow + strings.Repeat(", "+subRow, subBatch-1)

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return b2i(*b)
}

func (t *tx) subs(op string, q query, args ...any) ([]storage.Subscription, error) {
	out := []storage.Subscription{}
	err := t.queryQ(op, q, into(&out, sqlcommon.ScanSubscription), args...)
	return out, err
}

// appendSubArgs appends the column values of s.
func appendSubArgs(args []any, s *storage.Subscription) []any {
	return append(args, s.UserID, s.ChannelID, s.Color, b2i(s.IsMuted), b2i(s.PinToTop),
		nullBool(s.DesktopNotifications), nullBool(s.AudibleNotifications), nullBool(s.PushNotifications),
		nullBool(s.EmailNotifications), nullBool(s.WildcardMentionsNotify))
}

// CreateSubscriptions inserts subBatch rows per statement, then the rest
// one by one, in the order of the table's key (user, channel), which
// writes each B-tree page once. A failed statement undoes itself; when one
// fails, the rows of the statements before it are deleted again, so that
// the call stores none. (A savepoint would do the same, but SQLite then journals every
// statement into one growing journal, which costs far more on the path that
// matters.)
func (t *tx) CreateSubscriptions(subs []storage.Subscription) error {
	if err := t.Writable(); err != nil || len(subs) == 0 {
		return err
	}
	subs = slices.Clone(subs)
	channels := make([]int64, len(subs))
	for i, sub := range subs {
		channels[i] = sub.ChannelID
	}
	wrote(t.rows, subscriberRows, channels...)
	slices.SortFunc(subs, func(a, b storage.Subscription) int {
		if c := cmp.Compare(a.UserID, b.UserID); c != 0 {
			return c
		}
		return cmp.Compare(a.ChannelID, b.ChannelID)
	})
	args := make([]any, 0, 10*subBatch)
	done := 0
	var err error
	for err == nil && done < len(subs) {
		args = args[:0]
		q, n := qCreateSubscriptions, subBatch
		if len(subs)-done < subBatch {
			q, n = qCreateSubscription, 1
		}
		for i := range n {
			args = appendSubArgs(args, &subs[done+i])
		}
		if _, err = t.execQ("CreateSubscriptions", q, args...); err == nil {
			done += n
		}
	}
	if err != nil && t.Failed == nil {
		for i := range done {
			if _, delErr := t.execQ("CreateSubscriptions", qDeleteSubscription, subs[i].UserID, subs[i].ChannelID); delErr != nil {
				return delErr
			}
		}
	}
	return err
}

func (t *tx) SubscriptionsOfUsers(userIDs []int64) ([]storage.Subscription, error) {
	if len(userIDs) == 0 {
		return []storage.Subscription{}, nil
	}
	return t.subs("SubscriptionsOfUsers", qSubscriptionsOfUsers, jsonIDs(userIDs))
}

func (t *tx) SubscriptionColors(userIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(userIDs) == 0 {
		return out, nil
	}
	err := t.queryQ("SubscriptionColors", qSubscriptionColors, func(sc scanner) error {
		var (
			id    int64
			color string
		)
		err := sc.Scan(&id, &color)
		out[id] = append(out[id], color)
		return err
	}, jsonIDs(userIDs))
	return out, err
}

func (t *tx) ChannelSubscriptions(channelIDs []int64) ([]storage.Subscription, error) {
	if len(channelIDs) == 0 {
		return []storage.Subscription{}, nil
	}
	return t.subs("ChannelSubscriptions", qChannelSubscriptions, jsonIDs(channelIDs))
}

func (t *tx) SubscriberCounts(channelIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(channelIDs) == 0 {
		return out, nil
	}
	err := t.query("SubscriberCounts", `SELECT channel_id, count(*) FROM subscriptions
		WHERE channel_id IN (SELECT value FROM json_each(?)) GROUP BY channel_id`, func(sc scanner) error {
		var ch, n int64
		if err := sc.Scan(&ch, &n); err != nil {
			return err
		}
		out[ch] = int(n)
		return nil
	}, jsonIDs(channelIDs))
	return out, err
}

// ActiveSubscribers reads the subscriptions' index of (channel, user) and
// each user's row, never the subscriptions' own rows. A write transaction
// takes the channels it read before from the writer's cache (rowcache.go).
func (t *tx) ActiveSubscribers(realmID int64, channelIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	var missing []int64
	for _, id := range channelIDs {
		if a, ok := cached(t.rows, subscriberRows, id); ok && a.realmID == realmID {
			if len(a.userIDs) > 0 {
				out[id] = a.userIDs
			}
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	err := t.query("ActiveSubscribers", `SELECT s.channel_id, s.user_id FROM subscriptions AS s JOIN users AS u ON u.id = s.user_id
		WHERE s.channel_id IN (SELECT value FROM json_each(?)) AND u.realm_id = ? AND u.is_active
		ORDER BY s.channel_id, s.user_id`, func(sc scanner) error {
		var ch, user int64
		if err := sc.Scan(&ch, &user); err != nil {
			return err
		}
		out[ch] = append(out[ch], user)
		return nil
	}, jsonIDs(missing), realmID)
	if err != nil {
		return nil, err
	}
	for _, id := range missing {
		keep(t.rows, subscriberRows, id, activeSubscribers{realmID: realmID, userIDs: out[id]})
	}
	return out, nil
}

func (t *tx) UpdateSubscription(s storage.Subscription) error {
	res, err := t.execQ("UpdateSubscription", qUpdateSubscription, s.Color, b2i(s.IsMuted), b2i(s.PinToTop),
		nullBool(s.DesktopNotifications), nullBool(s.AudibleNotifications), nullBool(s.PushNotifications),
		nullBool(s.EmailNotifications), nullBool(s.WildcardMentionsNotify), s.UserID, s.ChannelID)
	if err != nil {
		return err
	}
	return t.affected("UpdateSubscription", res)
}

func (t *tx) DeleteSubscription(userID, channelID int64) error {
	wrote(t.rows, subscriberRows, channelID)
	res, err := t.execQ("DeleteSubscription", qDeleteSubscription, userID, channelID)
	if err != nil {
		return err
	}
	return t.affected("DeleteSubscription", res)
}

// Folders.

func (t *tx) folders(op string, q query, args ...any) ([]storage.ChannelFolder, error) {
	out := []storage.ChannelFolder{}
	err := t.queryQ(op, q, into(&out, sqlcommon.ScanFolder), args...)
	return out, err
}

func (t *tx) CreateChannelFolder(f *storage.ChannelFolder) error {
	created, err := sqlcommon.ToNanos(f.DateCreated)
	if err != nil {
		return err
	}
	res, err := t.execQ("CreateChannelFolder", qCreateChannelFolder, f.RealmID, f.Name, f.Description,
		f.RenderedDescription, f.CreatorID, created, b2i(f.IsArchived), f.Order)
	if err != nil {
		return err
	}
	if f.ID, err = res.LastInsertId(); err != nil {
		return t.check("CreateChannelFolder", err)
	}
	return nil
}

func (t *tx) ChannelFolder(id int64) (storage.ChannelFolder, error) {
	fs, err := t.folders("ChannelFolder", qChannelFolder, id)
	if err != nil {
		return storage.ChannelFolder{}, err
	}
	if len(fs) == 0 {
		return storage.ChannelFolder{}, storage.ErrNotFound
	}
	return fs[0], nil
}

func (t *tx) ChannelFolders(realmID int64) ([]storage.ChannelFolder, error) {
	return t.folders("ChannelFolders", qChannelFolders, realmID)
}

func (t *tx) UpdateChannelFolder(f storage.ChannelFolder) error {
	created, err := sqlcommon.ToNanos(f.DateCreated)
	if err != nil {
		return err
	}
	res, err := t.execQ("UpdateChannelFolder", qUpdateChannelFolder, f.Name, f.Description, f.RenderedDescription,
		f.CreatorID, created, b2i(f.IsArchived), f.Order, f.ID)
	if err != nil {
		return err
	}
	return t.affected("UpdateChannelFolder", res)
}

// User topics.

func (t *tx) userTopics(op string, q query, args ...any) ([]storage.UserTopic, error) {
	out := []storage.UserTopic{}
	err := t.queryQ(op, q, sqlcommon.Into(&out, sqlcommon.ScanUserTopic), args...)
	return out, err
}

func (t *tx) SetUserTopic(ut storage.UserTopic) error {
	key := storage.TopicKey(ut.Topic)
	if ut.VisibilityPolicy == storage.TopicInherit {
		_, err := t.execQ("SetUserTopic", qDeleteUserTopic, ut.UserID, ut.ChannelID, key)
		return err
	}
	updated, err := sqlcommon.ToNanos(ut.LastUpdated)
	if err != nil {
		return err
	}
	_, err = t.execQ("SetUserTopic", qSetUserTopic, ut.UserID, ut.ChannelID, key, ut.Topic,
		int64(ut.VisibilityPolicy), updated)
	return err
}

func (t *tx) UserTopic(userID, channelID int64, key string) (storage.UserTopic, error) {
	uts, err := t.userTopics("UserTopic", qUserTopic, userID, channelID, key)
	if err != nil {
		return storage.UserTopic{}, err
	}
	if len(uts) == 0 {
		return storage.UserTopic{}, storage.ErrNotFound
	}
	return uts[0], nil
}

func (t *tx) UserTopics(userID int64) ([]storage.UserTopic, error) {
	return t.userTopics("UserTopics", qUserTopics, userID)
}

func (t *tx) DeleteTopicUserTopics(channelID int64, key string) ([]storage.UserTopic, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	uts, err := t.userTopics("DeleteTopicUserTopics", qTopicUserTopics, channelID, key)
	if err != nil || len(uts) == 0 {
		return uts, err
	}
	_, err = t.execQ("DeleteTopicUserTopics", qDeleteTopicUserTopics, channelID, key)
	return uts, err
}
