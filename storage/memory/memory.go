// Package memory is the reference storage backend: every record in maps
// behind one lock. It is what unit tests run on, and a store for embedding
// programs that need no persistence.
//
// Transactions are serialised writers and concurrent readers (a
// sync.RWMutex). An Update writes in place and keeps an undo log, replayed
// backwards when the transaction fails, so a failed Update leaves nothing
// behind and a successful one costs no copying.
package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/teamchat/chat/storage"
)

// ErrClosed is returned by transactions started after Close.
var ErrClosed = errors.New("memory: store is closed")

// The backend implements the storage SPI.
var (
	_ storage.Store = (*Store)(nil)
	_ storage.Tx    = (*tx)(nil)
	// It answers every optional query itself.
	_ storage.UsersByRoleTx        = (*tx)(nil)
	_ storage.BotsOwnedByTx        = (*tx)(nil)
	_ storage.ChannelsByNameTx     = (*tx)(nil)
	_ storage.SubscriptionColorsTx = (*tx)(nil)
	_ storage.RealmDomainByNameTx  = (*tx)(nil)
	_ storage.UserMessageTx        = (*tx)(nil)
	_ storage.MessageReadersTx     = (*tx)(nil)
	_ storage.MessageMoverTx       = (*tx)(nil)
	_ storage.ReadMarkerTx         = (*tx)(nil)
	_ storage.SubscriberCountsTx   = (*tx)(nil)
)

// Store is an in-memory storage.Store. The zero value is not usable; call New.
type Store struct {
	mu     sync.RWMutex
	closed bool
	s      state
}

type emailIndexKey struct {
	realmID int64
	email   string
}

// state is everything stored, with its indexes.
type state struct {
	lastRealmID int64
	lastUserID  int64

	realms      map[int64]storage.Realm
	realmByHost map[string]int64

	users       map[int64]storage.UserRecord
	userByEmail map[emailIndexKey]int64
	userByKey   map[string]int64
	// realmUsers lists each realm's user IDs in increasing order.
	realmUsers map[int64][]int64

	c        channelState
	msgs     messageState
	profiles profileState
	admin    realmAdminState
	uploads  uploadState
	push     pushState
	// botStorage holds each user's bot storage by key.
	botStorage map[int64]map[string]string
	// presence holds each user's presence; lastPresenceID is the greatest
	// UpdateID given.
	presence       map[int64]storage.Presence
	lastPresenceID int64
	// alertWords holds each user's alert words with the user's realm;
	// muted each user's muted users. Values are replaced, never changed
	// in place.
	alertWords map[int64]alertWords
	muted      map[int64]map[int64]time.Time
	// settings holds each user's stored personal settings.
	settings map[int64]map[string]string
	// botServices holds outgoing-webhook bots' services by bot ID.
	botServices map[int64]storage.BotService
}

// New returns an empty store.
func New() *Store {
	return &Store{s: state{
		realms:      map[int64]storage.Realm{},
		realmByHost: map[string]int64{},
		users:       map[int64]storage.UserRecord{},
		userByEmail: map[emailIndexKey]int64{},
		userByKey:   map[string]int64{},
		realmUsers:  map[int64][]int64{},
		c:           newChannelState(),
		msgs:        newMessageState(),
		profiles:    newProfileState(),
		admin:       newRealmAdminState(),
		uploads:     newUploadState(),
		push:        newPushState(),
		botStorage:  map[int64]map[string]string{},
		presence:    map[int64]storage.Presence{},
		alertWords:  map[int64]alertWords{},
		muted:       map[int64]map[int64]time.Time{},
		settings:    map[int64]map[string]string{},
		botServices: map[int64]storage.BotService{},
	}}
}

// View runs fn with a read-only transaction.
func (st *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(&tx{s: &st.s, readOnly: true})
}

