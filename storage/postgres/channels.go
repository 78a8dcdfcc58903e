package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Groups, channels, subscriptions, folders and users' topic policies
// (messages are in messages.go). Writes of many rows go in one round trip:
// a pgx.Batch of single-row INSERTs when each row's new ID is needed, one
// INSERT ... SELECT FROM unnest of column arrays otherwise.

// insertIDs runs an INSERT ... RETURNING id once per row of args, in one
// round trip, guarded so that a unique violation stores none of the rows
// and is storage.ErrExists. set receives each new ID in order.
func (t *tx) insertIDs(op, sql string, args [][]any, set func(i int, id int64)) error {
	if len(args) == 0 {
		return t.Writable()
	}
	return t.guarded(op, func() error { return t.batchIDs(op, sql, args, set) })
}

// batchIDs is insertIDs without the savepoint, for tables without a
// uniqueness rule a row could break: any failure there breaks the
// transaction, which the savepoint's two round trips would not change.
func (t *tx) batchIDs(op, sql string, args [][]any, set func(i int, id int64)) error {
	if err := t.Writable(); err != nil || len(args) == 0 {
		return err
	}
	b := &pgx.Batch{}
	for _, a := range args {
		b.Queue(sql, a...)
	}
	res := t.tx.SendBatch(t.ctx, b)
	for i := range args {
		var id int64
		if err := res.QueryRow().Scan(&id); err != nil {
			res.Close()
			return t.check(op, err)
		}
		set(i, id)
	}
	return t.check(op, res.Close())
}

// Groups.

func (t *tx) CreateUserGroups(gs []*storage.UserGroup) error {
	args := make([][]any, len(gs))
	for i, g := range gs {
		created, err := sqlcommon.ToNanos(g.DateCreated)
		if err != nil {
			return err
		}
		args[i] = []any{g.RealmID, g.Name, g.Description, g.IsSystem, g.CreatorID, created, g.Deactivated,
			sqlcommon.OrEmpty(g.Members), sqlcommon.OrEmpty(g.Subgroups), sqlcommon.UserGroupSettingsText(g.Settings)}
	}
	return t.insertIDs("CreateUserGroups", `INSERT INTO user_groups (realm_id, name, description, is_system,
		creator_id, date_created, deactivated, members, subgroups, settings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		RETURNING id`, args, func(i int, id int64) { gs[i].ID = id })
}

func (t *tx) UpdateUserGroup(g storage.UserGroup) error {
	return t.guarded("UpdateUserGroup", func() error {
		return t.execOne("UpdateUserGroup", `UPDATE user_groups SET name = $1, description = $2, deactivated = $3,
			members = $4, subgroups = $5, settings = $6 WHERE id = $7`, g.Name, g.Description, g.Deactivated,
			sqlcommon.OrEmpty(g.Members), sqlcommon.OrEmpty(g.Subgroups), sqlcommon.UserGroupSettingsText(g.Settings), g.ID)
	})
}

func (t *tx) readUserGroups(realmID int64) ([]storage.UserGroup, error) {
	return list(t, "UserGroups", sqlcommon.SelectUserGroup+`WHERE realm_id = $1 ORDER BY id`, scanUserGroup, realmID)
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
		c.InviteOnly, c.IsWebPublic, c.HistoryPublicToSubscribers, c.IsDefault,
		int64(c.MessageRetentionDays), string(c.TopicsPolicy), c.FolderID, c.FirstMessageID, c.IsArchived,
	}, sqlcommon.ChannelGroupArgs(c)...), nil
}

func (t *tx) CreateChannels(cs []*storage.Channel) error {
	args := make([][]any, len(cs))
	for i, c := range cs {
		a, err := channelArgs(c)
		if err != nil {
			return err
		}
		args[i] = append([]any{c.RealmID}, a...)
	}
	return t.insertIDs("CreateChannels", `INSERT INTO channels (realm_id, name, name_key, description,
		rendered_description, date_created, creator_id, invite_only, is_web_public, history_public, is_default,
		retention_days, topics_policy, folder_id, first_message_id, is_archived, can_add_subscribers,
		can_remove_subscribers, can_administer, can_delete_any, can_delete_own, can_send_message, can_subscribe)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
		$21, $22, $23) RETURNING id`, args, func(i int, id int64) { cs[i].ID = id })
}

func (t *tx) Channel(id int64) (storage.Channel, error) {
	return one(t, "Channel", sqlcommon.SelectChannel+`WHERE id = $1`, scanChannel, id)
}

func (t *tx) ChannelsByName(realmID int64, keys []string) ([]storage.Channel, error) {
	return list(t, "ChannelsByName", sqlcommon.SelectChannel+`WHERE realm_id = $1 AND name_key = ANY($2) ORDER BY id`,
		scanChannel, realmID, sqlcommon.OrEmpty(keys))
}

