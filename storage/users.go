package storage

import (
	"strings"
	"time"
)

// Role is a user's role in an organization. Lower numbers carry more rights.
type Role int

// The roles of an organization's users, from most to least privileged.
const (
	RoleOwner     Role = 100
	RoleAdmin     Role = 200
	RoleModerator Role = 300
	RoleMember    Role = 400
	RoleGuest     Role = 600
)

// Valid reports whether r is one of the five roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOwner, RoleAdmin, RoleModerator, RoleMember, RoleGuest:
		return true
	}
	return false
}

// IsAdmin reports whether the role administers the organization (owners
// included).
func (r Role) IsAdmin() bool { return r == RoleOwner || r == RoleAdmin }

// IsModerator reports whether the role moderates (administrators and owners
// included).
func (r Role) IsModerator() bool { return r.IsAdmin() || r == RoleModerator }

// BotType says what kind of bot an account is; zero means a human.
type BotType int

// The bot types; BotNone is a person.
const (
	BotNone            BotType = 0
	BotGeneric         BotType = 1
	BotIncomingWebhook BotType = 2
	BotOutgoingWebhook BotType = 3
	BotEmbedded        BotType = 4
)

// Valid reports whether t is a human (zero) or one of the four bot types.
func (t BotType) Valid() bool { return t >= BotNone && t <= BotEmbedded }

// EmailVisibility is a user's setting for who may see their real email
// address.
type EmailVisibility int

// The values of the email_address_visibility setting.
const (
	EmailVisibleEveryone   EmailVisibility = 1
	EmailVisibleMembers    EmailVisibility = 2
	EmailVisibleAdmins     EmailVisibility = 3
	EmailVisibleNobody     EmailVisibility = 4
	EmailVisibleModerators EmailVisibility = 5
)

// Valid reports whether v is one of the five settings.
func (v EmailVisibility) Valid() bool {
	return v >= EmailVisibleEveryone && v <= EmailVisibleModerators
}

// UserRecord is a user account as stored. It carries secrets (API key,
// password hash) and is never shown to clients as it is: User is the view.
type UserRecord struct {
	ID      int64
	RealmID int64
	// Email is the real (delivery) address, unique per realm under EmailKey.
	Email    string
	FullName string
	Role     Role
	IsActive bool
	BotType  BotType
	// BotOwnerID is the owner of a bot; zero for humans and legacy bots.
	BotOwnerID int64
	// DateJoined is the creation time until the first login, then the time
	// of the first login.
	DateJoined time.Time
	// LastLogin is the time of the latest login; zero before the first.
	LastLogin      time.Time
	IsImportedStub bool
	Timezone       string
	AvatarSource   string
	AvatarVersion  int
	APIKey         string
	// PasswordHash is a bcrypt hash, or empty when the account has no
	// usable password.
	PasswordHash    string
	EmailVisibility EmailVisibility
	// CanChangeUserEmails is the special permission, given by the server's
	// operator, that lets an owner change other users' addresses.
	CanChangeUserEmails bool
	// PresenceEnabled is the user's presence setting; the deprecated status
	// flag "away" is its negation.
	PresenceEnabled bool
	// Status is the user's status message and emoji.
	Status UserStatus
}

// UserStatus is a user's status as stored and as the Go API returns it.
// All fields empty means no status.
type UserStatus struct {
	// Text has at most 60 code points.
	Text      string
	EmojiName string
	EmojiCode string
	// ReactionType is the namespace of EmojiCode; empty when there is no
	// emoji.
	ReactionType ReactionType
}

// IsBot reports whether the account is a bot.
func (u *UserRecord) IsBot() bool { return u.BotType != BotNone }

// EmailKey is the form under which email addresses are compared and indexed:
// addresses that differ only in case are the same address.
func EmailKey(email string) string { return strings.ToLower(email) }
