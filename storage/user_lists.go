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

// UserSettingsTx stores the personal settings that have no field of
// their own: each as a name and its JSON value, only where the user chose
// one.
type UserSettingsTx interface {
	// UserSettings returns the user's stored settings by name.
	UserSettings(userID int64) (map[string]string, error)
	// SetUserSettings stores the values by name, replacing those stored;
	// the user must exist.
	SetUserSettings(userID int64, values map[string]string) error
}