func (t *tx) Channels(realmID int64) ([]storage.Channel, error) {
	return list(t, "Channels", sqlcommon.SelectChannel+`WHERE realm_id = $1 ORDER BY id`, scanChannel, realmID)
}

func (t *tx) UpdateChannel(c storage.Channel) error {
	args, err := channelArgs(&c)
	if err != nil {
		return err
	}
	return t.guarded("UpdateChannel", func() error {
		return t.execOne("UpdateChannel", `UPDATE channels SET name = $1, name_key = $2, description = $3,
			rendered_description = $4, date_created = $5, creator_id = $6, invite_only = $7, is_web_public = $8,
			history_public = $9, is_default = $10, retention_days = $11, topics_policy = $12, folder_id = $13,
			first_message_id = $14, is_archived = $15, can_add_subscribers = $16, can_remove_subscribers = $17,
			can_administer = $18, can_delete_any = $19, can_delete_own = $20, can_send_message = $21,
			can_subscribe = $22 WHERE id = $23`, append(args, c.ID)...)
	})
}

// Subscriptions.

// CreateSubscriptions inserts every row with one statement, the rows
// travelling as one array per column; NULL elements of the boolean arrays
// are the settings that follow the user's defaults.
func (t *tx) CreateSubscriptions(subs []storage.Subscription) error {
	if len(subs) == 0 {
		return t.Writable()
	}
	var (
		users, channels        = make([]int64, len(subs)), make([]int64, len(subs))
		colors                 = make([]string, len(subs))
		muted, pinned          = make([]bool, len(subs)), make([]bool, len(subs))
		desktop, audible, push = make([]*bool, len(subs)), make([]*bool, len(subs)), make([]*bool, len(subs))
		email, wildcard        = make([]*bool, len(subs)), make([]*bool, len(subs))
	)
	for i, s := range subs {
		users[i], channels[i], colors[i], muted[i], pinned[i] = s.UserID, s.ChannelID, s.Color, s.IsMuted, s.PinToTop
		desktop[i], audible[i], push[i] = s.DesktopNotifications, s.AudibleNotifications, s.PushNotifications
		email[i], wildcard[i] = s.EmailNotifications, s.WildcardMentionsNotify
	}
	return t.guarded("CreateSubscriptions", func() error {
		// user_active copies the user's is_active (migration 0025); an
		// unknown user still fails on the foreign key.
		_, err := t.exec("CreateSubscriptions", `INSERT INTO subscriptions (user_id, channel_id, color, is_muted,
			pin_to_top, desktop, audible, push, email, wildcard, user_active)
			SELECT r.*, COALESCE((SELECT u.is_active FROM users AS u WHERE u.id = r.user_id), true)
			FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::boolean[], $5::boolean[],
				$6::boolean[], $7::boolean[], $8::boolean[], $9::boolean[], $10::boolean[])
				AS r (user_id, channel_id, color, is_muted, pin_to_top, desktop, audible, push, email, wildcard)`,
			users, channels, colors, muted, pinned, desktop, audible, push, email, wildcard)
		return err
	})
}

func (t *tx) SubscriptionsOfUsers(userIDs []int64) ([]storage.Subscription, error) {
	if len(userIDs) == 0 {
		return []storage.Subscription{}, nil
	}
	return list(t, "SubscriptionsOfUsers", sqlcommon.SelectSubscription+`WHERE user_id = ANY($1) ORDER BY user_id, channel_id`,
		scanSub, userIDs)
}

func (t *tx) SubscriptionColors(userIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(userIDs) == 0 {
		return out, nil
	}
	rows, err := list(t, "SubscriptionColors", `SELECT DISTINCT user_id, color FROM subscriptions
		WHERE user_id = ANY($1) ORDER BY user_id, color`, func(row sqlcommon.Scanner) (userColor, error) {
		var uc userColor
		err := row.Scan(&uc.userID, &uc.color)
		return uc, err
	}, userIDs)
	for _, uc := range rows {
		out[uc.userID] = append(out[uc.userID], uc.color)
	}
	return out, err
}

type userColor struct {
	userID int64
	color  string
}

func (t *tx) ChannelSubscriptions(channelIDs []int64) ([]storage.Subscription, error) {
	if len(channelIDs) == 0 {
		return []storage.Subscription{}, nil
	}
	return list(t, "ChannelSubscriptions", sqlcommon.SelectSubscription+`WHERE channel_id = ANY($1) ORDER BY channel_id, user_id`,
		scanSub, channelIDs)
}

func (t *tx) SubscriberCounts(channelIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(channelIDs) == 0 {
		return out, nil
	}
	err := t.query("SubscriberCounts", `SELECT channel_id, count(*) FROM subscriptions
		WHERE channel_id = ANY($1) GROUP BY channel_id`, func(sc sqlcommon.Scanner) error {
		var ch, n int64
		if err := sc.Scan(&ch, &n); err != nil {
			return err
		}
		out[ch] = int(n)
		return nil
	}, channelIDs)
	return out, err
}

