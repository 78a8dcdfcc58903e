package storage

import "time"

// Realm is an organization as stored.
type Realm struct {
	ID   int64
	Name string
	// Description is shown on the login page; plain text, one paragraph per
	// blank-line-separated block.
	Description string
	// Host is the host name (with port, when not the default one) through
	// which clients reach the organization.
	Host string
	// URL is the canonical URL of the organization, such as
	// https://chat.example.com.
	URL         string
	Deactivated bool
	DateCreated time.Time
	// DefaultEmailVisibility is given to new users.
	DefaultEmailVisibility EmailVisibility
	// The organization's channels for announcements and moderation
	// requests; zero for none (see UpdateRealm).
	NewStreamAnnouncementsStreamID   int64
	SignupAnnouncementsStreamID      int64
	ZulipUpdateAnnouncementsStreamID int64
	ModerationRequestChannelID       int64
	// RealmSettings are the settings that administrators change.
	RealmSettings
}
