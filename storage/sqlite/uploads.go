package sqlite

import (
	"errors"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Uploads and push.

// isForeignKeyViolation reports whether err is the violation of a FOREIGN
// KEY constraint.
func isForeignKeyViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

func (t *tx) CreateAttachment(a *storage.Attachment) error {
	if err := t.Writable(); err != nil {
		return err
	}
	created, err := sqlcommon.ToNanos(a.CreateTime)
	if err != nil {
		return err
	}
	res, err := t.stmt(qCreateAttachment).ExecContext(t.ctx, a.RealmID, a.OwnerID, a.PathID, a.Name, a.Size,
		a.ContentType, created)
	if err != nil {
		return t.check("CreateAttachment", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateAttachment", err)
	}
	a.ID = id
	return nil
}

func (t *tx) AttachmentByPath(realmID int64, pathID string) (storage.Attachment, error) {
	var (
		a       storage.Attachment
		created int64
	)
	err := t.stmt(qAttachmentByPath).QueryRowContext(t.ctx, pathID, realmID).Scan(&a.ID, &a.RealmID,
		&a.OwnerID, &a.PathID, &a.Name, &a.Size, &a.ContentType, &created)
	a.CreateTime = sqlcommon.FromNanos(created)
	return a, t.check("AttachmentByPath", err)
}

func (t *tx) UploadSpaceUsed(realmID int64) (int64, error) {
	var used int64
	err := t.stmt(qUploadSpaceUsed).QueryRowContext(t.ctx, realmID).Scan(&used)
	return used, t.check("UploadSpaceUsed", err)
}

func (t *tx) LinkAttachment(attachmentID, messageID int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	_, err := t.stmt(qLinkAttachment).ExecContext(t.ctx, attachmentID, messageID)
	if isForeignKeyViolation(err) {
		return storage.ErrNotFound
	}
	return t.check("LinkAttachment", err)
}

func (t *tx) UnlinkAttachment(attachmentID, messageID int64) error {
	_, err := t.exec("UnlinkAttachment", `DELETE FROM attachment_messages WHERE attachment_id = ? AND message_id = ?`,
		attachmentID, messageID)
	return err
}

func (t *tx) AttachmentMessages(attachmentID int64) ([]int64, error) {
	rows, err := t.stmt(qAttachmentMessages).QueryContext(t.ctx, attachmentID)
	if err != nil {
		return nil, t.check("AttachmentMessages", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, t.check("AttachmentMessages", err)
		}
		out = append(out, id)
	}
	return out, t.check("AttachmentMessages", rows.Err())
}

func (t *tx) AddPushToken(pt storage.PushToken) error {
	if err := t.Writable(); err != nil {
		return err
	}
	created, err := sqlcommon.ToNanos(pt.CreateTime)
	if err != nil {
		return err
	}
	_, err = t.stmt(qAddPushToken).ExecContext(t.ctx, pt.UserID, pt.Kind, pt.Token, pt.AppID, created)
	return t.check("AddPushToken", err)
}

func (t *tx) PushTokens(userID int64) ([]storage.PushToken, error) {
	rows, err := t.stmt(qPushTokens).QueryContext(t.ctx, userID)
	if err != nil {
		return nil, t.check("PushTokens", err)
	}
	defer rows.Close()
	out := []storage.PushToken{}
	for rows.Next() {
		var (
			pt      storage.PushToken
			created int64
		)
		if err := rows.Scan(&pt.UserID, &pt.Kind, &pt.Token, &pt.AppID, &created); err != nil {
			return nil, t.check("PushTokens", err)
		}
		pt.CreateTime = sqlcommon.FromNanos(created)
		out = append(out, pt)
	}
	return out, t.check("PushTokens", rows.Err())
}

// deviceArgs returns the column values of d from user_id on, in the order
// of qCreateDevice and qUpdateDevice.
func deviceArgs(d *storage.Device) ([]any, error) {
	created, err := sqlcommon.ToNanos(d.CreateTime)
	if err != nil {
		return nil, err
	}
	var key any // NULL for no key, so that nil round-trips
	if d.PushKey != nil {
		key = d.PushKey
	}
	return []any{d.UserID, d.RealmID, key, int64(d.PushKeyID), d.TokenKind, d.TokenID, d.BouncerPublicKey,
		d.EncryptedPushRegistration, created}, nil
}

func (t *tx) CreateDevice(d *storage.Device) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := deviceArgs(d)
	if err != nil {
		return err
	}
	res, err := t.stmt(qCreateDevice).ExecContext(t.ctx, args...)
	if err != nil {
		return t.check("CreateDevice", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateDevice", err)
	}
	d.ID = id
	return nil
}

func (t *tx) Device(id int64) (storage.Device, error) {
	d, err := sqlcommon.ScanDevice(t.stmt(qDevice).QueryRowContext(t.ctx, id))
	return d, t.check("Device", err)
}

func (t *tx) Devices(userID int64) ([]storage.Device, error) {
	rows, err := t.stmt(qDevices).QueryContext(t.ctx, userID)
	if err != nil {
		return nil, t.check("Devices", err)
	}
	defer rows.Close()
	out := []storage.Device{}
	for rows.Next() {
		d, err := sqlcommon.ScanDevice(rows)
		if err != nil {
			return nil, t.check("Devices", err)
		}
		out = append(out, d)
	}
	return out, t.check("Devices", rows.Err())
}

func (t *tx) UpdateDevice(d storage.Device) error {
	if err := t.Writable(); err != nil {
		return err
	}
	args, err := deviceArgs(&d)
	if err != nil {
		return err
	}
	res, err := t.stmt(qUpdateDevice).ExecContext(t.ctx, append(args, d.ID)...)
	if err != nil {
		return t.check("UpdateDevice", err)
	}
	return t.affected("UpdateDevice", res)
}

func (t *tx) DeleteDevice(id int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	res, err := t.stmt(qDeleteDevice).ExecContext(t.ctx, id)
	if err != nil {
		return t.check("DeleteDevice", err)
	}
	return t.affected("DeleteDevice", res)
}

func (t *tx) Attachments(ownerID int64) ([]storage.Attachment, error) {
	out := []storage.Attachment{}
	err := t.query("Attachments", sqlcommon.SelectAttachment+`WHERE owner_id = ? ORDER BY id`, sqlcommon.Into(&out, sqlcommon.ScanAttachment), ownerID)
	return out, err
}

func (t *tx) DeleteAttachment(id int64) error {
	res, err := t.exec("DeleteAttachment", `DELETE FROM attachments WHERE id = ?`, id)
	if err != nil {
		return err
	}
	return t.affected("DeleteAttachment", res)
}
