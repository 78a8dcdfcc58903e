package sqlite

import (
	"database/sql"
	"encoding/json"
	"strconv"

	"github.com/teamchat/chat"
)

// The channel area's statements run by text: database/sql prepares them on
// the transaction's connection. Bulk writes pass their rows as one JSON
// array to a single INSERT ... SELECT FROM json_each, so a request that
// subscribes thousands of users costs one round trip.

// exec runs a write statement.
func (t *tx) exec(op, query string, args ...any) (sql.Result, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	t.queries.Add(1)
	res, err := t.tx.ExecContext(t.ctx, query, args...)
	return res, t.check(op, err)
}

// query runs a read statement and calls scan for each row.
func (t *tx) query(op, query string, scan func(scanner) error, args ...any) error {
	t.queries.Add(1)
	rows, err := t.tx.QueryContext(t.ctx, query, args...)
	if err != nil {
		return t.check(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return t.check(op, err)
		}
	}
	return t.check(op, rows.Err())
}

// affected turns "no row changed" into chat.ErrNotFound.
func (t *tx) affected(op string, res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return t.check(op, err)
	}
	if n == 0 {
		return chat.ErrNotFound
	}
	return nil
}

func idsJSON(ids []int64) string {
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

func parseIDs(s string) ([]int64, error) {
	var ids []int64
	if err := json.Unmarshal([]byte(s), &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// Groups.

func (t *tx) CreateUserGroups(gs []*chat.UserGroup) error {
	for _, g := range gs {
		created, err := toNanos(g.DateCreated)
		if err != nil {
			return err
		}
		res, err := t.exec("CreateUserGroups", `INSERT INTO user_groups (realm_id, name, description, is_system,
			creator_id, date_created, deactivated, members, subgroups) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.RealmID, g.Name, g.Description, b2i(g.IsSystem), g.CreatorID, created, b2i(g.Deactivated),
			idsJSON(g.Members), idsJSON(g.Subgroups))
		if err != nil {
			return err
		}
		if g.ID, err = res.LastInsertId(); err != nil {
			return t.check("CreateUserGroups", err)
		}
	}
	return nil
}

func (t *tx) UserGroups(realmID int64) ([]chat.UserGroup, error) {
	out := []chat.UserGroup{}
	err := t.query("UserGroups", `SELECT id, realm_id, name, description, is_system, creator_id, date_created,
		deactivated, members, subgroups FROM user_groups WHERE realm_id = ? ORDER BY id`, func(sc scanner) error {
		var (
			g                      chat.UserGroup
			system, created, deact int64
			members, subgroups     string
		)
		if err := sc.Scan(&g.ID, &g.RealmID, &g.Name, &g.Description, &system, &g.CreatorID, &created, &deact,
			&members, &subgroups); err != nil {
			return err
		}
		g.IsSystem, g.Deactivated, g.DateCreated = system != 0, deact != 0, fromNanos(created)
		var err error
		if g.Members, err = parseIDs(members); err != nil {
			return err
		}
		if g.Subgroups, err = parseIDs(subgroups); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	}, realmID)
	return out, err
}

// Channels.

const channelColumns = `id, realm_id, name, description, rendered_description, date_created, creator_id,
	invite_only, is_web_public, history_public, is_default, retention_days, topics_policy, folder_id,
	first_message_id, is_archived, can_add_subscribers, can_remove_subscribers, can_administer,
	can_delete_any, can_delete_own, can_send_message, can_subscribe`

func groupSettingText(v chat.GroupSetting) string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// channelArgs returns the column values of c from name on, with name_key
// after name.
func channelArgs(c *chat.Channel) ([]any, error) {
	created, err := toNanos(c.DateCreated)
	if err != nil {
		return nil, err
	}
	return []any{c.Name, chat.ChannelNameKey(c.Name), c.Description, c.RenderedDescription, created, c.CreatorID,
		b2i(c.InviteOnly), b2i(c.IsWebPublic), b2i(c.HistoryPublicToSubscribers), b2i(c.IsDefault),
		int64(c.MessageRetentionDays), string(c.TopicsPolicy), c.FolderID, c.FirstMessageID, b2i(c.IsArchived),
		groupSettingText(c.CanAddSubscribersGroup), groupSettingText(c.CanRemoveSubscribersGroup),
		groupSettingText(c.CanAdministerChannelGroup), groupSettingText(c.CanDeleteAnyMessageGroup),
		groupSettingText(c.CanDeleteOwnMessageGroup), groupSettingText(c.CanSendMessageGroup),
		groupSettingText(c.CanSubscribeGroup)}, nil
}

func scanChannel(sc scanner) (chat.Channel, error) {
	var (
		c                                             chat.Channel
		created, invite, web, history, def, retain    int64
		archived                                      int64
		policy                                        string
		add, remove, admin, delAny, delOwn, send, sub string
	)
	if err := sc.Scan(&c.ID, &c.RealmID, &c.Name, &c.Description, &c.RenderedDescription, &created, &c.CreatorID,
		&invite, &web, &history, &def, &retain, &policy, &c.FolderID, &c.FirstMessageID, &archived,
		&add, &remove, &admin, &delAny, &delOwn, &send, &sub); err != nil {
		return c, err
	}
	c.DateCreated = fromNanos(created)
	c.InviteOnly, c.IsWebPublic, c.HistoryPublicToSubscribers = invite != 0, web != 0, history != 0
	c.IsDefault, c.MessageRetentionDays, c.IsArchived = def != 0, int(retain), archived != 0
	c.TopicsPolicy = chat.TopicsPolicy(policy)
	for _, f := range []struct {
		text string
		dst  *chat.GroupSetting
	}{{add, &c.CanAddSubscribersGroup}, {remove, &c.CanRemoveSubscribersGroup}, {admin, &c.CanAdministerChannelGroup},
		{delAny, &c.CanDeleteAnyMessageGroup}, {delOwn, &c.CanDeleteOwnMessageGroup}, {send, &c.CanSendMessageGroup},
		{sub, &c.CanSubscribeGroup}} {
		v, err := chat.ParseGroupSetting("value", []byte(f.text))
		if err != nil {
			return c, err
		}
		*f.dst = v
	}
	return c, nil
}

func (t *tx) channels(op, where string, args ...any) ([]chat.Channel, error) {
	out := []chat.Channel{}
	err := t.query(op, `SELECT `+channelColumns+` FROM channels `+where, func(sc scanner) error {
		c, err := scanChannel(sc)
		out = append(out, c)
		return err
	}, args...)
	return out, err
}

func (t *tx) CreateChannels(cs []*chat.Channel) error {
	for _, c := range cs {
		args, err := channelArgs(c)
		if err != nil {
			return err
		}
		res, err := t.exec("CreateChannels", `INSERT INTO channels (realm_id, name, name_key, description,
			rendered_description, date_created, creator_id, invite_only, is_web_public, history_public, is_default,
			retention_days, topics_policy, folder_id, first_message_id, is_archived, can_add_subscribers,
			can_remove_subscribers, can_administer, can_delete_any, can_delete_own, can_send_message, can_subscribe)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			append([]any{c.RealmID}, args...)...)
		if err != nil {
			return err
		}
		if c.ID, err = res.LastInsertId(); err != nil {
			return t.check("CreateChannels", err)
		}
	}
	return nil
}

func (t *tx) Channel(id int64) (chat.Channel, error) {
	c, err := t.channels("Channel", `WHERE id = ?`, id)
	if err != nil {
		return chat.Channel{}, err
	}
	if len(c) == 0 {
		return chat.Channel{}, chat.ErrNotFound
	}
	return c[0], nil
}

func (t *tx) ChannelsByName(realmID int64, keys []string) ([]chat.Channel, error) {
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	return t.channels("ChannelsByName", `WHERE realm_id = ? AND name_key IN (SELECT value FROM json_each(?)) ORDER BY id`,
		realmID, string(list))
}

func (t *tx) Channels(realmID int64) ([]chat.Channel, error) {
	return t.channels("Channels", `WHERE realm_id = ? ORDER BY id`, realmID)
}

func (t *tx) UpdateChannel(c chat.Channel) error {
	args, err := channelArgs(&c)
	if err != nil {
		return err
	}
	res, err := t.exec("UpdateChannel", `UPDATE channels SET name = ?, name_key = ?, description = ?,
		rendered_description = ?, date_created = ?, creator_id = ?, invite_only = ?, is_web_public = ?,
		history_public = ?, is_default = ?, retention_days = ?, topics_policy = ?, folder_id = ?,
		first_message_id = ?, is_archived = ?, can_add_subscribers = ?, can_remove_subscribers = ?,
		can_administer = ?, can_delete_any = ?, can_delete_own = ?, can_send_message = ?, can_subscribe = ?
		WHERE id = ?`, append(args, c.ID)...)
	if err != nil {
		return err
	}
	return t.affected("UpdateChannel", res)
}

// Subscriptions.

const subColumns = `user_id, channel_id, color, is_muted, pin_to_top, desktop, audible, push, email, wildcard`

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return b2i(*b)
}

func scanSub(sc scanner) (chat.Subscription, error) {
	var (
		s             chat.Subscription
		muted, pin    int64
		d, a, p, e, w sql.NullInt64
	)
	err := sc.Scan(&s.UserID, &s.ChannelID, &s.Color, &muted, &pin, &d, &a, &p, &e, &w)
	s.IsMuted, s.PinToTop = muted != 0, pin != 0
	for _, f := range []struct {
		v   sql.NullInt64
		dst **bool
	}{{d, &s.DesktopNotifications}, {a, &s.AudibleNotifications}, {p, &s.PushNotifications},
		{e, &s.EmailNotifications}, {w, &s.WildcardMentionsNotify}} {
		if f.v.Valid {
			b := f.v.Int64 != 0
			*f.dst = &b
		}
	}
	return s, err
}

func (t *tx) subs(op, where string, args ...any) ([]chat.Subscription, error) {
	out := []chat.Subscription{}
	err := t.query(op, `SELECT `+subColumns+` FROM subscriptions `+where, func(sc scanner) error {
		s, err := scanSub(sc)
		out = append(out, s)
		return err
	}, args...)
	return out, err
}

// CreateSubscriptions inserts every row with one statement: the rows travel
// as a JSON array of [user, channel, color, muted, pin, desktop, audible,
// push, email, wildcard] arrays.
func (t *tx) CreateSubscriptions(subs []chat.Subscription) error {
	if len(subs) == 0 {
		return nil
	}
	b := make([]byte, 0, len(subs)*48)
	b = append(b, '[')
	appendNullBool := func(b []byte, v *bool) []byte {
		if v == nil {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, b2i(*v), 10)
	}
	for i := range subs {
		s := &subs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, s.UserID, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, s.ChannelID, 10)
		b = append(b, ',')
		color, _ := json.Marshal(s.Color)
		b = append(b, color...)
		b = append(b, ',')
		b = strconv.AppendInt(b, b2i(s.IsMuted), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, b2i(s.PinToTop), 10)
		for _, v := range []*bool{s.DesktopNotifications, s.AudibleNotifications, s.PushNotifications,
			s.EmailNotifications, s.WildcardMentionsNotify} {
			b = append(b, ',')
			b = appendNullBool(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	_, err := t.exec("CreateSubscriptions", `INSERT INTO subscriptions (`+subColumns+`)
		SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
		value ->> 7, value ->> 8, value ->> 9 FROM json_each(?)`, string(b))
	return err
}

func (t *tx) Subscription(userID, channelID int64) (chat.Subscription, error) {
	s, err := t.subs("Subscription", `WHERE user_id = ? AND channel_id = ?`, userID, channelID)
	if err != nil {
		return chat.Subscription{}, err
	}
	if len(s) == 0 {
		return chat.Subscription{}, chat.ErrNotFound
	}
	return s[0], nil
}

func (t *tx) SubscriptionsOfUsers(userIDs []int64) ([]chat.Subscription, error) {
	if len(userIDs) == 0 {
		return []chat.Subscription{}, nil
	}
	return t.subs("SubscriptionsOfUsers",
		`WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, channel_id`, idsJSON(userIDs))
}

func (t *tx) ChannelSubscriptions(channelIDs []int64) ([]chat.Subscription, error) {
	if len(channelIDs) == 0 {
		return []chat.Subscription{}, nil
	}
	return t.subs("ChannelSubscriptions",
		`WHERE channel_id IN (SELECT value FROM json_each(?)) ORDER BY channel_id, user_id`, idsJSON(channelIDs))
}

func (t *tx) UpdateSubscription(s chat.Subscription) error {
	res, err := t.exec("UpdateSubscription", `UPDATE subscriptions SET color = ?, is_muted = ?, pin_to_top = ?,
		desktop = ?, audible = ?, push = ?, email = ?, wildcard = ? WHERE user_id = ? AND channel_id = ?`,
		s.Color, b2i(s.IsMuted), b2i(s.PinToTop), nullBool(s.DesktopNotifications), nullBool(s.AudibleNotifications),
		nullBool(s.PushNotifications), nullBool(s.EmailNotifications), nullBool(s.WildcardMentionsNotify),
		s.UserID, s.ChannelID)
	if err != nil {
		return err
	}
	return t.affected("UpdateSubscription", res)
}

func (t *tx) DeleteSubscription(userID, channelID int64) error {
	res, err := t.exec("DeleteSubscription", `DELETE FROM subscriptions WHERE user_id = ? AND channel_id = ?`,
		userID, channelID)
	if err != nil {
		return err
	}
	return t.affected("DeleteSubscription", res)
}

// Folders.

const folderColumns = `id, realm_id, name, description, rendered_description, creator_id, date_created,
	is_archived, ord`

func (t *tx) folders(op, where string, args ...any) ([]chat.ChannelFolder, error) {
	out := []chat.ChannelFolder{}
	err := t.query(op, `SELECT `+folderColumns+` FROM channel_folders `+where, func(sc scanner) error {
		var (
			f                 chat.ChannelFolder
			created, archived int64
		)
		err := sc.Scan(&f.ID, &f.RealmID, &f.Name, &f.Description, &f.RenderedDescription, &f.CreatorID,
			&created, &archived, &f.Order)
		f.DateCreated, f.IsArchived = fromNanos(created), archived != 0
		out = append(out, f)
		return err
	}, args...)
	return out, err
}

func (t *tx) CreateChannelFolder(f *chat.ChannelFolder) error {
	created, err := toNanos(f.DateCreated)
	if err != nil {
		return err
	}
	res, err := t.exec("CreateChannelFolder", `INSERT INTO channel_folders (realm_id, name, description,
		rendered_description, creator_id, date_created, is_archived, ord) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		f.RealmID, f.Name, f.Description, f.RenderedDescription, f.CreatorID, created, b2i(f.IsArchived), f.Order)
	if err != nil {
		return err
	}
	if f.ID, err = res.LastInsertId(); err != nil {
		return t.check("CreateChannelFolder", err)
	}
	return nil
}

func (t *tx) ChannelFolder(id int64) (chat.ChannelFolder, error) {
	fs, err := t.folders("ChannelFolder", `WHERE id = ?`, id)
	if err != nil {
		return chat.ChannelFolder{}, err
	}
	if len(fs) == 0 {
		return chat.ChannelFolder{}, chat.ErrNotFound
	}
	return fs[0], nil
}

func (t *tx) ChannelFolders(realmID int64) ([]chat.ChannelFolder, error) {
	return t.folders("ChannelFolders", `WHERE realm_id = ? ORDER BY ord, id`, realmID)
}

func (t *tx) UpdateChannelFolder(f chat.ChannelFolder) error {
	created, err := toNanos(f.DateCreated)
	if err != nil {
		return err
	}
	res, err := t.exec("UpdateChannelFolder", `UPDATE channel_folders SET name = ?, description = ?,
		rendered_description = ?, creator_id = ?, date_created = ?, is_archived = ?, ord = ? WHERE id = ?`,
		f.Name, f.Description, f.RenderedDescription, f.CreatorID, created, b2i(f.IsArchived), f.Order, f.ID)
	if err != nil {
		return err
	}
	return t.affected("UpdateChannelFolder", res)
}

// User topics.

func (t *tx) userTopics(op, where string, args ...any) ([]chat.UserTopic, error) {
	out := []chat.UserTopic{}
	err := t.query(op, `SELECT user_id, channel_id, topic, visibility_policy, last_updated FROM user_topics `+where,
		func(sc scanner) error {
			var (
				ut      chat.UserTopic
				policy  int64
				updated int64
			)
			err := sc.Scan(&ut.UserID, &ut.ChannelID, &ut.Topic, &policy, &updated)
			ut.VisibilityPolicy, ut.LastUpdated = int(policy), fromNanos(updated)
			out = append(out, ut)
			return err
		}, args...)
	return out, err
}

func (t *tx) SetUserTopic(ut chat.UserTopic) error {
	key := chat.TopicKey(ut.Topic)
	if ut.VisibilityPolicy == chat.TopicInherit {
		_, err := t.exec("SetUserTopic", `DELETE FROM user_topics WHERE user_id = ? AND channel_id = ? AND topic_key = ?`,
			ut.UserID, ut.ChannelID, key)
		return err
	}
	updated, err := toNanos(ut.LastUpdated)
	if err != nil {
		return err
	}
	_, err = t.exec("SetUserTopic", `INSERT OR REPLACE INTO user_topics (user_id, channel_id, topic_key, topic,
		visibility_policy, last_updated) VALUES (?, ?, ?, ?, ?, ?)`,
		ut.UserID, ut.ChannelID, key, ut.Topic, int64(ut.VisibilityPolicy), updated)
	return err
}

func (t *tx) UserTopic(userID, channelID int64, key string) (chat.UserTopic, error) {
	uts, err := t.userTopics("UserTopic", `WHERE user_id = ? AND channel_id = ? AND topic_key = ?`, userID, channelID, key)
	if err != nil {
		return chat.UserTopic{}, err
	}
	if len(uts) == 0 {
		return chat.UserTopic{}, chat.ErrNotFound
	}
	return uts[0], nil
}

func (t *tx) UserTopics(userID int64) ([]chat.UserTopic, error) {
	return t.userTopics("UserTopics", `WHERE user_id = ? ORDER BY channel_id, topic_key`, userID)
}

func (t *tx) DeleteTopicUserTopics(channelID int64, key string) ([]chat.UserTopic, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	uts, err := t.userTopics("DeleteTopicUserTopics", `WHERE channel_id = ? AND topic_key = ? ORDER BY user_id`, channelID, key)
	if err != nil || len(uts) == 0 {
		return uts, err
	}
	_, err = t.exec("DeleteTopicUserTopics", `DELETE FROM user_topics WHERE channel_id = ? AND topic_key = ?`, channelID, key)
	return uts, err
}
