package chat

import "github.com/teamchat/chat/storage"

// The records and values below are stored as they are and returned by the
// API as they are stored, so the API names them after package storage,
// which defines them for the backends.

// ReactionType is the namespace of an emoji code.
type ReactionType = storage.ReactionType

// GroupSetting is a group-setting value: either a user group (GroupID not
// zero) or an anonymous group of direct members and subgroups.
type GroupSetting = storage.GroupSetting

// Linkifier turns text that matches Pattern in messages and topics into a
// link: the URL is URLTemplate, an RFC 6570 template whose variables are
// the pattern's named groups.
type Linkifier = storage.Linkifier

// FieldType is the type of a custom profile field.
type FieldType = storage.FieldType

// ProfileField is a custom profile field definition as stored.
type ProfileField = storage.ProfileField

// Realm is an organization as stored.
type Realm = storage.Realm

// RealmDomain is an allowed email domain of an organization: when the
// organization restricts new users' addresses (EmailsRestrictedToDomains),
// an address must be at one of these domains, or at a subdomain of one that
// allows subdomains.
type RealmDomain = storage.RealmDomain

// RealmSettings are the organization settings that administrators change
// with PATCH /realm and that operations read.
type RealmSettings = storage.RealmSettings

// TimeLimit is a time limit in whole seconds; zero means no limit.
type TimeLimit = storage.TimeLimit

// TopicsPolicy says whether a channel's messages may use the empty topic.
type TopicsPolicy = storage.TopicsPolicy

// EditHistoryPolicy says which part of messages' edit history users see.
type EditHistoryPolicy = storage.EditHistoryPolicy

// Attachment is an uploaded file as stored.
type Attachment = storage.Attachment

// Role is a user's role in an organization.
type Role = storage.Role

// BotType says what kind of bot an account is; zero means a human.
type BotType = storage.BotType

// EmailVisibility is a user's setting for who may see their real email
// address.
type EmailVisibility = storage.EmailVisibility

// UserStatus is a user's status as stored and as the Go API returns it. All
// fields empty means no status.
type UserStatus = storage.UserStatus

// Values of the types above, as package storage defines them.
const (
	UnicodeEmoji            = storage.UnicodeEmoji
	RealmEmojiType          = storage.RealmEmojiType
	ServiceExtraEmoji       = storage.ServiceExtraEmoji
	FieldShortText          = storage.FieldShortText
	FieldLongText           = storage.FieldLongText
	FieldChoice             = storage.FieldChoice
	FieldDate               = storage.FieldDate
	FieldLink               = storage.FieldLink
	FieldUsers              = storage.FieldUsers
	FieldExternalAccount    = storage.FieldExternalAccount
	FieldPronouns           = storage.FieldPronouns
	DefaultMessageTimeLimit = storage.DefaultMessageTimeLimit
	VideoChatDisabled       = storage.VideoChatDisabled
	TopicsInherit           = storage.TopicsInherit
	TopicsAllowEmpty        = storage.TopicsAllowEmpty
	TopicsDisableEmpty      = storage.TopicsDisableEmpty
	TopicsEmptyTopicOnly    = storage.TopicsEmptyTopicOnly
	EditHistoryAll          = storage.EditHistoryAll
	EditHistoryMoves        = storage.EditHistoryMoves
	EditHistoryNone         = storage.EditHistoryNone
	RoleOwner               = storage.RoleOwner
	RoleAdmin               = storage.RoleAdmin
	RoleModerator           = storage.RoleModerator
	RoleMember              = storage.RoleMember
	RoleGuest               = storage.RoleGuest
	BotNone                 = storage.BotNone
	BotGeneric              = storage.BotGeneric
	BotIncomingWebhook      = storage.BotIncomingWebhook
	BotOutgoingWebhook      = storage.BotOutgoingWebhook
	BotEmbedded             = storage.BotEmbedded
	EmailVisibleEveryone    = storage.EmailVisibleEveryone
	EmailVisibleMembers     = storage.EmailVisibleMembers
	EmailVisibleAdmins      = storage.EmailVisibleAdmins
	EmailVisibleNobody      = storage.EmailVisibleNobody
	EmailVisibleModerators  = storage.EmailVisibleModerators
)
