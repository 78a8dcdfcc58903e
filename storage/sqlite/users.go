package sqlite

import (
	"database/sql"
	"errors"
	"strconv"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// errMoveUser is returned by UpdateUser for a user whose RealmID changed, as
// the memory store does.
var errMoveUser = errors.New("sqlite: a user cannot move between organizations")

// realmArgs returns the column values of r in the order of qCreateRealm and
// qUpdateRealm.
func realmArgs(r *storage.Realm) ([]any, error) {
	created, err := sqlcommon.ToNanos(r.DateCreated)
	if err != nil {
		return nil, err
	}
	return []any{r.Name, r.Description, r.Host, r.URL, b2i(r.Deactivated), created,
		int64(r.DefaultEmailVisibility), r.NewStreamAnnouncementsStreamID, r.SignupAnnouncementsStreamID,
		r.ZulipUpdateAnnouncementsStreamID, r.ModerationRequestChannelID, b2i(r.EmailsRestrictedToDomains),
		b2i(r.DisallowDisposableEmailAddresses), b2i(r.AllowMessageEditing),
		int64(r.MessageContentEditLimitSeconds), int64(r.MessageContentDeleteLimitSeconds),
		string(r.TopicsPolicy), r.DefaultLanguage, r.VideoChatProvider, b2i(r.EnableSpectatorAccess),
		r.WaitingPeriodThreshold, b2i(r.InviteRequired), b2i(r.SendChannelEventsMessages),
		int64(r.MoveMessagesWithinStreamLimitSeconds), int64(r.MoveMessagesBetweenStreamsLimitSeconds),
		string(r.MessageEditHistoryVisibilityPolicy), sqlcommon.GroupSettingText(r.CanMoveMessagesBetweenTopicsGroup),
		sqlcommon.GroupSettingText(r.CanMoveMessagesBetweenChannelsGroup), r.DefaultCodeBlockLanguage}, nil
}

// userTimes returns the user's times as stored, in nanoseconds.
func userTimes(u *storage.UserRecord) (joined, login int64, err error) {
	if joined, err = sqlcommon.ToNanos(u.DateJoined); err != nil {
		return 0, 0, err
	}
	login, err = sqlcommon.ToNanos(u.LastLogin)
	return joined, login, err
}

// storedUser is u as a read of the row written from it returns it, for
// the writer's caches once the transaction commits: times come back in
// UTC.
func storedUser(u storage.UserRecord, joined, login int64) storage.UserRecord {
	u.DateJoined, u.LastLogin = sqlcommon.FromNanos(joined), sqlcommon.FromNanos(login)
	return u
}

// usersWrite is what a write transaction changed in one realm's users:
// the realm's users_version before its first change, the rows its
// statements changed (each bumps the version once, by the triggers of
// migration 1), and the users as it stored them, in order. A transaction
// that writes the users of two realms, or of a realm whose list is not
// cached, gives the cache nothing.
type usersWrite struct {
	realmID, from, changed int64
	users                  []storage.UserRecord
	skip                   bool
}

// beforeUserWrite notes, before the transaction's first write to the
// users table, the realm's users_version, when the realm's list is cached
// (else there is nothing to patch, and no statement is spent); nothing
// else can change the version until the transaction ends, which holds the
// database's write lock.
func (t *tx) beforeUserWrite(realmID int64) error {
	switch {
	case t.userWrites == nil:
		w := &usersWrite{realmID: realmID, skip: !t.cache.holds(realmID)}
		if !w.skip {
			err := t.stmt(qUsersVersion).QueryRowContext(t.ctx, realmID).Scan(&w.from)
			if errors.Is(err, sql.ErrNoRows) {
				w.skip = true // no such realm: the write itself fails
			} else if err != nil {
				return t.check("users version", err)
			}
		}
		t.userWrites = w
	case t.userWrites.realmID != realmID:
		t.userWrites.skip = true
	}
	return nil
}

// rowsChanged notes that a statement changed n rows of the realm's users.
func (t *tx) rowsChanged(n int64) { t.userWrites.changed += n }

// userWritten notes a user as the transaction stored it.
func (t *tx) userWritten(u storage.UserRecord) {
	t.userWrites.users = append(t.userWrites.users, u)
}

// userListPatch returns, in a write transaction about to commit, what the
// user-list cache must learn once it has: the realm, the version before
// and after its writes, and the users written; ok is false when there is
// nothing to learn.
func (t *tx) userListPatch() (realmID, from, to int64, users []storage.UserRecord, ok bool) {
	w := t.userWrites
	if w == nil || w.skip || len(w.users) == 0 {
		return 0, 0, 0, nil, false
	}
	return w.realmID, w.from, w.from + w.changed, w.users, true
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
	r, err := sqlcommon.ScanRealm(forms, t.stmt(qRealm).QueryRowContext(t.ctx, id))
	if err == nil {
		keep(t.rows, realmRows, r.ID, r)
	}
	return r, t.check("Realm", err)
}

// UserAndRealm reads both rows with one statement in a View; a write
// transaction reads them through its row cache, which usually holds both.
func (t *tx) UserAndRealm(userID int64) (storage.UserRecord, storage.Realm, error) {
	if t.rows != nil {
		return storage.UserThenRealm(t, userID)
	}
	u, r, err := sqlcommon.ScanUserAndRealm(forms, t.stmt(qUserAndRealm).QueryRowContext(t.ctx, userID))
	if err != nil {
		return storage.UserRecord{}, storage.Realm{}, t.check("UserAndRealm", err)
	}
	return u, r, nil
}

func (t *tx) RealmByHost(host string) (storage.Realm, error) {
	r, err := sqlcommon.ScanRealm(forms, t.stmt(qRealmByHost).QueryRowContext(t.ctx, host))
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
		r, err := sqlcommon.ScanRealm(forms, rows)
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

func (t *tx) CreateUser(u *storage.UserRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := userArgs(u)
	if err != nil {
		return err
	}
	if err := t.beforeUserWrite(u.RealmID); err != nil {
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
	t.rowsChanged(1)
	joined, login, _ := userTimes(u) // userArgs checked them
	t.userWritten(storedUser(*u, joined, login))
	return nil
}

func (t *tx) User(id int64) (storage.UserRecord, error) {
	if u, ok := cached(t.rows, userRows, id); ok {
		return u, nil
	}
	u, err := sqlcommon.ScanUser(forms, t.stmt(qUser).QueryRowContext(t.ctx, id))
	if err == nil {
		keep(t.rows, userRows, u.ID, u)
	}
	return u, t.check("User", err)
}

func (t *tx) UserByEmail(realmID int64, email string) (storage.UserRecord, error) {
	u, err := sqlcommon.ScanUser(forms, t.stmt(qUserByEmail).QueryRowContext(t.ctx, realmID, storage.EmailKey(email)))
	return u, t.check("UserByEmail", err)
}

func (t *tx) UserByAPIKey(key string) (storage.UserRecord, error) {
	u, err := sqlcommon.ScanUser(forms, t.stmt(qUserByAPIKey).QueryRowContext(t.ctx, key))
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
	// Many users of one realm at once (the long-polls that a message to a
	// big channel answers come back together, and their credentials are
	// checked in one round) are picked from the whole list, read once
	// into the cache: each later round then costs the version's read.
	if ids == nil || len(ids) >= usersLoadMin && t.ReadOnly {
		read := func() ([]storage.UserRecord, error) { return t.users("Users", qUsersAll, realmID) }
		if !t.ReadOnly {
			// Only a read-only transaction sees nothing but committed
			// data, so only it may fill the cache.
			return read()
		}
		all, err := t.cache.load(realmID, version, read)
		if err != nil {
			return nil, err
		}
		return pick(all, ids), nil
	}
	return t.users("Users", qUsersIDs, realmID, jsonIDs(ids))
}

// usersLoadMin is the number of users that one read asks for from which
// Users reads the realm's whole list into the cache rather than those
// users alone.
const usersLoadMin = 32

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
		u, err := sqlcommon.ScanUser(forms, rows)
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
	if err := t.beforeUserWrite(u.RealmID); err != nil {
		return err
	}
	// Whether the user is active decides whose channel messages they get.
	wroteAll(t.rows, subscriberRows)
	// The keys first: a uniqueness violation there leaves the row as it
	// was.
	keys, err := t.stmt(qUpdateUserKeys).ExecContext(t.ctx, storage.EmailKey(u.Email), int64(u.Role), u.BotOwnerID,
		u.APIKey, u.ID, u.RealmID)
	if err != nil {
		return t.check("UpdateUser", err)
	}
	keysChanged, err := keys.RowsAffected()
	if err != nil {
		return t.check("UpdateUser", err)
	}
	t.rowsChanged(keysChanged)
	res, err := t.stmt(qUpdateUser).ExecContext(t.ctx, append(userUpdateArgs(&u, joined, login), u.ID, u.RealmID)...)
	if err != nil {
		return t.check("UpdateUser", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return t.check("UpdateUser", err)
	}
	t.rowsChanged(n)
	if n > 0 {
		stored := storedUser(u, joined, login)
		t.rows.updatedUser(stored)
		t.userWritten(stored)
		return nil
	}
	// Nothing matched: an unknown ID, or a user of another realm.
	var realmID int64
	if err := t.stmt(qUserRealm).QueryRowContext(t.ctx, u.ID).Scan(&realmID); err != nil {
		return t.check("UpdateUser", err)
	}
	return errMoveUser
}