func (t *tx) UpdateSubscription(s storage.Subscription) error {
	return t.execOne("UpdateSubscription", `UPDATE subscriptions SET color = $1, is_muted = $2, pin_to_top = $3,
		desktop = $4, audible = $5, push = $6, email = $7, wildcard = $8 WHERE user_id = $9 AND channel_id = $10`,
		s.Color, s.IsMuted, s.PinToTop, s.DesktopNotifications, s.AudibleNotifications, s.PushNotifications,
		s.EmailNotifications, s.WildcardMentionsNotify, s.UserID, s.ChannelID)
}

func (t *tx) DeleteSubscription(userID, channelID int64) error {
	return t.execOne("DeleteSubscription", `DELETE FROM subscriptions WHERE user_id = $1 AND channel_id = $2`,
		userID, channelID)
}

// Folders.

func (t *tx) CreateChannelFolder(f *storage.ChannelFolder) error {
	created, err := sqlcommon.ToNanos(f.DateCreated)
	if err != nil {
		return err
	}
	id, err := t.insertID("CreateChannelFolder", `INSERT INTO channel_folders (realm_id, name, description,
		rendered_description, creator_id, date_created, is_archived, ord) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		RETURNING id`,
		f.RealmID, f.Name, f.Description, f.RenderedDescription, f.CreatorID, created, f.IsArchived, f.Order)
	if err != nil {
		return err
	}
	f.ID = id
	return nil
}

func (t *tx) ChannelFolder(id int64) (storage.ChannelFolder, error) {
	return one(t, "ChannelFolder", sqlcommon.SelectFolder+`WHERE id = $1`, scanFolder, id)
}

func (t *tx) ChannelFolders(realmID int64) ([]storage.ChannelFolder, error) {
	return list(t, "ChannelFolders", sqlcommon.SelectFolder+`WHERE realm_id = $1 ORDER BY ord, id`, scanFolder, realmID)
}

func (t *tx) UpdateChannelFolder(f storage.ChannelFolder) error {
	created, err := sqlcommon.ToNanos(f.DateCreated)
	if err != nil {
		return err
	}
	return t.execOne("UpdateChannelFolder", `UPDATE channel_folders SET name = $1, description = $2,
		rendered_description = $3, creator_id = $4, date_created = $5, is_archived = $6, ord = $7 WHERE id = $8`,
		f.Name, f.Description, f.RenderedDescription, f.CreatorID, created, f.IsArchived, f.Order, f.ID)
}

// User topics.

func (t *tx) SetUserTopic(ut storage.UserTopic) error {
	key := storage.TopicKey(ut.Topic)
	if ut.VisibilityPolicy == storage.TopicInherit {
		_, err := t.exec("SetUserTopic", `DELETE FROM user_topics WHERE user_id = $1 AND channel_id = $2
			AND topic_key = $3`, ut.UserID, ut.ChannelID, key)
		return err
	}
	updated, err := sqlcommon.ToNanos(ut.LastUpdated)
	if err != nil {
		return err
	}
	_, err = t.exec("SetUserTopic", `INSERT INTO user_topics (user_id, channel_id, topic_key, topic,
		visibility_policy, last_updated) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (user_id, channel_id, topic_key) DO UPDATE SET topic = excluded.topic,
		visibility_policy = excluded.visibility_policy, last_updated = excluded.last_updated`,
		ut.UserID, ut.ChannelID, key, ut.Topic, int64(ut.VisibilityPolicy), updated)
	return err
}

func (t *tx) UserTopic(userID, channelID int64, key string) (storage.UserTopic, error) {
	return one(t, "UserTopic", sqlcommon.SelectUserTopic+`WHERE user_id = $1 AND channel_id = $2 AND topic_key = $3`,
		scanUserTopic, userID, channelID, key)
}

func (t *tx) UserTopics(userID int64) ([]storage.UserTopic, error) {
	return list(t, "UserTopics", sqlcommon.SelectUserTopic+`WHERE user_id = $1 ORDER BY channel_id, topic_key`,
		scanUserTopic, userID)
}

// DeleteTopicUserTopics deletes and returns the rows with one statement.
func (t *tx) DeleteTopicUserTopics(channelID int64, key string) ([]storage.UserTopic, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	return list(t, "DeleteTopicUserTopics", `WITH gone AS (DELETE FROM user_topics
		WHERE channel_id = $1 AND topic_key = $2
		RETURNING user_id, channel_id, topic, visibility_policy, last_updated)
		SELECT * FROM gone ORDER BY user_id`, scanUserTopic, channelID, key)
}
