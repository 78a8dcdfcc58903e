package sqlite

import (
	"database/sql"
	"errors"
	"strconv"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) CreateProfileField(f *storage.ProfileField) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if _, err := t.Realm(f.RealmID); err != nil {
		return err
	}
	res, err := t.stmt(qCreateProfileField).ExecContext(t.ctx, f.RealmID, f.Name, f.Hint, int64(f.Type),
		f.FieldData, int64(f.Order), b2i(f.Required), b2i(f.EditableByUser), b2i(f.DisplayInProfileSummary),
		b2i(f.UseForUserMatching))
	if err != nil {
		return t.check("CreateProfileField", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateProfileField", err)
	}
	f.ID = id
	return nil
}

func (t *tx) UpdateProfileField(f storage.ProfileField) error {
	res, err := t.exec("UpdateProfileField", `UPDATE profile_fields SET name = ?, hint = ?, type = ?, field_data = ?,
		display_order = ?, required = ?, editable_by_user = ?, display_in_profile_summary = ?, use_for_user_matching = ?
		WHERE id = ?`, f.Name, f.Hint, int64(f.Type), f.FieldData, int64(f.Order), b2i(f.Required), b2i(f.EditableByUser),
		b2i(f.DisplayInProfileSummary), b2i(f.UseForUserMatching), f.ID)
	if err != nil {
		return err
	}
	return t.affected("UpdateProfileField", res)
}

func (t *tx) DeleteProfileField(id int64) error {
	if _, err := t.exec("DeleteProfileField", `DELETE FROM profile_values WHERE field_id = ?`, id); err != nil {
		return err
	}
	res, err := t.exec("DeleteProfileField", `DELETE FROM profile_fields WHERE id = ?`, id)
	if err != nil {
		return err
	}
	return t.affected("DeleteProfileField", res)
}

func (t *tx) ProfileFields(realmID int64) ([]storage.ProfileField, error) {
	rows, err := t.stmt(qProfileFields).QueryContext(t.ctx, realmID)
	if err != nil {
		return nil, t.check("ProfileFields", err)
	}
	defer rows.Close()
	out := []storage.ProfileField{}
	for rows.Next() {
		f, err := sqlcommon.ScanProfileField(forms, rows)
		if err != nil {
			return nil, t.check("ProfileFields", err)
		}
		out = append(out, f)
	}
	return out, t.check("ProfileFields", rows.Err())
}

func (t *tx) ProfileValues(realmID int64, userIDs []int64) ([]storage.ProfileValueRecord, error) {
	out := []storage.ProfileValueRecord{}
	if userIDs != nil && len(userIDs) == 0 {
		return out, nil
	}
	var (
		rows *sql.Rows
		err  error
	)
	if userIDs == nil {
		rows, err = t.stmt(qProfileValuesAll).QueryContext(t.ctx, realmID)
	} else {
		list := make([]byte, 0, 2+len(userIDs)*8)
		list = append(list, '[')
		for i, id := range userIDs {
			if i > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, id, 10)
		}
		list = append(list, ']')
		rows, err = t.stmt(qProfileValuesIDs).QueryContext(t.ctx, realmID, string(list))
	}
	if err != nil {
		return nil, t.check("ProfileValues", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			v        storage.ProfileValueRecord
			rendered sql.NullString
		)
		if err := rows.Scan(&v.UserID, &v.FieldID, &v.Value, &rendered); err != nil {
			return nil, t.check("ProfileValues", err)
		}
		if rendered.Valid {
			v.RenderedValue = &rendered.String
		}
		out = append(out, v)
	}
	return out, t.check("ProfileValues", rows.Err())
}

func (t *tx) SetProfileValue(v storage.ProfileValueRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	var rendered any
	if v.RenderedValue != nil {
		rendered = *v.RenderedValue
	}
	_, err := t.stmt(qSetProfileValue).ExecContext(t.ctx, v.UserID, v.FieldID, v.Value, rendered)
	if isConstraintViolation(err) {
		// A foreign key: the user or the field does not exist.
		return storage.ErrNotFound
	}
	return t.check("SetProfileValue", err)
}

func (t *tx) DeleteProfileValue(userID, fieldID int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	_, err := t.stmt(qDeleteProfileValue).ExecContext(t.ctx, userID, fieldID)
	return t.check("DeleteProfileValue", err)
}

// Custom emoji.

func (t *tx) CreateRealmEmoji(e *storage.RealmEmoji) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if _, err := t.Realm(e.RealmID); err != nil {
		return err
	}
	wroteAll(t.rows, emojiRows)
	res, err := t.stmt(qCreateRealmEmoji).ExecContext(t.ctx, e.RealmID, e.Name, b2i(e.Deactivated), e.AuthorID, e.FileName)
	if err != nil {
		return t.check("CreateRealmEmoji", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return t.check("CreateRealmEmoji", err)
	}
	e.ID = id
	return nil
}

func (t *tx) RealmEmoji(id int64) (storage.RealmEmoji, error) {
	e, err := sqlcommon.ScanRealmEmoji(forms, t.stmt(qRealmEmoji).QueryRowContext(t.ctx, id))
	return e, t.check("RealmEmoji", err)
}

func (t *tx) RealmEmojiByName(realmID int64, name string) (storage.RealmEmoji, error) {
	// Reactions look their emoji up by name, and most names are not the
	// realm's: the writer keeps the answers, "none" included.
	key := emojiKey{realmID, name}
	if row, ok := cached(t.rows, emojiRows, key); ok {
		if !row.found {
			return storage.RealmEmoji{}, storage.ErrNotFound
		}
		return row.emoji, nil
	}
	e, err := sqlcommon.ScanRealmEmoji(forms, t.stmt(qRealmEmojiByName).QueryRowContext(t.ctx, realmID, name))
	err = t.check("RealmEmojiByName", err)
	if err == nil || errors.Is(err, storage.ErrNotFound) {
		keep(t.rows, emojiRows, key, emojiRow{e, err == nil})
	}
	return e, err
}

func (t *tx) UpdateRealmEmoji(e storage.RealmEmoji) error {
	if err := t.Writable(); err != nil {
		return err
	}
	wroteAll(t.rows, emojiRows)
	res, err := t.stmt(qUpdateRealmEmoji).ExecContext(t.ctx, e.Name, b2i(e.Deactivated), e.AuthorID, e.FileName, e.ID, e.RealmID)
	if err != nil {
		return t.check("UpdateRealmEmoji", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return t.check("UpdateRealmEmoji", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := t.RealmEmoji(e.ID); err != nil {
		return err
	}
	return errors.New("sqlite: an emoji cannot move between organizations")
}

func (t *tx) RealmEmojis(realmID int64) ([]storage.RealmEmoji, error) {
	out := []storage.RealmEmoji{}
	err := t.query("RealmEmojis", sqlcommon.SelectRealmEmoji+`WHERE realm_id = ? ORDER BY id`, into(&out, sqlcommon.ScanRealmEmoji), realmID)
	return out, err
}
