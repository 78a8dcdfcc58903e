package storage

import "time"

// Presence is a user's presence as stored: when their clients last told
// the server they were in use, and when they were last connected at all.
type Presence struct {
	UserID  int64
	RealmID int64
	// LastActive is the last report of the user using a client; zero for
	// never.
	LastActive time.Time
	// LastConnected is the last report of any kind, active or idle.
	LastConnected time.Time
	// UpdateID increases with every change of any user's presence in the
	// server, so that clients fetch only what changed since the last
	// update they saw.
	UpdateID int64
}

// PresenceTx stores presences.
type PresenceTx interface {
	// SetPresence stores p under a new UpdateID, greater than every
	// other presence's, and sets p.UpdateID; the user must exist.
	SetPresence(p *Presence) error
	// Presence returns the user's presence, or ErrNotFound.
	Presence(userID int64) (Presence, error)
	// Presences returns the realm's presences whose UpdateID is greater
	// than afterUpdateID, ordered by user ID.
	Presences(realmID, afterUpdateID int64) ([]Presence, error)
	// LastPresenceUpdateID returns the greatest UpdateID of the realm's
	// presences; zero for none.
	LastPresenceUpdateID(realmID int64) (int64, error)
}
