package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Organizations and users.

// errMoveUser is returned by UpdateUser for a user whose RealmID changed, as
// the memory store does.
var errMoveUser = errors.New("postgres: a user cannot move between organizations")

// realmArgs returns the column values of r from name on, in the order of
// the INSERT and UPDATE statements.
func realmArgs(r *storage.Realm) ([]any, error) {
	created, err := sqlcommon.ToNanos(r.DateCreated)
	if err != nil {
		return nil, err
	}
	return []any{r.Name, r.Description, r.Host, r.URL, r.Deactivated, created,
		int64(r.DefaultEmailVisibility), r.NewStreamAnnouncementsStreamID, r.SignupAnnouncementsStreamID,
		r.ZulipUpdateAnnouncementsStreamID, r.ModerationRequestChannelID, r.EmailsRestrictedToDomains,
		r.DisallowDisposableEmailAddresses, r.AllowMessageEditing,
		int64(r.MessageContentEditLimitSeconds), int64(r.MessageContentDeleteLimitSeconds),
		string(r.TopicsPolicy), r.DefaultLanguage, int64(r.VideoChatProvider), r.EnableSpectatorAccess,
		int64(r.WaitingPeriodThreshold), r.InviteRequired, r.SendChannelEventsMessages,
		int64(r.MoveMessagesWithinStreamLimitSeconds), int64(r.MoveMessagesBetweenStreamsLimitSeconds),
		string(r.MessageEditHistoryVisibilityPolicy), sqlcommon.GroupSettingText(r.CanMoveMessagesBetweenTopicsGroup),
		sqlcommon.GroupSettingText(r.CanMoveMessagesBetweenChannelsGroup), r.DefaultCodeBlockLanguage}, nil
}

// userArgs returns the column values of u from email on, in the order of
// the INSERT and UPDATE statements.
func userArgs(u *storage.UserRecord) ([]any, error) {
	joined, err := sqlcommon.ToNanos(u.DateJoined)
	if err != nil {
		return nil, err
	}
	login, err := sqlcommon.ToNanos(u.LastLogin)
	if err != nil {
		return nil, err
	}
	return []any{u.Email, storage.EmailKey(u.Email), u.FullName, int64(u.Role), u.IsActive,
		int64(u.BotType), u.BotOwnerID, joined, login, u.IsImportedStub, u.Timezone, u.AvatarSource,
		int64(u.AvatarVersion), u.APIKey, u.PasswordHash, int64(u.EmailVisibility), u.CanChangeUserEmails,
		u.PresenceEnabled, u.Status.Text, u.Status.EmojiName, u.Status.EmojiCode,
		string(u.Status.ReactionType)}, nil
}

func (t *tx) CreateRealm(r *storage.Realm) error {
	args, err := realmArgs(r)
	if err != nil {
		return err
	}
	id, err := t.insertID("CreateRealm", `INSERT INTO realms (name, description, host, url, deactivated,
		date_created, default_email_visibility, new_stream_announcements_stream_id,
		signup_announcements_stream_id, zulip_update_announcements_stream_id, moderation_request_channel_id,
		emails_restricted_to_domains, disallow_disposable_email_addresses, allow_message_editing,
		message_content_edit_limit_seconds, message_content_delete_limit_seconds, topics_policy,
		default_language, video_chat_provider, enable_spectator_access, waiting_period_threshold,
		invite_required, send_channel_events_messages, move_messages_within_stream_limit_seconds,
		move_messages_between_streams_limit_seconds, message_edit_history_visibility_policy,
		can_move_messages_between_topics_group, can_move_messages_between_channels_group,
		default_code_block_language)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
		$21, $22, $23, $24, $25, $26, $27, $28, $29)
		ON CONFLICT DO NOTHING RETURNING id`, args...)
	if err != nil {
		return err
	}
	r.ID = id
	return nil
}

func (t *tx) Realm(id int64) (storage.Realm, error) {
	return t.realmWhere("Realm", `id = $1`, id)
}

