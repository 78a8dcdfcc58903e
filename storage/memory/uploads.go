package memory

import (
	"cmp"
	"slices"

	"github.com/teamchat/chat/storage"
)

// uploadState holds the attachment records.
type uploadState struct {
	lastID      int64
	attachments map[int64]storage.Attachment
	byPath      map[string]int64
	// messages lists the IDs of the messages linking each attachment, in
	// increasing order.
	messages map[int64][]int64
	// used is the sum of the attachment sizes of each realm.
	used map[int64]int64
}

func newUploadState() uploadState {
	return uploadState{
		attachments: map[int64]storage.Attachment{},
		byPath:      map[string]int64{},
		messages:    map[int64][]int64{},
		used:        map[int64]int64{},
	}
}

func (t *tx) CreateAttachment(a *storage.Attachment) error {
	if err := t.writable(); err != nil {
		return err
	}
	u := &t.s.uploads
	if _, ok := u.byPath[a.PathID]; ok {
		return storage.ErrExists
	}
	a.ID = nextID(t, &u.lastID)
	setKey(t, u.attachments, a.ID, *a)
	setKey(t, u.byPath, a.PathID, a.ID)
	setKey(t, u.used, a.RealmID, u.used[a.RealmID]+a.Size)
	return nil
}

func (t *tx) AttachmentByPath(realmID int64, pathID string) (storage.Attachment, error) {
	id, ok := t.s.uploads.byPath[pathID]
	if !ok {
		return storage.Attachment{}, storage.ErrNotFound
	}
	a := t.s.uploads.attachments[id]
	if a.RealmID != realmID {
		return storage.Attachment{}, storage.ErrNotFound
	}
	return a, nil
}

func (t *tx) UploadSpaceUsed(realmID int64) (int64, error) {
	return t.s.uploads.used[realmID], nil
}

func (t *tx) LinkAttachment(attachmentID, messageID int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	u := &t.s.uploads
	if _, ok := u.attachments[attachmentID]; !ok {
		return storage.ErrNotFound
	}
	old := u.messages[attachmentID]
	i, found := slices.BinarySearch(old, messageID)
	if found {
		return nil
	}
	setKey(t, u.messages, attachmentID, slices.Insert(slices.Clone(old), i, messageID))
	return nil
}

func (t *tx) UnlinkAttachment(attachmentID, messageID int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	u := &t.s.uploads
	if old, ok := u.messages[attachmentID]; ok {
		setKey(t, u.messages, attachmentID, removeSorted(old, messageID))
	}
	return nil
}

func (t *tx) AttachmentMessages(attachmentID int64) ([]int64, error) {
	return slices.Clone(t.s.uploads.messages[attachmentID]), nil
}

func (t *tx) Attachments(ownerID int64) ([]storage.Attachment, error) {
	return filtered(t.s.uploads.attachments, func(a *storage.Attachment) bool { return a.OwnerID == ownerID },
		func(a, b *storage.Attachment) int { return cmp.Compare(a.ID, b.ID) }), nil
}

func (t *tx) DeleteAttachment(id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	u := &t.s.uploads
	a, ok := u.attachments[id]
	if !ok {
		return storage.ErrNotFound
	}
	deleteKey(t, u.attachments, id)
	deleteKey(t, u.byPath, a.PathID)
	deleteKey(t, u.messages, id)
	setKey(t, u.used, a.RealmID, u.used[a.RealmID]-a.Size)
	return nil
}
