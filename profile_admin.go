package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Errors of changing custom profile fields, with the reference's texts.
var (
	ErrInvalidFieldOrder = &Error{Code: CodeBadRequest, Msg: "Invalid order mapping."}
)

// ProfileFieldUpdate is a request to PATCH /realm/profile_fields/{id}: nil
// fields stay. The field's type cannot change.
type ProfileFieldUpdate struct {
	Name                    *string
	Hint                    *string
	FieldData               json.RawMessage
	DisplayInProfileSummary *bool
	Required                *bool
	EditableByUser          *bool
	UseForUserMatching      *bool
}

// fieldNotFound is the reference's error for an unknown field.
func fieldNotFound(id int64) error {
	return errorf("Field id %d not found.", id)
}

// UpdateProfileField changes a custom profile field of the actor's
// organization and tells every user with a custom_profile_fields event.
// Administrators may call it.
//
// Errors: ErrMustBeAdmin; "Field id {id} not found."; the name, hint,
// field_data, summary and matching errors of CreateProfileField;
// ErrFieldLabelExists.
func (s *Service) UpdateProfileField(ctx context.Context, actor Actor, id int64, req ProfileFieldUpdate) error {
	return s.changeProfileField(ctx, actor, id, func(tx storage.Tx, emit func(Event), realm Realm, fields []storage.ProfileField, i int) error {
		f := fields[i]
		isDefaultAccount := f.Type == FieldExternalAccount && slices.Contains(mapsValues(defaultExternalAccounts), f.Name)
		if req.Name != nil && !isDefaultAccount {
			name := strings.TrimSpace(*req.Name)
			if name == "" {
				return ErrLabelBlank
			}
			if utf8.RuneCountInString(name) > maxFieldNameLength {
				return errorf("name is too long (limit: %d characters)", maxFieldNameLength)
			}
			f.Name = name
		}
		if req.Hint != nil && !isDefaultAccount {
			if utf8.RuneCountInString(*req.Hint) > maxFieldHintLength {
				return errorf("hint is too long (limit: %d characters)", maxFieldHintLength)
			}
			f.Hint = *req.Hint
		}
		if req.FieldData != nil && !isDefaultAccount {
			data, err := checkFieldData(f.Type, req.FieldData)
			if err != nil {
				return err
			}
			if f.FieldData, err = encodeFieldData(data); err != nil {
				return err
			}
		}
		for _, b := range []struct {
			v   *bool
			dst *bool
		}{{req.DisplayInProfileSummary, &f.DisplayInProfileSummary}, {req.Required, &f.Required},
			{req.EditableByUser, &f.EditableByUser}, {req.UseForUserMatching, &f.UseForUserMatching}} {
			if b.v != nil {
				*b.dst = *b.v
			}
		}
		if err := checkFieldFlags(&f, fields, f.DisplayInProfileSummary && !fields[i].DisplayInProfileSummary); err != nil {
			return err
		}
		if f == fields[i] {
			return nil
		}
		if err := tx.UpdateProfileField(f); errors.Is(err, storage.ErrExists) {
			return ErrFieldLabelExists
		} else if err != nil {
			return err
		}
		fields[i] = f
		emitProfileFields(emit, realm.ID, fields)
		return nil
	})
}

// changeProfileField runs change in a write transaction of an
// administrator, with the organization's fields and the index of field id
// among them.
func (s *Service) changeProfileField(ctx context.Context, actor Actor, id int64,
	change func(tx storage.Tx, emit func(Event), realm Realm, fields []storage.ProfileField, i int) error) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpCreateProfileField)
		if err != nil {
			return err
		}
		fields, err := tx.ProfileFields(realm.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(fields, func(f storage.ProfileField) bool { return f.ID == id })
		if i < 0 {
			return fieldNotFound(id)
		}
		return change(tx, emit, realm, fields, i)
	})
}

func mapsValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func emitProfileFields(emit func(Event), realmID int64, fields []storage.ProfileField) {
	emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{"type": "custom_profile_fields", "fields": fields}})
}

// DeleteProfileField removes a custom profile field and every user's value
// of it, and tells every user with a custom_profile_fields event.
// Administrators may call it.
//
// Errors: ErrMustBeAdmin; "Field id {id} not found.".
func (s *Service) DeleteProfileField(ctx context.Context, actor Actor, id int64) error {
	return s.changeProfileField(ctx, actor, id, func(tx storage.Tx, emit func(Event), realm Realm, fields []storage.ProfileField, i int) error {
		if err := tx.DeleteProfileField(id); err != nil {
			return err
		}
		emitProfileFields(emit, realm.ID, slices.Delete(fields, i, i+1))
		return nil
	})
}

// ReorderProfileFields sets the display order of the organization's
// custom profile fields (PATCH /realm/profile_fields): order lists every
// field's ID once, first shown first. Administrators may call it.
//
// Errors: ErrMustBeAdmin; ErrInvalidFieldOrder when order is not a
// permutation of the fields' IDs.
func (s *Service) ReorderProfileFields(ctx context.Context, actor Actor, order []int64) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpCreateProfileField)
		if err != nil {
			return err
		}
		fields, err := tx.ProfileFields(realm.ID)
		if err != nil {
			return err
		}
		ids := make([]int64, len(fields))
		for i := range fields {
			ids[i] = fields[i].ID
		}
		if len(order) != len(ids) || !slices.Equal(slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(ids))) {
			return ErrInvalidFieldOrder
		}
		changed := false
		for i := range fields {
			pos := slices.Index(order, fields[i].ID) + 1
			if fields[i].Order != pos {
				fields[i].Order, changed = pos, true
				if err := tx.UpdateProfileField(fields[i]); err != nil {
					return err
				}
			}
		}
		if !changed {
			return nil
		}
		slices.SortFunc(fields, func(a, b storage.ProfileField) int { return a.Order - b.Order })
		emitProfileFields(emit, realm.ID, fields)
		return nil
	})
}
