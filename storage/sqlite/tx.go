package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlrows"
)

// query names one of the prepared statements.
type query int

// The queries: reads first, then writes (prepared on the writer only).
const (
	qRealm query = iota
	qRealmByHost
	qRealms
	qUsersVersion
	qDataVersion
	qUser
	qUserRealm
	qUserByEmail
	qUserByAPIKey
	qUsersAll
	qUsersIDs
	qActiveUserIDs
	qUsersByRole
	qBotsOwnedBy
	// Custom profile fields and custom emoji (profile.go).
	qProfileFields
	qProfileValuesAll
	qProfileValuesIDs
	qRealmEmoji
	qRealmEmojiByName
	// Organization administration (realm_admin.go).
	qLinkifiers
	qRealmDomains
	qRealmDomain
	// Channels, groups, folders and user topics (channels.go).
	qUserGroups
	qChannel
	qChannelsByName
	qChannels
	qSubscriptionsOfUsers
	qSubscriptionColors
	qChannelSubscriptions
	qChannelFolder
	qChannelFolders
	qUserTopic
	qUserTopics
	qTopicUserTopics
	// Uploads and push.
	qAttachmentByPath
	qUploadSpaceUsed
	qAttachmentMessages
	qPushTokens
	qDevice
	qDevices

	qCreateRealm
	qUpdateRealm
	qCreateUser
	qUpdateUser
	qUpdateUserKeys
	// Custom profile fields and custom emoji (profile.go).
	qCreateProfileField
	qSetProfileValue
	qDeleteProfileValue
	qCreateRealmEmoji
	qUpdateRealmEmoji
	// Organization administration (realm_admin.go).
	qCreateLinkifier
	qUpdateLinkifier
	qDeleteLinkifier
	qCreateRealmDomain
	qUpdateRealmDomain
	qDeleteRealmDomain
	// Channels, groups, folders and user topics (channels.go).
	qCreateUserGroup
	qCreateChannel
	qUpdateChannel
	qCreateSubscription
	qCreateSubscriptions // subBatch rows at once
	qUpdateSubscription
	qDeleteSubscription
	qCreateChannelFolder
	qUpdateChannelFolder
	qSetUserTopic
	qDeleteUserTopic
	qDeleteTopicUserTopics
	// Uploads and push.
	qCreateAttachment
	qLinkAttachment
	qAddPushToken
	qCreateDevice
	qUpdateDevice
	qDeleteDevice

	numQueries
	firstWrite = qCreateRealm
)

type stmts [numQueries]*sql.Stmt