// UserAndRealm reads both rows in one round trip, with the version of the
// realm's lists (realmlists.go).
func (t *tx) UserAndRealm(userID int64) (storage.UserRecord, storage.Realm, error) {
	var version int64
	u, r, err := sqlcommon.ScanUserAndRealm(forms, withScanned(t.tx.QueryRow(t.ctx, `SELECT `+sqlcommon.UserAndRealmColumns+
		`, r.lists_version FROM users AS u JOIN realms AS r ON r.id = u.realm_id WHERE u.id = $1`, userID), &version))
	if err != nil {
		return storage.UserRecord{}, storage.Realm{}, t.check("UserAndRealm", err)
	}
	t.noteRealm(r.ID, version, u.ID)
	return u, r, nil
}

func (t *tx) RealmByHost(host string) (storage.Realm, error) {
	return t.realmWhere("RealmByHost", `host = $1`, host)
}

// realmWhere reads the realm that cond selects, with the version of its
// lists (realmlists.go).
func (t *tx) realmWhere(op, cond string, arg any) (storage.Realm, error) {
	var version int64
	r, err := one(t, op, `SELECT `+sqlcommon.RealmColumns+`, lists_version FROM realms WHERE `+cond,
		func(sc sqlcommon.Scanner) (storage.Realm, error) { return scanRealm(withScanned(sc, &version)) }, arg)
	if err == nil {
		t.noteRealm(r.ID, version, 0)
	}
	return r, err
}

// scannedWith is a row scanned into the destinations its reader gives,
// then into more.
type scannedWith struct {
	sc   sqlcommon.Scanner
	more []any
}

func withScanned(sc sqlcommon.Scanner, more ...any) scannedWith { return scannedWith{sc, more} }

func (s scannedWith) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.more...)...) }

func (t *tx) Realms() ([]storage.Realm, error) {
	rs, err := list(t, "Realms", sqlcommon.SelectRealm+`ORDER BY id`, scanRealm)
	if len(rs) == 0 {
		return nil, err
	}
	return rs, err
}

func (t *tx) UpdateRealm(r storage.Realm) error {
	args, err := realmArgs(&r)
	if err != nil {
		return err
	}
	return t.guarded("UpdateRealm", func() error {
		return t.execOne("UpdateRealm", `UPDATE realms SET name = $1, description = $2, host = $3, url = $4,
			deactivated = $5, date_created = $6, default_email_visibility = $7,
			new_stream_announcements_stream_id = $8, signup_announcements_stream_id = $9,
			zulip_update_announcements_stream_id = $10, moderation_request_channel_id = $11,
			emails_restricted_to_domains = $12, disallow_disposable_email_addresses = $13,
			allow_message_editing = $14, message_content_edit_limit_seconds = $15,
			message_content_delete_limit_seconds = $16, topics_policy = $17, default_language = $18,
			video_chat_provider = $19, enable_spectator_access = $20, waiting_period_threshold = $21,
			invite_required = $22, send_channel_events_messages = $23,
			move_messages_within_stream_limit_seconds = $24, move_messages_between_streams_limit_seconds = $25,
			message_edit_history_visibility_policy = $26, can_move_messages_between_topics_group = $27,
			can_move_messages_between_channels_group = $28, default_code_block_language = $29
			WHERE id = $30`, append(args, r.ID)...)
	})
}

// Users.

func (t *tx) CreateUser(u *storage.UserRecord) error {
	args, err := userArgs(u)
	if err != nil {
		return err
	}
	id, err := t.insertID("CreateUser", `INSERT INTO users (realm_id, email, email_key, full_name, role,
		is_active, bot_type, bot_owner_id, date_joined, last_login, is_imported_stub, timezone, avatar_source,
		avatar_version, api_key, password_hash, email_visibility, can_change_user_emails, presence_enabled,
		status_text, status_emoji_name, status_emoji_code, status_reaction_type)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
		$21, $22, $23)
		ON CONFLICT DO NOTHING RETURNING id`, append([]any{u.RealmID}, args...)...)
	if err != nil {
		return err
	}
	u.ID = id
	return nil
}

func (t *tx) User(id int64) (storage.UserRecord, error) {
	return one(t, "User", sqlcommon.SelectUser+`WHERE id = $1`, scanUser, id)
}

