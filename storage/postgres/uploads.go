package postgres

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Uploads and push.

func (t *tx) CreateAttachment(a *storage.Attachment) error {
	created, err := sqlcommon.ToNanos(a.CreateTime)
	if err != nil {
		return err
	}
	id, err := t.insertID("CreateAttachment", `INSERT INTO attachments (realm_id, owner_id, path_id, name, size,
		content_type, create_time) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id`,
		a.RealmID, a.OwnerID, a.PathID, a.Name, a.Size, a.ContentType, created)
	if err != nil {
		return err
	}
	a.ID = id
	return nil
}

func (t *tx) AttachmentByPath(realmID int64, pathID string) (storage.Attachment, error) {
	return one(t, "AttachmentByPath", sqlcommon.SelectAttachment+`WHERE path_id = $1 AND realm_id = $2`, scanAttachment, pathID, realmID)
}

func (t *tx) Attachments(ownerID int64) ([]storage.Attachment, error) {
	return list(t, "Attachments", sqlcommon.SelectAttachment+`WHERE owner_id = $1 ORDER BY id`, scanAttachment, ownerID)
}

func (t *tx) DeleteAttachment(id int64) error {
	return t.execOne("DeleteAttachment", `DELETE FROM attachments WHERE id = $1`, id)
}

func (t *tx) UploadSpaceUsed(realmID int64) (int64, error) {
	return one(t, "UploadSpaceUsed", `SELECT coalesce(sum(size), 0)::bigint FROM attachments WHERE realm_id = $1`,
		scanID, realmID)
}

// LinkAttachment writes only when the attachment exists, so that an
// unknown one is ErrNotFound rather than a broken transaction.
func (t *tx) LinkAttachment(attachmentID, messageID int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	var exists bool
	err := t.tx.QueryRow(t.ctx, `WITH link AS (INSERT INTO attachment_messages (attachment_id, message_id)
		SELECT $1, $2 WHERE EXISTS (SELECT FROM attachments WHERE id = $1) ON CONFLICT DO NOTHING)
		SELECT EXISTS (SELECT FROM attachments WHERE id = $1)`, attachmentID, messageID).Scan(&exists)
	if err != nil {
		return t.check("LinkAttachment", err)
	}
	if !exists {
		return storage.ErrNotFound
	}
	return nil
}

func (t *tx) UnlinkAttachment(attachmentID, messageID int64) error {
	_, err := t.exec("UnlinkAttachment", `DELETE FROM attachment_messages WHERE attachment_id = $1 AND message_id = $2`,
		attachmentID, messageID)
	return err
}

func (t *tx) AttachmentMessages(attachmentID int64) ([]int64, error) {
	ids, err := list(t, "AttachmentMessages", `SELECT message_id FROM attachment_messages
		WHERE attachment_id = $1 ORDER BY message_id`, scanID, attachmentID)
	if len(ids) == 0 {
		return nil, err
	}
	return ids, err
}

func (t *tx) AddPushToken(pt storage.PushToken) error {
	created, err := sqlcommon.ToNanos(pt.CreateTime)
	if err != nil {
		return err
	}
	tag, err := t.exec("AddPushToken", `INSERT INTO push_tokens (user_id, kind, token, app_id, create_time)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, pt.UserID, pt.Kind, pt.Token, pt.AppID, created)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrExists
	}
	return nil
}

func (t *tx) PushTokens(userID int64) ([]storage.PushToken, error) {
	return list(t, "PushTokens", `SELECT user_id, kind, token, app_id, create_time FROM push_tokens
		WHERE user_id = $1 ORDER BY seq`, func(row sqlcommon.Scanner) (storage.PushToken, error) {
		var (
			pt      storage.PushToken
			created int64
		)
		err := row.Scan(&pt.UserID, &pt.Kind, &pt.Token, &pt.AppID, &created)
		pt.CreateTime = sqlcommon.FromNanos(created)
		return pt, err
	}, userID)
}

// deviceArgs returns the column values of d from user_id on.
func deviceArgs(d *storage.Device) ([]any, error) {
	created, err := sqlcommon.ToNanos(d.CreateTime)
	if err != nil {
		return nil, err
	}
	return []any{d.UserID, d.RealmID, d.PushKey, int64(d.PushKeyID), d.TokenKind, d.TokenID,
		d.BouncerPublicKey, d.EncryptedPushRegistration, created}, nil
}

func (t *tx) CreateDevice(d *storage.Device) error {
	args, err := deviceArgs(d)
	if err != nil {
		return err
	}
	id, err := t.insertID("CreateDevice", `INSERT INTO devices (user_id, realm_id, push_key, push_key_id,
		token_kind, token_id, bouncer_public_key, encrypted_push_registration, create_time)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`, args...)
	if err != nil {
		return err
	}
	d.ID = id
	return nil
}

func (t *tx) Device(id int64) (storage.Device, error) {
	return one(t, "Device", sqlcommon.SelectDevice+`WHERE id = $1`, sqlcommon.ScanDevice, id)
}

func (t *tx) Devices(userID int64) ([]storage.Device, error) {
	return list(t, "Devices", sqlcommon.SelectDevice+`WHERE user_id = $1 ORDER BY id`, sqlcommon.ScanDevice, userID)
}

func (t *tx) UpdateDevice(d storage.Device) error {
	args, err := deviceArgs(&d)
	if err != nil {
		return err
	}
	return t.execOne("UpdateDevice", `UPDATE devices SET user_id = $1, realm_id = $2, push_key = $3,
		push_key_id = $4, token_kind = $5, token_id = $6, bouncer_public_key = $7,
		encrypted_push_registration = $8, create_time = $9 WHERE id = $10`, append(args, d.ID)...)
}

func (t *tx) DeleteDevice(id int64) error {
	return t.execOne("DeleteDevice", `DELETE FROM devices WHERE id = $1`, id)
}
