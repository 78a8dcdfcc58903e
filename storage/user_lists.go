package storage

import "time"

// MutedUser records that UserID muted MutedUserID.
type MutedUser struct {
	UserID      int64
	MutedUserID int64
	DateMuted   time.Time
}

// UserListTx stores the lists users keep of their own: alert words and
// muted users.
type UserListTx interface {
	// RealmAlertWords returns the alert words of the realm's users, by
	// user ID, each user's in the order they were set; users without alert
	// words have no entry.
	RealmAlertWords(realmID int64) (map[int64][]string, error)
	// SetAlertWords replaces the alert words of a user of the realm; none
	// removes them all.
	SetAlertWords(realmID, userID int64, words []string) error

	// MutedUsers returns whom the user muted, ordered by MutedUserID.
	MutedUsers(userID int64) ([]MutedUser, error)
	// UsersMuting returns the IDs of the users who muted mutedUserID, in
	// increasing order.
	UsersMuting(mutedUserID int64) ([]int64, error)
	// MuteUser stores m, or returns ErrExists when the user muted that
	// user already; both users must exist.
	MuteUser(m MutedUser) error
	// UnmuteUser removes the record, or returns ErrNotFound.
	UnmuteUser(userID, mutedUserID int64) error
}
