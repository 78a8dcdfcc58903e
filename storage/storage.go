// Package storage is the storage SPI of package chat, as database/sql/driver
// is to database/sql: the interfaces a backend implements (Store, and Tx
// composed of one interface per area), the records it stores, the errors
// it reports, and the keys under which names compare. A backend only
// stores and finds records; every rule lives in package chat, which opens
// transactions through Store and reads and writes through Tx.
//
// A backend passes the conformance suite of package storagetest
// (storagetest.Run). Returned values never alias stored state, and writes
// inside Store.View fail with ErrReadOnly. Check-then-write rules run
// inside one Update, so Updates must be serialisable.
//
// The records that the API returns as they are stored (Realm, Role,
// GroupSetting, ...) are also named by package chat, as aliases.
package storage

import (
	"context"
	"errors"
)

// Storage errors. Backends return them (possibly wrapped); package chat
// turns them into the answers clients see.
var (
	// ErrNotFound reports that no record has the requested key.
	ErrNotFound = errors.New("storage: record not found")
	// ErrExists reports that a write would break a uniqueness rule.
	ErrExists = errors.New("storage: record already exists")
	// ErrReadOnly reports a write attempted inside Store.View.
	ErrReadOnly = errors.New("storage: write in a read-only transaction")
)

// Store is a storage backend. Implementations only store and find records;
// every rule lives in package chat. Returned values never alias stored
// state.
type Store interface {
	// View runs fn in a read-only transaction that sees one consistent
	// snapshot. Writes inside it fail with ErrReadOnly.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction. It commits when fn returns
	// nil and rolls back every write of fn otherwise, returning fn's error.
	// Updates are serialised, so check-then-write rules inside fn are atomic.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store. No transaction may run after it.
	Close() error
}

// Tx is what a transaction can do, composed per area.
type Tx interface {
	RealmTx
	UserTx
	GroupTx
	ChannelTx
	FolderTx
	UserTopicTx
	MessageTx
	MessageEditTx
	ProfileTx
	RealmEmojiTx
	LinkifierTx
	RealmDomainTx
	AttachmentTx
	PushTx
	BotStorageTx
	PresenceTx
	UserListTx
	UserSettingsTx
	BotServiceTx
}

// RealmTx stores organizations.
type RealmTx interface {
	// CreateRealm stores r under a new ID and sets r.ID. It returns ErrExists
	// when another organization has the same Host (compared exactly).
	CreateRealm(r *Realm) error
	// Realm returns the organization with the ID, or ErrNotFound.
	Realm(id int64) (Realm, error)
	// RealmByHost returns the organization whose Host equals host, or
	// ErrNotFound.
	RealmByHost(host string) (Realm, error)
	// Realms returns every organization, ordered by ID.
	Realms() ([]Realm, error)
	// UpdateRealm replaces the stored organization with r.ID, or returns
	// ErrNotFound. ErrExists as for CreateRealm.
	UpdateRealm(r Realm) error
}

// UserTx stores user accounts.
type UserTx interface {
	// CreateUser stores u under a new ID and sets u.ID; u.RealmID must name
	// a stored realm. It returns ErrExists when u's realm already has a user
	// with the same EmailKey(u.Email), or when u.APIKey is already used.
	CreateUser(u *UserRecord) error
	// User returns the user with the ID, or ErrNotFound.
	User(id int64) (UserRecord, error)
	// UserByEmail returns the user of the realm whose EmailKey equals
	// EmailKey(email), or ErrNotFound.
	UserByEmail(realmID int64, email string) (UserRecord, error)
	// UserByAPIKey returns the user whose APIKey equals key, or ErrNotFound.
	UserByAPIKey(key string) (UserRecord, error)
	// Users returns users of the realm ordered by ID: all of them when ids is
	// nil, otherwise those whose ID is in ids (unknown IDs are skipped).
	Users(realmID int64, ids []int64) ([]UserRecord, error)
	// ActiveUserIDs returns, ordered by ID and without repeats, those of ids
	// that are active users of the realm. It lets a message's delivery
	// find its recipients without reading their whole records.
	ActiveUserIDs(realmID int64, ids []int64) ([]int64, error)
	// UpdateUser replaces the stored user with u.ID, or returns ErrNotFound.
	// ErrExists as for CreateUser. A user never moves to another realm: a
	// changed RealmID is an error.
	UpdateUser(u UserRecord) error
}
