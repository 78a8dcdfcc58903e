package storage

// ReactionType is the namespace of an emoji code.
type ReactionType string

// The emoji namespaces.
const (
	// UnicodeEmoji codes are dash-separated hexadecimal code points.
	UnicodeEmoji ReactionType = "unicode_emoji"
	// RealmEmoji codes are the IDs of an organization's custom emoji.
	RealmEmojiType ReactionType = "realm_emoji"
	// ServiceExtraEmoji codes are the names of the service's own emoji.
	ServiceExtraEmoji ReactionType = "service_extra_emoji"
)

// RealmEmoji is an organization's custom emoji as stored. Its wire code is
// its ID in decimal.
type RealmEmoji struct {
	ID      int64
	RealmID int64
	// Name is unique in the organization.
	Name        string
	Deactivated bool
	// AuthorID is the user who added it; zero for none.
	AuthorID int64
	// FileName names its image among the realm's emoji images (the blob
	// "{realm_id}/emoji/{FileName}"); "" for an emoji without one.
	FileName string
}

// RealmEmojiTx stores custom emoji.
type RealmEmojiTx interface {
	// CreateRealmEmoji stores e under a new ID and sets e.ID. It returns
	// ErrExists when e's realm already has an emoji with the same Name.
	CreateRealmEmoji(e *RealmEmoji) error
	// RealmEmoji returns the custom emoji with the ID, or ErrNotFound.
	RealmEmoji(id int64) (RealmEmoji, error)
	// RealmEmojis returns the realm's custom emoji, deactivated ones
	// included, ordered by ID.
	RealmEmojis(realmID int64) ([]RealmEmoji, error)
	// RealmEmojiByName returns the realm's custom emoji with the name, or
	// ErrNotFound.
	RealmEmojiByName(realmID int64, name string) (RealmEmoji, error)
	// UpdateRealmEmoji replaces the stored emoji with e.ID, or returns
	// ErrNotFound. ErrExists as for CreateRealmEmoji.
	UpdateRealmEmoji(e RealmEmoji) error
}