// UserByEmail is planned for its values at every run
// (pgx.QueryExecModeCacheDescribe), as FindMessages is: prepared once per
// connection, after five runs PostgreSQL kept a generic plan made while
// the organization had a handful of users, which went through the
// (realm_id, role) index and tested the address of every user of the
// organization (1 ms at 10 000 users, and growing), where the unique
// (realm_id, email_key) index finds the one row (16 µs).
func (t *tx) UserByEmail(realmID int64, email string) (storage.UserRecord, error) {
	return one(t, "UserByEmail", sqlcommon.SelectUser+`WHERE realm_id = $1 AND email_key = $2`, scanUser,
		pgx.QueryExecModeCacheDescribe, realmID, storage.EmailKey(email))
}

func (t *tx) UserByAPIKey(key string) (storage.UserRecord, error) {
	return one(t, "UserByAPIKey", sqlcommon.SelectUser+`WHERE api_key = $1`, scanUser, key)
}

func (t *tx) Users(realmID int64, ids []int64) ([]storage.UserRecord, error) {
	if ids == nil {
		return list(t, "Users", sqlcommon.SelectUser+`WHERE realm_id = $1 ORDER BY id`, scanUser, realmID)
	}
	if len(ids) == 0 {
		return []storage.UserRecord{}, nil
	}
	return list(t, "Users", sqlcommon.SelectUser+`WHERE realm_id = $1 AND id = ANY($2) ORDER BY id`, scanUser,
		realmID, ids)
}

func (t *tx) ActiveUserIDs(realmID int64, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return []int64{}, nil
	}
	return list(t, "ActiveUserIDs", `SELECT id FROM users WHERE realm_id = $1 AND id = ANY($2) AND is_active
		ORDER BY id`, scanID, realmID, ids)
}

func (t *tx) UsersByRole(realmID int64, role storage.Role) ([]storage.UserRecord, error) {
	return list(t, "UsersByRole", sqlcommon.SelectUser+`WHERE realm_id = $1 AND role = $2 ORDER BY id`, scanUser,
		realmID, int64(role))
}

// BotsOwnedBy lists, like the memory store, the bots of the owner's
// organization.
func (t *tx) BotsOwnedBy(ownerID int64) ([]storage.UserRecord, error) {
	return list(t, "BotsOwnedBy", sqlcommon.SelectUser+`WHERE bot_owner_id = $1 AND bot_type <> 0
		AND realm_id = (SELECT o.realm_id FROM users AS o WHERE o.id = $1) ORDER BY id`, scanUser, ownerID)
}

func (t *tx) UpdateUser(u storage.UserRecord) error {
	args, err := userArgs(&u)
	if err != nil {
		return err
	}
	err = t.guarded("UpdateUser", func() error {
		// The user's subscriptions follow is_active (migration 0025). All
		// three parts read one snapshot, so old is the row before the
		// update, and the subscriptions are read only when is_active
		// changes: a user of 200 channels changing anything else read
		// 203 pages instead of 3 (EXPLAIN ANALYZE).
		_, err := one(t, "UpdateUser", `WITH old AS (SELECT is_active FROM users WHERE id = $23),
			u AS (UPDATE users SET email = $1, email_key = $2, full_name = $3, role = $4,
			is_active = $5, bot_type = $6, bot_owner_id = $7, date_joined = $8, last_login = $9,
			is_imported_stub = $10, timezone = $11, avatar_source = $12, avatar_version = $13, api_key = $14,
			password_hash = $15, email_visibility = $16, can_change_user_emails = $17, presence_enabled = $18,
			status_text = $19, status_emoji_name = $20, status_emoji_code = $21, status_reaction_type = $22
			WHERE id = $23 AND realm_id = $24 RETURNING id, is_active),
			s AS (UPDATE subscriptions AS s SET user_active = u.is_active FROM u, old
				WHERE s.user_id = u.id AND u.is_active <> old.is_active)
			SELECT id FROM u`, sqlcommon.ScanID, append(args, u.ID, u.RealmID)...)
		return err
	})
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	// Nothing matched: an unknown ID, or a user of another realm.
	if _, err := t.User(u.ID); err != nil {
		return err
	}
	return errMoveUser
}
