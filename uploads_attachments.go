package chat

import (
	"context"
	"errors"
	"time"

	"github.com/teamchat/chat/storage"
)

// ErrInvalidAttachment answers a removal of an attachment that is not the
// actor's.
var ErrInvalidAttachment = errorf("Invalid attachment")

// AttachmentView is one of a user's uploaded files as GET /attachments
// shows it: times in milliseconds since the epoch, and the messages that
// link it.
type AttachmentView struct {
	ID         int64               `json:"id"`
	Name       string              `json:"name"`
	PathID     string              `json:"path_id"`
	Size       int64               `json:"size"`
	CreateTime int64               `json:"create_time"`
	Messages   []AttachmentMessage `json:"messages"`
}

// AttachmentMessage is a message that links an attachment.
type AttachmentMessage struct {
	ID       int64 `json:"id"`
	DateSent int64 `json:"date_sent"`
}

// AttachmentsResult is the answer of Attachments.
type AttachmentsResult struct {
	Attachments []AttachmentView `json:"attachments"`
	// UploadSpaceUsed is the organization's, in bytes.
	UploadSpaceUsed int64 `json:"upload_space_used"`
}

// Attachments returns the files the actor uploaded, oldest first, and the
// upload space their organization uses. Any user may call it.
//
// Errors: those of the actor check.
func (s *Service) Attachments(ctx context.Context, actor Actor) (AttachmentsResult, error) {
	var out AttachmentsResult
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, realm, err := s.admit(tx, actor, OpAttachments)
		if err != nil {
			return err
		}
		list, err := tx.Attachments(u.ID)
		if err != nil {
			return err
		}
		out.Attachments = make([]AttachmentView, len(list))
		for i, a := range list {
			v := AttachmentView{ID: a.ID, Name: a.Name, PathID: a.PathID, Size: a.Size,
				CreateTime: secondsInMillis(a.CreateTime), Messages: []AttachmentMessage{}}
			ids, err := tx.AttachmentMessages(a.ID)
			if err != nil {
				return err
			}
			for _, id := range ids {
				m, err := tx.Message(id)
				if errors.Is(err, storage.ErrNotFound) {
					continue // deleted since it linked the file
				}
				if err != nil {
					return err
				}
				v.Messages = append(v.Messages, AttachmentMessage{ID: m.ID, DateSent: secondsInMillis(m.DateSent)})
			}
			out.Attachments[i] = v
		}
		out.UploadSpaceUsed, err = tx.UploadSpaceUsed(realm.ID)
		return err
	})
	return out, err
}

// DeleteAttachment removes one of the actor's uploaded files: its record,
// then its bytes. Messages that linked it keep their text; the link no
// longer answers. The actor's queues get an attachment/remove event. Any
// user may call it for their own files.
//
// Errors: ErrInvalidAttachment for an unknown attachment or another
// user's; those of the actor check.
func (s *Service) DeleteAttachment(ctx context.Context, actor Actor, id int64) error {
	var removed storage.Attachment
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpDeleteAttachment)
		if err != nil {
			return err
		}
		list, err := tx.Attachments(u.ID)
		if err != nil {
			return err
		}
		found := false
		for _, a := range list {
			if a.ID == id {
				removed, found = a, true
			}
		}
		if !found {
			return ErrInvalidAttachment
		}
		if err := tx.DeleteAttachment(id); err != nil {
			return err
		}
		used, err := tx.UploadSpaceUsed(realm.ID)
		if err != nil {
			return err
		}
		emit(Event{RealmID: realm.ID, UserIDs: []int64{u.ID}, Payload: map[string]any{
			"type": "attachment", "op": "remove", "attachment": map[string]any{"id": id}, "upload_space_used": used,
		}})
		return nil
	})
	if err == nil {
		s.deleteBlob(ctx, removed.PathID)
	}
	return err
}

// secondsInMillis is t in milliseconds since the epoch, truncated to whole
// seconds, as the reference server gives attachments' times.
func secondsInMillis(t time.Time) int64 { return t.Unix() * 1000 }
