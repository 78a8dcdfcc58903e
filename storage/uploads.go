package storage

import "time"

// Attachment is an uploaded file as stored.
type Attachment struct {
	ID      int64
	RealmID int64
	// OwnerID is the user who uploaded the file.
	OwnerID int64
	// PathID is the file's key, unique in the server:
	// "{realm_id}/{2 hex}/{24 url-safe random}/{sanitised name}". Its URL is
	// "/user_uploads/" + PathID.
	PathID string
	// Name is the file name the client sent, unsanitised (URL-unquoted).
	Name        string
	Size        int64
	ContentType string
	CreateTime  time.Time
}

// URL is the relative URL that links the file in message content.
func (a *Attachment) URL() string { return "/user_uploads/" + a.PathID }

// AttachmentTx stores attachment records. The bytes live in a BlobStore.
type AttachmentTx interface {
	// CreateAttachment stores a under a new ID and sets a.ID. It returns
	// ErrExists when another attachment has the same PathID.
	CreateAttachment(a *Attachment) error
	// AttachmentByPath returns the attachment of the realm whose PathID is
	// pathID, or ErrNotFound (also for another realm's attachment).
	AttachmentByPath(realmID int64, pathID string) (Attachment, error)
	// UploadSpaceUsed returns the sum of the sizes of the realm's
	// attachments; 0 for a realm without any.
	UploadSpaceUsed(realmID int64) (int64, error)
	// LinkAttachment records that the message with messageID links the
	// attachment; linking twice is no error. It returns ErrNotFound for an
	// unknown attachmentID.
	LinkAttachment(attachmentID, messageID int64) error
	// UnlinkAttachment removes the link of the message to the attachment
	// (an edit took it out); a link that does not exist is no error.
	UnlinkAttachment(attachmentID, messageID int64) error
	// AttachmentMessages returns the IDs of the messages that link the
	// attachment, in increasing order; none for an unknown attachment.
	AttachmentMessages(attachmentID int64) ([]int64, error)
	// Attachments returns the attachments the user owns, ordered by ID.
	Attachments(ownerID int64) ([]Attachment, error)
	// DeleteAttachment removes the attachment with the ID and its links to
	// messages, or returns ErrNotFound.
	DeleteAttachment(id int64) error
}
