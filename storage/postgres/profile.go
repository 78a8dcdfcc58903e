package postgres

import (
	"errors"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Custom profile fields and their values, custom emoji.

// CreateProfileField inserts the field only when its realm exists, so that
// an unknown realm is ErrNotFound rather than a broken transaction.
func (t *tx) CreateProfileField(f *storage.ProfileField) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if _, err := t.Realm(f.RealmID); err != nil {
		return err
	}
	id, err := t.insertID("CreateProfileField", `INSERT INTO profile_fields (realm_id, name, hint, type,
		field_data, display_order, required, editable_by_user, display_in_profile_summary, use_for_user_matching)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
		f.RealmID, f.Name, f.Hint, int64(f.Type), f.FieldData, int64(f.Order), f.Required, f.EditableByUser,
		f.DisplayInProfileSummary, f.UseForUserMatching)
	if err != nil {
		return err
	}
	f.ID = id
	return nil
}

func (t *tx) UpdateProfileField(f storage.ProfileField) error {
	return t.guarded("UpdateProfileField", func() error {
		return t.execOne("UpdateProfileField", `UPDATE profile_fields SET name = $1, hint = $2, type = $3,
			field_data = $4, display_order = $5, required = $6, editable_by_user = $7,
			display_in_profile_summary = $8, use_for_user_matching = $9 WHERE id = $10`,
			f.Name, f.Hint, int64(f.Type), f.FieldData, int64(f.Order), f.Required, f.EditableByUser,
			f.DisplayInProfileSummary, f.UseForUserMatching, f.ID)
	})
}

func (t *tx) DeleteProfileField(id int64) error {
	if _, err := t.exec("DeleteProfileField", `DELETE FROM profile_values WHERE field_id = $1`, id); err != nil {
		return err
	}
	return t.execOne("DeleteProfileField", `DELETE FROM profile_fields WHERE id = $1`, id)
}

func (t *tx) ProfileFields(realmID int64) ([]storage.ProfileField, error) {
	return list(t, "ProfileFields", sqlcommon.SelectProfileField+`WHERE realm_id = $1 ORDER BY display_order, id`,
		scanProfileField, realmID)
}

func (t *tx) ProfileValues(realmID int64, userIDs []int64) ([]storage.ProfileValueRecord, error) {
	if userIDs == nil {
		return list(t, "ProfileValues", sqlcommon.SelectProfileValue+`JOIN users AS u ON u.id = v.user_id
			WHERE u.realm_id = $1 ORDER BY v.user_id, v.field_id`, scanProfileValue, realmID)
	}
	if len(userIDs) == 0 {
		return []storage.ProfileValueRecord{}, nil
	}
	return list(t, "ProfileValues", sqlcommon.SelectProfileValue+`JOIN users AS u ON u.id = v.user_id
		WHERE u.realm_id = $1 AND v.user_id = ANY($2) ORDER BY v.user_id, v.field_id`,
		scanProfileValue, realmID, userIDs)
}

// SetProfileValue writes only when the user and the field exist, so that
// either missing is ErrNotFound rather than a broken transaction.
func (t *tx) SetProfileValue(v storage.ProfileValueRecord) error {
	return t.execOne("SetProfileValue", `INSERT INTO profile_values (user_id, field_id, value, rendered_value)
		SELECT $1, $2, $3, $4
		WHERE EXISTS (SELECT FROM users WHERE id = $1) AND EXISTS (SELECT FROM profile_fields WHERE id = $2)
		ON CONFLICT (user_id, field_id) DO UPDATE SET value = excluded.value,
		rendered_value = excluded.rendered_value`, v.UserID, v.FieldID, v.Value, v.RenderedValue)
}

func (t *tx) DeleteProfileValue(userID, fieldID int64) error {
	_, err := t.exec("DeleteProfileValue", `DELETE FROM profile_values WHERE user_id = $1 AND field_id = $2`,
		userID, fieldID)
	return err
}

// Custom emoji.

func (t *tx) CreateRealmEmoji(e *storage.RealmEmoji) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if _, err := t.Realm(e.RealmID); err != nil {
		return err
	}
	id, err := t.insertID("CreateRealmEmoji", `INSERT INTO realm_emoji (realm_id, name, deactivated, author_id, file_name)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`, e.RealmID, e.Name, e.Deactivated, e.AuthorID, e.FileName)
	if err != nil {
		return err
	}
	e.ID = id
	return nil
}

func (t *tx) RealmEmoji(id int64) (storage.RealmEmoji, error) {
	return one(t, "RealmEmoji", sqlcommon.SelectRealmEmoji+`WHERE id = $1`, scanRealmEmoji, id)
}

func (t *tx) RealmEmojiByName(realmID int64, name string) (storage.RealmEmoji, error) {
	return one(t, "RealmEmojiByName", sqlcommon.SelectRealmEmoji+`WHERE realm_id = $1 AND name = $2`, scanRealmEmoji,
		realmID, name)
}

func (t *tx) UpdateRealmEmoji(e storage.RealmEmoji) error {
	err := t.guarded("UpdateRealmEmoji", func() error {
		return t.execOne("UpdateRealmEmoji", `UPDATE realm_emoji SET name = $1, deactivated = $2, author_id = $3,
			file_name = $4 WHERE id = $5 AND realm_id = $6`, e.Name, e.Deactivated, e.AuthorID, e.FileName, e.ID, e.RealmID)
	})
	if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if _, err := t.RealmEmoji(e.ID); err != nil {
		return err
	}
	return errors.New("postgres: an emoji cannot move between organizations")
}

func (t *tx) RealmEmojis(realmID int64) ([]storage.RealmEmoji, error) {
	return list(t, "RealmEmojis", sqlcommon.SelectRealmEmoji+`WHERE realm_id = $1 ORDER BY id`, scanRealmEmoji, realmID)
}
