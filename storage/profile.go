package storage

import "encoding/json"

// FieldType is the type of a custom profile field.
type FieldType int

// The custom profile field types.
const (
	FieldShortText       FieldType = 1
	FieldLongText        FieldType = 2
	FieldChoice          FieldType = 3
	FieldDate            FieldType = 4
	FieldLink            FieldType = 5
	FieldUsers           FieldType = 6
	FieldExternalAccount FieldType = 7
	FieldPronouns        FieldType = 8
)

// Valid reports whether t is one of the eight field types.
func (t FieldType) Valid() bool { return t >= FieldShortText && t <= FieldPronouns }

// Renders reports whether values of the type are Markdown and carry a
// rendered_value.
func (t FieldType) Renders() bool { return t == FieldShortText || t == FieldLongText }

// ProfileField is a custom profile field definition as stored. Its JSON form
// is the wire form of GET /realm/profile_fields.
type ProfileField struct {
	ID      int64
	RealmID int64
	// Name is unique in the organization.
	Name string
	Hint string
	Type FieldType
	// FieldData is the type's extra data as JSON text (the choices of a
	// choice field, the subtype of an external account), or "" for none.
	FieldData               string
	Order                   int
	Required                bool
	EditableByUser          bool
	DisplayInProfileSummary bool
	UseForUserMatching      bool
}

// MarshalJSON writes the wire form: field_data stays a JSON-encoded string,
// display_in_profile_summary and use_for_user_matching appear only when
// true.
func (f ProfileField) MarshalJSON() ([]byte, error) {
	type wire struct {
		ID                      int64     `json:"id"`
		Name                    string    `json:"name"`
		Type                    FieldType `json:"type"`
		Hint                    string    `json:"hint"`
		FieldData               string    `json:"field_data"`
		Order                   int       `json:"order"`
		Required                bool      `json:"required"`
		EditableByUser          bool      `json:"editable_by_user"`
		DisplayInProfileSummary bool      `json:"display_in_profile_summary,omitempty"`
		UseForUserMatching      bool      `json:"use_for_user_matching,omitempty"`
	}
	return json.Marshal(wire{f.ID, f.Name, f.Type, f.Hint, f.FieldData, f.Order, f.Required,
		f.EditableByUser, f.DisplayInProfileSummary, f.UseForUserMatching})
}

// ProfileValueRecord is one user's value of one custom profile field as
// stored. RenderedValue is set for the Markdown types.
type ProfileValueRecord struct {
	UserID        int64
	FieldID       int64
	Value         string
	RenderedValue *string
}

// ProfileTx stores custom profile fields and their values.
type ProfileTx interface {
	// CreateProfileField stores f under a new ID and sets f.ID; f.RealmID
	// must name a stored realm. It returns ErrExists when the realm already
	// has a field with the same Name.
	CreateProfileField(f *ProfileField) error
	// ProfileFields returns the realm's fields ordered by Order, then ID.
	ProfileFields(realmID int64) ([]ProfileField, error)
	// UpdateProfileField replaces the stored field with f.ID (all but its
	// realm), or returns ErrNotFound; ErrExists as for CreateProfileField.
	UpdateProfileField(f ProfileField) error
	// DeleteProfileField removes the field and every user's value of it,
	// or returns ErrNotFound.
	DeleteProfileField(id int64) error
	// ProfileValues returns the stored values of the realm's users, ordered
	// by user ID then field ID: of every user when userIDs is nil,
	// otherwise of the listed users (unknown IDs are skipped).
	ProfileValues(realmID int64, userIDs []int64) ([]ProfileValueRecord, error)
	// SetProfileValue stores v, replacing the user's value of the field.
	// The user and the field must exist.
	SetProfileValue(v ProfileValueRecord) error
	// DeleteProfileValue removes the user's value of the field; removing a
	// value that does not exist is not an error.
	DeleteProfileValue(userID, fieldID int64) error
}