var queries = [numQueries]string{
	qRealm:        sqlrows.SelectRealm + `WHERE id = ?`,
	qRealmByHost:  sqlrows.SelectRealm + `WHERE host = ?`,
	qRealms:       sqlrows.SelectRealm + `ORDER BY id`,
	qUsersVersion: `SELECT users_version FROM realms WHERE id = ?`,
	qDataVersion:  `PRAGMA data_version`,
	qUser:         sqlrows.SelectUser + `WHERE id = ?`,
	qUserRealm:    `SELECT realm_id FROM users WHERE id = ?`,
	qUserByEmail:  sqlrows.SelectUser + `WHERE realm_id = ? AND email_key = ?`,
	qUserByAPIKey: sqlrows.SelectUser + `WHERE api_key = ?`,
	qUsersAll:     sqlrows.SelectUser + `WHERE realm_id = ? ORDER BY id`,
	// The IDs come as one JSON array, whatever their number.
	qUsersIDs: sqlrows.SelectUser + `WHERE realm_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
	qActiveUserIDs: `SELECT id FROM users WHERE realm_id = ? AND is_active AND id IN (SELECT value FROM json_each(?))
		ORDER BY id`,
	qUsersByRole: sqlrows.SelectUser + `WHERE realm_id = ? AND role = ? ORDER BY id`,
	// Like the memory store: the bots of the owner's organization.
	qBotsOwnedBy: sqlrows.SelectUser + `WHERE bot_owner_id = ?1 AND bot_type <> 0
		AND realm_id = (SELECT o.realm_id FROM users AS o WHERE o.id = ?1) ORDER BY id`,
	qProfileFields:    sqlrows.SelectProfileField + `WHERE realm_id = ? ORDER BY display_order, id`,
	qProfileValuesAll: sqlrows.SelectProfileValue + `JOIN users AS u ON u.id = v.user_id WHERE u.realm_id = ? ORDER BY v.user_id, v.field_id`,
	qProfileValuesIDs: sqlrows.SelectProfileValue + `JOIN users AS u ON u.id = v.user_id
		WHERE u.realm_id = ? AND v.user_id IN (SELECT value FROM json_each(?)) ORDER BY v.user_id, v.field_id`,
	qRealmEmoji:       sqlrows.SelectRealmEmoji + `WHERE id = ?`,
	qRealmEmojiByName: sqlrows.SelectRealmEmoji + `WHERE realm_id = ? AND name = ?`,
	// Uploads and push.
	qAttachmentByPath:   sqlrows.SelectAttachment + `WHERE path_id = ? AND realm_id = ?`,
	qUploadSpaceUsed:    `SELECT coalesce(sum(size), 0) FROM attachments WHERE realm_id = ?`,
	qAttachmentMessages: `SELECT message_id FROM attachment_messages WHERE attachment_id = ? ORDER BY message_id`,
	qPushTokens:         `SELECT user_id, kind, token, app_id, create_time FROM push_tokens WHERE user_id = ? ORDER BY rowid`,
	qDevice:             sqlrows.SelectDevice + `WHERE id = ?`,
	qDevices:            sqlrows.SelectDevice + `WHERE user_id = ? ORDER BY id`,

	qCreateRealm: `INSERT INTO realms (name, description, host, url, deactivated, date_created,
		default_email_visibility, new_stream_announcements_stream_id, signup_announcements_stream_id,
		zulip_update_announcements_stream_id, moderation_request_channel_id,
		emails_restricted_to_domains, disallow_disposable_email_addresses,
		allow_message_editing, message_content_edit_limit_seconds, message_content_delete_limit_seconds,
		topics_policy, default_language, video_chat_provider, enable_spectator_access,
		waiting_period_threshold, invite_required, send_channel_events_messages)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateRealm: `UPDATE realms SET name = ?, description = ?, host = ?, url = ?, deactivated = ?,
		date_created = ?, default_email_visibility = ?, new_stream_announcements_stream_id = ?,
		signup_announcements_stream_id = ?, zulip_update_announcements_stream_id = ?,
		moderation_request_channel_id = ?, emails_restricted_to_domains = ?,
		disallow_disposable_email_addresses = ?, allow_message_editing = ?,
		message_content_edit_limit_seconds = ?, message_content_delete_limit_seconds = ?,
		topics_policy = ?, default_language = ?, video_chat_provider = ?, enable_spectator_access = ?,
		waiting_period_threshold = ?, invite_required = ?, send_channel_events_messages = ?
		WHERE id = ?`,
	qCreateUser: `INSERT INTO users (realm_id, email, email_key, full_name, role, is_active, bot_type,
		bot_owner_id, date_joined, last_login, is_imported_stub, timezone, avatar_source, avatar_version,
		api_key, password_hash, email_visibility, can_change_user_emails, presence_enabled, status_text,
		status_emoji_name, status_emoji_code, status_reaction_type)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	// The indexed columns are written only when one of them changes:
	// SQLite rewrites the entries of every index whose columns an UPDATE
	// sets, changed or not, which would triple the cost of the frequent
	// writes (status, settings) that change none of them.
	qUpdateUserKeys: `UPDATE users SET email_key = ?1, role = ?2, bot_owner_id = ?3, api_key = ?4
		WHERE id = ?5 AND realm_id = ?6 AND (email_key <> ?1 OR role <> ?2 OR bot_owner_id <> ?3 OR api_key <> ?4)`,
	qUpdateUser: `UPDATE users SET email = ?, full_name = ?, is_active = ?,
		bot_type = ?, date_joined = ?, last_login = ?, is_imported_stub = ?, timezone = ?,
		avatar_source = ?, avatar_version = ?, password_hash = ?, email_visibility = ?,
		can_change_user_emails = ?, presence_enabled = ?, status_text = ?, status_emoji_name = ?,
		status_emoji_code = ?, status_reaction_type = ?
		WHERE id = ? AND realm_id = ?`,
	qCreateProfileField: `INSERT INTO profile_fields (realm_id, name, hint, type, field_data, display_order,
		required, editable_by_user, display_in_profile_summary, use_for_user_matching)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qSetProfileValue: `INSERT INTO profile_values (user_id, field_id, value, rendered_value) VALUES (?, ?, ?, ?)
		ON CONFLICT (user_id, field_id) DO UPDATE SET value = excluded.value, rendered_value = excluded.rendered_value`,
	qDeleteProfileValue: `DELETE FROM profile_values WHERE user_id = ? AND field_id = ?`,
	qCreateRealmEmoji:   `INSERT INTO realm_emoji (realm_id, name, deactivated, author_id) VALUES (?, ?, ?, ?)`,
	qUpdateRealmEmoji:   `UPDATE realm_emoji SET name = ?, deactivated = ?, author_id = ? WHERE id = ? AND realm_id = ?`,

	// Organization administration (realm_admin.go).
	qLinkifiers:   sqlrows.SelectLinkifier + `WHERE realm_id = ? ORDER BY sort_order, id`,
	qRealmDomains: sqlrows.SelectRealmDomain + `WHERE realm_id = ? ORDER BY id`,
	qRealmDomain:  sqlrows.SelectRealmDomain + `WHERE realm_id = ? AND domain = ?`,
	qCreateLinkifier: `INSERT INTO linkifiers (realm_id, pattern, url_template, example_input,
		reverse_template, alternative_url_templates, sort_order) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	qUpdateLinkifier: `UPDATE linkifiers SET pattern = ?, url_template = ?, example_input = ?,
		reverse_template = ?, alternative_url_templates = ?, sort_order = ? WHERE id = ? AND realm_id = ?`,
	qDeleteLinkifier:   `DELETE FROM linkifiers WHERE realm_id = ? AND id = ?`,
	qCreateRealmDomain: `INSERT INTO realm_domains (realm_id, domain, allow_subdomains) VALUES (?, ?, ?)`,
	qUpdateRealmDomain: `UPDATE realm_domains SET allow_subdomains = ? WHERE realm_id = ? AND id = ?`,
	qDeleteRealmDomain: `DELETE FROM realm_domains WHERE realm_id = ? AND id = ?`,

	// Channels, groups, folders and user topics (channels.go).
	qUserGroups:           sqlrows.SelectUserGroup + `WHERE realm_id = ? ORDER BY id`,
	qChannel:              sqlrows.SelectChannel + `WHERE id = ?`,
	qChannelsByName:       sqlrows.SelectChannel + `WHERE realm_id = ? AND name_key IN (SELECT value FROM json_each(?)) ORDER BY id`,
	qChannels:             sqlrows.SelectChannel + `WHERE realm_id = ? ORDER BY id`,
	qSubscriptionsOfUsers: sqlrows.SelectSubscription + `WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, channel_id`,
	qSubscriptionColors: `SELECT DISTINCT user_id, color FROM subscriptions
		WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, color`,
	qChannelSubscriptions: sqlrows.SelectSubscription + `WHERE channel_id IN (SELECT value FROM json_each(?)) ORDER BY channel_id, user_id`,
	qChannelFolder:        sqlrows.SelectFolder + `WHERE id = ?`,
	qChannelFolders:       sqlrows.SelectFolder + `WHERE realm_id = ? ORDER BY ord, id`,
	qUserTopic:            sqlrows.SelectUserTopic + `WHERE user_id = ? AND channel_id = ? AND topic_key = ?`,
	qUserTopics:           sqlrows.SelectUserTopic + `WHERE user_id = ? ORDER BY channel_id, topic_key`,
	qTopicUserTopics:      sqlrows.SelectUserTopic + `WHERE channel_id = ? AND topic_key = ? ORDER BY user_id`,
	qCreateUserGroup: `INSERT INTO user_groups (realm_id, name, description, is_system, creator_id, date_created,
		deactivated, members, subgroups) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qCreateChannel: `INSERT INTO channels (realm_id, name, name_key, description, rendered_description,
		date_created, creator_id, invite_only, is_web_public, history_public, is_default, retention_days,
		topics_policy, folder_id, first_message_id, is_archived, can_add_subscribers, can_remove_subscribers,
		can_administer, can_delete_any, can_delete_own, can_send_message, can_subscribe)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateChannel: `UPDATE channels SET name = ?, name_key = ?, description = ?, rendered_description = ?,
		date_created = ?, creator_id = ?, invite_only = ?, is_web_public = ?, history_public = ?, is_default = ?,
		retention_days = ?, topics_policy = ?, folder_id = ?, first_message_id = ?, is_archived = ?,
		can_add_subscribers = ?, can_remove_subscribers = ?, can_administer = ?, can_delete_any = ?,
		can_delete_own = ?, can_send_message = ?, can_subscribe = ? WHERE id = ?`,
	qCreateSubscription:  insertSubs + subRow,
	qCreateSubscriptions: insertSubs + subRows,
	qUpdateSubscription: `UPDATE subscriptions SET color = ?, is_muted = ?, pin_to_top = ?, desktop = ?, audible = ?,
		push = ?, email = ?, wildcard = ? WHERE user_id = ? AND channel_id = ?`,
	qDeleteSubscription: `DELETE FROM subscriptions WHERE user_id = ? AND channel_id = ?`,
	qCreateChannelFolder: `INSERT INTO channel_folders (realm_id, name, description, rendered_description,
		creator_id, date_created, is_archived, ord) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateChannelFolder: `UPDATE channel_folders SET name = ?, description = ?, rendered_description = ?,
		creator_id = ?, date_created = ?, is_archived = ?, ord = ? WHERE id = ?`,
	qSetUserTopic: `INSERT OR REPLACE INTO user_topics (user_id, channel_id, topic_key, topic, visibility_policy,
		last_updated) VALUES (?, ?, ?, ?, ?, ?)`,
	qDeleteUserTopic:       `DELETE FROM user_topics WHERE user_id = ? AND channel_id = ? AND topic_key = ?`,
	qDeleteTopicUserTopics: `DELETE FROM user_topics WHERE channel_id = ? AND topic_key = ?`,
	// Uploads and push.
	qCreateAttachment: `INSERT INTO attachments (realm_id, owner_id, path_id, name, size, content_type,
		create_time) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	qLinkAttachment: `INSERT INTO attachment_messages (attachment_id, message_id) VALUES (?, ?)
		ON CONFLICT DO NOTHING`,
	qAddPushToken: `INSERT INTO push_tokens (user_id, kind, token, app_id, create_time) VALUES (?, ?, ?, ?, ?)`,
	qCreateDevice: `INSERT INTO devices (user_id, realm_id, push_key, push_key_id, token_kind, token_id,
		bouncer_public_key, encrypted_push_registration, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	qUpdateDevice: `UPDATE devices SET user_id = ?, realm_id = ?, push_key = ?, push_key_id = ?, token_kind = ?,
		token_id = ?, bouncer_public_key = ?, encrypted_push_registration = ?, create_time = ? WHERE id = ?`,
	qDeleteDevice: `DELETE FROM devices WHERE id = ?`,
}

// errMoveUser is returned by UpdateUser for a user whose RealmID changed, as
// the memory store does.
var errMoveUser = errors.New("sqlite: a user cannot move between organizations")

// tx is a storage.Tx over one database/sql transaction.
type tx struct {
	ctx     context.Context
	tx      *sql.Tx
	cache   *usersCache
	queries *atomic.Int64
	stmts   *stmts
	txStmts stmts // the statements of stmts bound to tx, made on first use
	// texts holds the pool's statements run by text; boundTexts those
	// bound to tx.
	texts      *textStmts
	boundTexts map[*sql.Stmt]*sql.Stmt
	// rows is the writer's cache of the rows write transactions read
	// (rowcache.go), nil in a View.
	rows *rowCache
	// TxState's Failed is the first storage failure, after which SQLite
	// may have rolled the transaction back on its own.
	sqlrows.TxState
}

// stmt returns the prepared statement q bound to the transaction, and
// counts one query: every use of a statement goes through here.
func (t *tx) stmt(q query) *sql.Stmt {
	t.queries.Add(1)
	if st := t.txStmts[q]; st != nil {
		return st
	}
	st := t.tx.StmtContext(t.ctx, t.stmts[q])
	t.txStmts[q] = st
	return st
}

// driverErrors are SQLite's: constraint violations undo only their own
// statement; any other failure (I/O, interruption by the context, ...) may
// have rolled back the whole transaction.
var driverErrors = sqlrows.Errors{
	Prefix: "sqlite",
	NoRows: sql.ErrNoRows,
	Unique: isUniqueViolation,
	Aborts: func(err error) bool { return !isConstraintViolation(err) },
}

// check returns the error to give for err, the result of operation op
// (sqlrows.TxState.Check).
func (t *tx) check(op string, err error) error { return t.Check(&driverErrors, op, err) }

// Conversions.

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// realmArgs returns the column values of r in the order of qCreateRealm and
// qUpdateRealm.
func realmArgs(r *storage.Realm) ([]any, error) {
	created, err := sqlrows.ToNanos(r.DateCreated)
	if err != nil {
		return nil, err
	}
	return []any{r.Name, r.Description, r.Host, r.URL, b2i(r.Deactivated), created,
		int64(r.DefaultEmailVisibility), r.NewStreamAnnouncementsStreamID, r.SignupAnnouncementsStreamID,
		r.ZulipUpdateAnnouncementsStreamID, r.ModerationRequestChannelID, b2i(r.EmailsRestrictedToDomains),
		b2i(r.DisallowDisposableEmailAddresses), b2i(r.AllowMessageEditing),
		int64(r.MessageContentEditLimitSeconds), int64(r.MessageContentDeleteLimitSeconds),
		string(r.TopicsPolicy), r.DefaultLanguage, r.VideoChatProvider, b2i(r.EnableSpectatorAccess),
		r.WaitingPeriodThreshold, b2i(r.InviteRequired), b2i(r.SendChannelEventsMessages)}, nil
}

// userTimes returns the user's times as stored, in nanoseconds.
func userTimes(u *storage.UserRecord) (joined, login int64, err error) {
	return sqlrows.Nanos2(u.DateJoined, u.LastLogin)
}

// userArgs returns the column values of u from email on, in the order of
// qCreateUser.
func userArgs(u *storage.UserRecord) ([]any, error) {
	joined, login, err := userTimes(u)
	if err != nil {
		return nil, err
	}
	return []any{u.Email, storage.EmailKey(u.Email), u.FullName, int64(u.Role), b2i(u.IsActive),
		int64(u.BotType), u.BotOwnerID, joined, login, b2i(u.IsImportedStub), u.Timezone, u.AvatarSource,
		int64(u.AvatarVersion), u.APIKey, u.PasswordHash, int64(u.EmailVisibility), b2i(u.CanChangeUserEmails),
		b2i(u.PresenceEnabled), u.Status.Text, u.Status.EmojiName, u.Status.EmojiCode,
		string(u.Status.ReactionType)}, nil
}

// userUpdateArgs are the values of qUpdateUser's columns: those of
// userArgs but the indexed ones (qUpdateUserKeys), with u's times as
// userTimes gives them.
func userUpdateArgs(u *storage.UserRecord, joined, login int64) []any {
	return []any{u.Email, u.FullName, b2i(u.IsActive), int64(u.BotType), joined, login, b2i(u.IsImportedStub),
		u.Timezone, u.AvatarSource, int64(u.AvatarVersion), u.PasswordHash, int64(u.EmailVisibility),
		b2i(u.CanChangeUserEmails), b2i(u.PresenceEnabled), u.Status.Text, u.Status.EmojiName, u.Status.EmojiCode,
		string(u.Status.ReactionType)}
}

// Realms.

func (t *tx) CreateRealm(r *storage.Realm) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := realmArgs(r)
	if err != nil {
		return err
	}
	res, err := t.stmt(qCreateRealm).ExecContext(t.ctx, args...)
	if err != nil {
		return t.check("CreateRealm", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateRealm", err)
	}
	r.ID = id
	wrote(t.rows, realmRows, id)
	return nil
}

func (t *tx) Realm(id int64) (storage.Realm, error) {
	if r, ok := cached(t.rows, realmRows, id); ok {
		return r, nil
	}
	r, err := sqlrows.Realm(dialect, t.stmt(qRealm).QueryRowContext(t.ctx, id))
	if err == nil {
		keep(t.rows, realmRows, r.ID, r)
	}
	return r, t.check("Realm", err)
}

func (t *tx) RealmByHost(host string) (storage.Realm, error) {
	r, err := sqlrows.Realm(dialect, t.stmt(qRealmByHost).QueryRowContext(t.ctx, host))
	return r, t.check("RealmByHost", err)
}

func (t *tx) Realms() ([]storage.Realm, error) {
	rows, err := t.stmt(qRealms).QueryContext(t.ctx)
	if err != nil {
		return nil, t.check("Realms", err)
	}
	defer rows.Close()
	var out []storage.Realm
	for rows.Next() {
		r, err := sqlrows.Realm(dialect, rows)
		if err != nil {
			return nil, t.check("Realms", err)
		}
		out = append(out, r)
	}
	return out, t.check("Realms", rows.Err())
}

func (t *tx) UpdateRealm(r storage.Realm) error {
	if err := t.Writable(); err != nil {
		return err
	}
	wrote(t.rows, realmRows, r.ID)
	args, err := realmArgs(&r)
	if err != nil {
		return err
	}
	res, err := t.stmt(qUpdateRealm).ExecContext(t.ctx, append(args, r.ID)...)
	if err != nil {
		return t.check("UpdateRealm", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return t.check("UpdateRealm", err)
	}
	if n == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// Users.

func (t *tx) CreateUser(u *storage.UserRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := userArgs(u)
	if err != nil {
		return err
	}
	res, err := t.stmt(qCreateUser).ExecContext(t.ctx, append([]any{u.RealmID}, args...)...)
	if err != nil {
		return t.check("CreateUser", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateUser", err)
	}
	u.ID = id
	wrote(t.rows, userRows, id)
	return nil
}

func (t *tx) User(id int64) (storage.UserRecord, error) {
	if u, ok := cached(t.rows, userRows, id); ok {
		return u, nil
	}
	u, err := sqlrows.User(dialect, t.stmt(qUser).QueryRowContext(t.ctx, id))
	if err == nil {
		keep(t.rows, userRows, u.ID, u)
	}
	return u, t.check("User", err)
}

func (t *tx) UserByEmail(realmID int64, email string) (storage.UserRecord, error) {
	u, err := sqlrows.User(dialect, t.stmt(qUserByEmail).QueryRowContext(t.ctx, realmID, storage.EmailKey(email)))
	return u, t.check("UserByEmail", err)
}

func (t *tx) UserByAPIKey(key string) (storage.UserRecord, error) {
	u, err := sqlrows.User(dialect, t.stmt(qUserByAPIKey).QueryRowContext(t.ctx, key))
	return u, t.check("UserByAPIKey", err)
}

// Users answers from the user-list cache when the realm's users_version
// says it holds the realm's users as this transaction sees them.
func (t *tx) Users(realmID int64, ids []int64) ([]storage.UserRecord, error) {
	if ids != nil && len(ids) == 0 {
		return []storage.UserRecord{}, nil
	}
	var version int64
	err := t.stmt(qUsersVersion).QueryRowContext(t.ctx, realmID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return []storage.UserRecord{}, nil
	}
	if err != nil {
		return nil, t.check("Users", err)
	}
	if cached, ok := t.cache.get(realmID, version); ok {
		return pick(cached, ids), nil
	}
	if ids == nil {
		all, err := t.users("Users", qUsersAll, realmID)
		// Only a read-only transaction sees nothing but committed data, so
		// only it may fill the cache.
		if err == nil && t.ReadOnly {
			t.cache.put(realmID, version, all)
		}
		return all, err
	}
	return t.users("Users", qUsersIDs, realmID, jsonIDs(ids))
}

// jsonIDs writes ids as a JSON array, for json_each.
func jsonIDs(ids []int64) string {
	list := make([]byte, 0, 2+len(ids)*8)
	list = append(list, '[')
	for i, id := range ids {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
	}
	list = append(list, ']')
	return string(list)
}

func (t *tx) ActiveUserIDs(realmID int64, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return []int64{}, nil
	}
	rows, err := t.stmt(qActiveUserIDs).QueryContext(t.ctx, realmID, jsonIDs(ids))
	if err != nil {
		return nil, t.check("ActiveUserIDs", err)
	}
	defer rows.Close()
	out := make([]int64, 0, len(ids))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, t.check("ActiveUserIDs", err)
		}
		out = append(out, id)
	}
	return out, t.check("ActiveUserIDs", rows.Err())
}

func (t *tx) UsersByRole(realmID int64, role storage.Role) ([]storage.UserRecord, error) {
	return t.users("UsersByRole", qUsersByRole, realmID, int64(role))
}

func (t *tx) BotsOwnedBy(ownerID int64) ([]storage.UserRecord, error) {
	return t.users("BotsOwnedBy", qBotsOwnedBy, ownerID)
}

// users runs a query that lists users.
func (t *tx) users(op string, q query, args ...any) ([]storage.UserRecord, error) {
	rows, err := t.stmt(q).QueryContext(t.ctx, args...)
	if err != nil {
		return nil, t.check(op, err)
	}
	defer rows.Close()
	out := []storage.UserRecord{}
	for rows.Next() {
		u, err := sqlrows.User(dialect, rows)
		if err != nil {
			return nil, t.check(op, err)
		}
		out = append(out, u)
	}
	return out, t.check(op, rows.Err())
}

func (t *tx) UpdateUser(u storage.UserRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	wrote(t.rows, userRows, u.ID)
	joined, login, err := userTimes(&u)
	if err != nil {
		return err
	}
	// The keys first: a uniqueness violation there leaves the row as it
	// was.
	if _, err := t.stmt(qUpdateUserKeys).ExecContext(t.ctx, storage.EmailKey(u.Email), int64(u.Role), u.BotOwnerID,
		u.APIKey, u.ID, u.RealmID); err != nil {
		return t.check("UpdateUser", err)
	}
	res, err := t.stmt(qUpdateUser).ExecContext(t.ctx, append(userUpdateArgs(&u, joined, login), u.ID, u.RealmID)...)
	if err != nil {
		return t.check("UpdateUser", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return t.check("UpdateUser", err)
	}
	if n > 0 {
		// The row as a read would return it, for the writer's cache once
		// the transaction commits: times come back in UTC.
		stored := u
		stored.DateJoined, stored.LastLogin = sqlrows.FromNanos(joined), sqlrows.FromNanos(login)
		t.rows.updatedUser(stored)
		return nil
	}
	// Nothing matched: an unknown ID, or a user of another realm.
	var realmID int64
	if err := t.stmt(qUserRealm).QueryRowContext(t.ctx, u.ID).Scan(&realmID); err != nil {
		return t.check("UpdateUser", err)
	}
	return errMoveUser
}
