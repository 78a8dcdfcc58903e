package storage

import "time"

// ChannelFolder is a folder of channels as stored.
type ChannelFolder struct {
	ID                  int64
	RealmID             int64
	Name                string
	Description         string
	RenderedDescription string
	CreatorID           int64
	DateCreated         time.Time
	IsArchived          bool
	Order               int64
}

// FolderTx stores channel folders.
type FolderTx interface {
	// CreateChannelFolder stores f under a new ID and sets f.ID.
	CreateChannelFolder(f *ChannelFolder) error
	// ChannelFolder returns the folder with the ID, or ErrNotFound.
	ChannelFolder(id int64) (ChannelFolder, error)
	// ChannelFolders returns the realm's folders ordered by Order then ID.
	ChannelFolders(realmID int64) ([]ChannelFolder, error)
	// UpdateChannelFolder replaces the stored folder with f.ID, or returns
	// ErrNotFound.
	UpdateChannelFolder(f ChannelFolder) error
}