// Update runs fn with a read-write transaction, undoing its writes when it
// returns an error or panics.
func (st *Store) Update(ctx context.Context, fn func(storage.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	// The context may have ended while this Update waited for the lock.
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{s: &st.s}
	committed := false
	defer func() {
		if !committed {
			t.rollback()
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	committed = true
	return nil
}

// Close makes later transactions fail with ErrClosed.
func (st *Store) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	return nil
}

// tx is one transaction. Its undo log holds, newest last, the functions that
// restore what each write changed.
type tx struct {
	s        *state
	readOnly bool
	undo     []func()
}

func (t *tx) rollback() {
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
	t.undo = nil
}

func (t *tx) writable() error {
	if t.readOnly {
		return storage.ErrReadOnly
	}
	return nil
}

// Realms.

func (t *tx) CreateRealm(r *storage.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.realmByHost[r.Host]; ok {
		return storage.ErrExists
	}
	r.ID = nextID(t, &t.s.lastRealmID)
	t.putRealm(nil, r)
	return nil
}

func (t *tx) Realm(id int64) (storage.Realm, error) {
	return lookup(t.s.realms, id)
}

func (t *tx) RealmByHost(host string) (storage.Realm, error) {
	id, ok := t.s.realmByHost[host]
	if !ok {
		return storage.Realm{}, storage.ErrNotFound
	}
	return t.s.realms[id], nil
}

func (t *tx) Realms() ([]storage.Realm, error) {
	out := make([]storage.Realm, 0, len(t.s.realms))
	for _, r := range t.s.realms {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b storage.Realm) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (t *tx) UpdateRealm(r storage.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	old, ok := t.s.realms[r.ID]
	if !ok {
		return storage.ErrNotFound
	}
	if id, ok := t.s.realmByHost[r.Host]; ok && id != r.ID {
		return storage.ErrExists
	}
	t.putRealm(&old, &r)
	return nil
}

// putRealm replaces old (nil for none) with r in the maps and logs the undo.
func (t *tx) putRealm(old, r *storage.Realm) {
	set := func(from, to *storage.Realm) {
		if from != nil {
			delete(t.s.realmByHost, from.Host)
			delete(t.s.realms, from.ID)
		}
		if to != nil {
			t.s.realms[to.ID] = *to
			t.s.realmByHost[to.Host] = to.ID
		}
	}
	r2 := *r
	r2.RealmSettings = r.RealmSettings.Clone()
	set(old, &r2)
	t.onUndo(func() { set(&r2, old) })
}

// Users.

func (t *tx) CreateUser(u *storage.UserRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.userByEmail[emailIndexKey{u.RealmID, storage.EmailKey(u.Email)}]; ok {
		return storage.ErrExists
	}
	if _, ok := t.s.userByKey[u.APIKey]; ok {
		return storage.ErrExists
	}
	u.ID = nextID(t, &t.s.lastUserID)
	t.putUser(nil, u)
	// Appending may write into the spare capacity of the slice a reader
	// holds, beyond its length, which that reader never sees.
	setKey(t, t.s.realmUsers, u.RealmID, append(t.s.realmUsers[u.RealmID], u.ID))
	return nil
}

func (t *tx) User(id int64) (storage.UserRecord, error) {
	return lookup(t.s.users, id)
}

func (t *tx) UserByEmail(realmID int64, email string) (storage.UserRecord, error) {
	id, ok := t.s.userByEmail[emailIndexKey{realmID, storage.EmailKey(email)}]
	if !ok {
		return storage.UserRecord{}, storage.ErrNotFound
	}
	return t.s.users[id], nil
}

func (t *tx) UserByAPIKey(key string) (storage.UserRecord, error) {
	id, ok := t.s.userByKey[key]
	if !ok {
		return storage.UserRecord{}, storage.ErrNotFound
	}
	return t.s.users[id], nil
}

func (t *tx) Users(realmID int64, ids []int64) ([]storage.UserRecord, error) {
	if ids == nil {
		all := t.s.realmUsers[realmID]
		out := make([]storage.UserRecord, len(all))
		for i, id := range all {
			out[i] = t.s.users[id]
		}
		return out, nil
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make([]storage.UserRecord, 0, len(sorted))
	for _, id := range sorted {
		if u, ok := t.s.users[id]; ok && u.RealmID == realmID {
			out = append(out, u)
		}
	}
	return out, nil
}

func (t *tx) ActiveUserIDs(realmID int64, ids []int64) ([]int64, error) {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make([]int64, 0, len(sorted))
	for _, id := range sorted {
		if u, ok := t.s.users[id]; ok && u.RealmID == realmID && u.IsActive {
			out = append(out, id)
		}
	}
	return out, nil
}

func (t *tx) UsersByRole(realmID int64, role storage.Role) ([]storage.UserRecord, error) {
	return t.filterUsers(realmID, func(u *storage.UserRecord) bool { return u.Role == role }), nil
}

func (t *tx) BotsOwnedBy(ownerID int64) ([]storage.UserRecord, error) {
	owner, ok := t.s.users[ownerID]
	if !ok {
		return nil, nil
	}
	return t.filterUsers(owner.RealmID, func(u *storage.UserRecord) bool {
		return u.BotType != storage.BotNone && u.BotOwnerID == ownerID
	}), nil
}

func (t *tx) filterUsers(realmID int64, keep func(*storage.UserRecord) bool) []storage.UserRecord {
	var out []storage.UserRecord
	for _, id := range t.s.realmUsers[realmID] {
		if u := t.s.users[id]; keep(&u) {
			out = append(out, u)
		}
	}
	return out
}

func (t *tx) UpdateUser(u storage.UserRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	old, ok := t.s.users[u.ID]
	if !ok {
		return storage.ErrNotFound
	}
	if id, ok := t.s.userByEmail[emailIndexKey{u.RealmID, storage.EmailKey(u.Email)}]; ok && id != u.ID {
		return storage.ErrExists
	}
	if id, ok := t.s.userByKey[u.APIKey]; ok && id != u.ID {
		return storage.ErrExists
	}
	if u.RealmID != old.RealmID {
		return errors.New("memory: a user cannot move between organizations")
	}
	t.putUser(&old, &u)
	return nil
}

// putUser replaces old (nil for none) with u in the maps and logs the undo.
func (t *tx) putUser(old, u *storage.UserRecord) {
	set := func(from, to *storage.UserRecord) {
		if from != nil {
			delete(t.s.userByEmail, emailIndexKey{from.RealmID, storage.EmailKey(from.Email)})
			delete(t.s.userByKey, from.APIKey)
			delete(t.s.users, from.ID)
		}
		if to != nil {
			t.s.users[to.ID] = *to
			t.s.userByEmail[emailIndexKey{to.RealmID, storage.EmailKey(to.Email)}] = to.ID
			t.s.userByKey[to.APIKey] = to.ID
		}
	}
	u2 := *u
	set(old, &u2)
	t.onUndo(func() { set(&u2, old) })
}
