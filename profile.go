package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Limits of custom profile fields.
const (
	maxFieldNameLength  = 40
	maxFieldHintLength  = 80
	maxShortValueLength = 50
	maxLongValueLength  = 500
	// maxSummaryFields is how many fields may show in the profile summary.
	maxSummaryFields = 2
)

// Custom profile field errors.
var (
	ErrLabelBlank               = &Error{Code: CodeBadRequest, Msg: "Label cannot be blank."}
	ErrInvalidFieldType         = &Error{Code: CodeBadRequest, Msg: "Invalid field type."}
	ErrFieldNoChoices           = &Error{Code: CodeBadRequest, Msg: "Field must have at least one choice."}
	ErrFieldDuplicateChoices    = &Error{Code: CodeBadRequest, Msg: "Field must not have duplicate choices."}
	ErrChoiceKeyBlank           = &Error{Code: CodeBadRequest, Msg: "'value' cannot be blank."}
	ErrInvalidExternalAccount   = &Error{Code: CodeBadRequest, Msg: "Invalid external account type"}
	ErrCustomAccountNoPattern   = &Error{Code: CodeBadRequest, Msg: "Custom external account must define URL pattern"}
	ErrURLPatternNoUsername     = &Error{Code: CodeBadRequest, Msg: "URL pattern must contain '%(username)s'."}
	ErrSummaryFieldLimit        = &Error{Code: CodeBadRequest, Msg: "Only 2 custom profile fields can be displayed in the profile summary."}
	ErrSummaryFieldType         = &Error{Code: CodeBadRequest, Msg: "Field type not supported for display in profile summary."}
	ErrUserMatchingFieldType    = &Error{Code: CodeBadRequest, Msg: "Field type not supported for user matching."}
	ErrFieldLabelExists         = &Error{Code: CodeBadRequest, Msg: "A field with that label already exists."}
	ErrFieldNotEditableByUser   = &Error{Code: CodeBadRequest, Msg: "You are not allowed to change this field. Contact an administrator to update it."}
	errExternalAccountNoSubtype = &Error{Code: CodeBadRequest, Msg: "subtype key is missing from field_data"}
)

// defaultExternalAccounts are the external-account subtypes whose name the
// service supplies.
var defaultExternalAccounts = map[string]string{
	"github":  "GitHub username",
	"twitter": "Twitter username",
}

// NewProfileField describes a custom profile field to create.
type NewProfileField struct {
	// Name is trimmed; it may be blank only for the default external
	// accounts, whose name the service supplies.
	Name string
	Hint string
	Type FieldType
	// FieldData is a JSON object; nil means {}.
	FieldData               json.RawMessage
	DisplayInProfileSummary bool
	Required                bool
	// EditableByUser says users may change their own value; the HTTP route
	// defaults it to true.
	EditableByUser     bool
	UseForUserMatching bool
}

// CreateProfileField adds a custom profile field to the actor's
// organization, last in display order, and returns its ID. Administrators
// may call it. All active users get a custom_profile_fields event.
//
// Errors, in the order they are checked: ErrMustBeAdmin; "name is too long
// (limit: 40 characters)", "hint is too long (limit: 80 characters)";
// ErrInvalidFieldType; the field_data errors of the type (ErrFieldNoChoices,
// ErrChoiceKeyBlank, ErrFieldDuplicateChoices, "order key is missing from
// field_data", "subtype key is missing from field_data",
// ErrInvalidExternalAccount, ErrCustomAccountNoPattern,
// ErrURLPatternNoUsername); ErrLabelBlank; ErrSummaryFieldType,
// ErrSummaryFieldLimit; ErrUserMatchingFieldType; ErrFieldLabelExists.
func (s *Service) CreateProfileField(ctx context.Context, actor Actor, req NewProfileField) (int64, error) {
	var id int64
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpCreateProfileField)
		if err != nil {
			return err
		}
		name := strings.TrimSpace(req.Name)
		if utf8.RuneCountInString(name) > maxFieldNameLength {
			return errorf("name is too long (limit: %d characters)", maxFieldNameLength)
		}
		if utf8.RuneCountInString(req.Hint) > maxFieldHintLength {
			return errorf("hint is too long (limit: %d characters)", maxFieldHintLength)
		}
		if !req.Type.Valid() {
			return ErrInvalidFieldType
		}
		data, err := checkFieldData(req.Type, req.FieldData)
		if err != nil {
			return err
		}
		f := ProfileField{RealmID: realm.ID, Name: name, Hint: req.Hint, Type: req.Type,
			Required: req.Required, EditableByUser: req.EditableByUser,
			DisplayInProfileSummary: req.DisplayInProfileSummary, UseForUserMatching: req.UseForUserMatching}
		if sub, ok := data["subtype"].(string); ok && req.Type == FieldExternalAccount && defaultExternalAccounts[sub] != "" {
			// The service names the default accounts itself.
			f.Name, f.Hint = defaultExternalAccounts[sub], ""
			data = map[string]any{"subtype": sub}
		} else if name == "" {
			return ErrLabelBlank
		}
		if f.FieldData, err = encodeFieldData(data); err != nil {
			return err
		}
		fields, err := tx.ProfileFields(realm.ID)
		if err != nil {
			return err
		}
		if err := checkFieldFlags(&f, fields, f.DisplayInProfileSummary); err != nil {
			return err
		}
		for i := range fields {
			f.Order = max(f.Order, fields[i].Order)
		}
		f.Order++
		if err := tx.CreateProfileField(&f); errors.Is(err, storage.ErrExists) {
			return ErrFieldLabelExists
		} else if err != nil {
			return err
		}
		id = f.ID
		emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
			"type": "custom_profile_fields", "fields": append(fields, f),
		}})
		return nil
	})
	return id, err
}

// checkFieldData validates the field_data of a new field of type t and
// returns it decoded.
func checkFieldData(t FieldType, raw json.RawMessage) (map[string]any, error) {
	data := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&data); err != nil || data == nil {
			return nil, errorf("field_data is not a dict")
		}
	}
	switch t {
	case FieldChoice:
		if len(data) == 0 {
			return nil, ErrFieldNoChoices
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		seen := map[string]bool{}
		for _, k := range keys {
			if strings.TrimSpace(k) == "" {
				return nil, ErrChoiceKeyBlank
			}
			choice, ok := data[k].(map[string]any)
			if !ok {
				return nil, errorf("field_data[%q] is not a dict", k)
			}
			for _, part := range []string{"text", "order"} {
				v, ok := choice[part]
				if !ok {
					return nil, errorf("%s key is missing from field_data", part)
				}
				str, ok := v.(string)
				if !ok {
					return nil, errorf("field_data[%q][%q] is not a string", k, part)
				}
				if strings.TrimSpace(str) == "" {
					return nil, errorf("field_data[%q][%q] cannot be blank.", k, part)
				}
			}
			for part := range choice {
				if part != "text" && part != "order" {
					return nil, errorf("Unexpected arguments: %s", part)
				}
			}
			text := choice["text"].(string)
			if seen[text] {
				return nil, ErrFieldDuplicateChoices
			}
			seen[text] = true
		}
	case FieldExternalAccount:
		v, ok := data["subtype"]
		if !ok {
			return nil, errExternalAccountNoSubtype
		}
		sub, ok := v.(string)
		if !ok || (sub != "custom" && defaultExternalAccounts[sub] == "") {
			return nil, ErrInvalidExternalAccount
		}
		pattern, hasPattern := data["url_pattern"]
		if sub == "custom" && !hasPattern {
			return nil, ErrCustomAccountNoPattern
		}
		if hasPattern {
			p, ok := pattern.(string)
			if !ok || strings.Count(p, "%(username)s") != 1 {
				return nil, ErrURLPatternNoUsername
			}
		}
	}
	return data, nil
}

// ProfileFields returns the custom profile field definitions of the actor's
// organization in display order. Any active user may call it. Errors: those
// of Users.
func (s *Service) ProfileFields(ctx context.Context, actor Actor) ([]ProfileField, error) {
	var out []ProfileField
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		out, err = tx.ProfileFields(realm.ID)
		return err
	})
	if out == nil && err == nil {
		out = []ProfileField{}
	}
	return out, err
}

// ProfileDataValue is the value of a custom profile data entry: a string, a
// list of user IDs (Users fields), or null, which removes the stored value.
type ProfileDataValue struct {
	// Null is true for null.
	Null bool
	// IsList says the value is a list; UserIDs holds it.
	IsList  bool
	UserIDs []int64
	// String holds a string value.
	String string
}

// ProfileDataEntry is one entry of profile_data: a custom profile field
// and its value.
type ProfileDataEntry struct {
	ID    int64
	Value ProfileDataValue
}

// ParseProfileData decodes the JSON text of a parameter that holds a list of
// custom profile data entries. name is the parameter's name, used in the
// error texts of the reference server's parameter parser, such as `data[0]["id"] field is missing:
// Field required`.
func ParseProfileData(name, text string) ([]ProfileDataEntry, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, errorf("%s is not valid JSON", name)
	}
	if _, err := dec.Token(); err == nil {
		return nil, errorf("%s is not valid JSON", name)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errorf("%s is not a list", name)
	}
	out := make([]ProfileDataEntry, len(list))
	for i, item := range list {
		at := fmt.Sprintf("%s[%d]", name, i)
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, errorf("%s is not a dict", at)
		}
		for _, k := range []string{"id", "value"} {
			if _, ok := obj[k]; !ok {
				return nil, errorf("%s[%q] field is missing: Field required", at, k)
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k != "id" && k != "value" {
				return nil, errorf("Argument %q at %s is unexpected", k, at)
			}
		}
		id, ok := jsonInt(obj["id"])
		if !ok {
			return nil, errorf("%s[\"id\"] is not an integer", at)
		}
		out[i].ID = id
		switch val := obj["value"].(type) {
		case nil:
			out[i].Value.Null = true
		case string:
			out[i].Value.String = val
		case []any:
			out[i].Value.IsList = true
			out[i].Value.UserIDs = make([]int64, len(val))
			for j, e := range val {
				n, ok := jsonInt(e)
				if !ok {
					return nil, errorf("%s[\"value\"][%d] is not an integer", at, j)
				}
				out[i].Value.UserIDs[j] = n
			}
		default:
			return nil, errorf("%s[\"value\"] is not a string or a list", at)
		}
	}
	return out, nil
}

// jsonInt converts a decoded JSON number without fraction or exponent.
func jsonInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// profileChange is a validated profile data entry: a new value, or a
// removal (del).
type profileChange struct {
	field    *ProfileField
	value    string
	rendered *string
	del      bool
}

// checkProfileData validates entries for target's profile, as changed by
// actor, in the reference server's order: the field exists, actor may
// change it, the value suits the field type. Text values are rendered as
// the reference renders them, with the renderer of messages
// (renderDescriptions), all of them at once.
func (s *Service) checkProfileData(tx storage.Tx, realm *storage.Realm, actor *storage.UserRecord, entries []ProfileDataEntry) ([]profileChange, error) {
	fields, err := tx.ProfileFields(realm.ID)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*ProfileField, len(fields))
	for i := range fields {
		byID[fields[i].ID] = &fields[i]
	}
	out := make([]profileChange, 0, len(entries))
	for _, e := range entries {
		f := byID[e.ID]
		if f == nil {
			return nil, errorf("Field id %d not found.", e.ID)
		}
		if !f.EditableByUser && !actor.Role.IsAdmin() {
			return nil, ErrFieldNotEditableByUser
		}
		c, err := checkProfileValue(tx, realm.ID, f, e.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	var texts []string
	var rendered []*profileChange
	for i := range out {
		if c := &out[i]; !c.del && c.field.Type.Renders() {
			texts, rendered = append(texts, c.value), append(rendered, c)
		}
	}
	if len(texts) == 0 {
		return out, nil
	}
	html, err := s.renderDescriptions(tx, realm, texts, nil)
	if err != nil {
		return nil, err
	}
	for i, c := range rendered {
		c.rendered = &html[i]
	}
	return out, nil
}

// checkProfileValue validates one value for the field. null, "" and []
// remove the stored value.
func checkProfileValue(tx storage.Tx, realmID int64, f *ProfileField, v ProfileDataValue) (profileChange, error) {
	c := profileChange{field: f}
	if v.Null || (v.IsList && len(v.UserIDs) == 0) || (!v.IsList && v.String == "") {
		c.del = true
		return c, nil
	}
	if f.Type == FieldUsers {
		if !v.IsList {
			return c, errorf("%s is not a list", f.Name)
		}
		for _, id := range v.UserIDs {
			u, err := tx.User(id)
			if errors.Is(err, storage.ErrNotFound) || (err == nil && u.RealmID != realmID) {
				return c, errorf("Invalid user ID: %d", id)
			}
			if err != nil {
				return c, err
			}
			if !u.IsActive {
				return c, errorf("User with ID %d is deactivated", id)
			}
			if u.IsBot() {
				return c, errorf("User with ID %d is a bot", id)
			}
		}
		text, err := json.Marshal(v.UserIDs)
		if err != nil {
			return c, err
		}
		c.value = string(text)
		return c, nil
	}
	if v.IsList {
		return c, errorf("%s is not a string", f.Name)
	}
	value := v.String
	switch f.Type {
	case FieldShortText, FieldPronouns, FieldExternalAccount:
		if utf8.RuneCountInString(value) > maxShortValueLength {
			return c, errorf("%s is too long (limit: %d characters)", f.Name, maxShortValueLength)
		}
	case FieldLongText:
		if utf8.RuneCountInString(value) > maxLongValueLength {
			return c, errorf("%s is too long (limit: %d characters)", f.Name, maxLongValueLength)
		}
	case FieldChoice:
		var choices map[string]json.RawMessage
		if json.Unmarshal([]byte(f.FieldData), &choices) != nil || choices[value] == nil {
			return c, errorf("'%s' is not a valid choice for '%s'.", value, f.Name)
		}
	case FieldDate:
		if _, err := time.Parse(time.DateOnly, value); err != nil {
			return c, errorf("%s is not a date", f.Name)
		}
	case FieldLink:
		if !validLink(value) {
			return c, errorf("%s is not a URL", f.Name)
		}
	}
	c.value = value
	return c, nil
}

// validLink reports whether s is an absolute http or https URL with a host.
func validLink(s string) bool {
	if strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return (scheme == "http" || scheme == "https") && validHost(u.Host)
}

// applyProfileData stores the changes to target's profile, skipping those
// that change nothing, and emits a realm_user update event for each change.
func applyProfileData(tx storage.Tx, emit func(Event), realmID int64, target *storage.UserRecord, changes []profileChange) error {
	if len(changes) == 0 {
		return nil
	}
	current, err := tx.ProfileValues(realmID, []int64{target.ID})
	if err != nil {
		return err
	}
	stored := make(map[int64]storage.ProfileValueRecord, len(current))
	for _, v := range current {
		stored[v.FieldID] = v
	}
	for _, c := range changes {
		old, had := stored[c.field.ID]
		person := map[string]any{"user_id": target.ID}
		if c.del {
			if !had {
				continue
			}
			if err := tx.DeleteProfileValue(target.ID, c.field.ID); err != nil {
				return err
			}
			delete(stored, c.field.ID)
			person["custom_profile_field"] = map[string]any{"id": c.field.ID, "value": nil}
		} else {
			if had && old.Value == c.value {
				continue
			}
			v := storage.ProfileValueRecord{UserID: target.ID, FieldID: c.field.ID, Value: c.value, RenderedValue: c.rendered}
			if err := tx.SetProfileValue(v); err != nil {
				return err
			}
			stored[c.field.ID] = v
			cpf := map[string]any{"id": c.field.ID, "value": c.value}
			if c.rendered != nil {
				cpf["rendered_value"] = *c.rendered
			}
			person["custom_profile_field"] = cpf
		}
		emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{
			"type": "realm_user", "op": "update", "person": person,
		}})
	}
	return nil
}

// UpdateProfileData changes the actor's own custom profile field values;
// null, "" and [] remove a value. Humans may call it; fields that are not
// editable by users need an administrator. Each changed value emits a
// realm_user update event.
//
// Errors, in the order they are checked: ErrBotsNotAllowed; per entry
// "Field id {id} not found.", ErrFieldNotEditableByUser, and the value
// errors of the field type ("{name} is too long (limit: 50 characters)",
// "{name} is not a date", "{name} is not a URL", "'{value}' is not a valid
// choice for '{name}'.", "{name} is not a string", "{name} is not a list",
// "Invalid user ID: {id}", "User with ID {id} is deactivated", "User with
// ID {id} is a bot").
func (s *Service) UpdateProfileData(ctx context.Context, actor Actor, data []ProfileDataEntry) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpUpdateProfileData)
		if err != nil {
			return err
		}
		changes, err := s.checkProfileData(tx, &realm, &u, data)
		if err != nil {
			return err
		}
		return applyProfileData(tx, emit, realm.ID, &u, changes)
	})
}

// checkFieldFlags checks f's summary and user-matching flags against the
// organization's other fields; addsSummary says f newly joins the summary,
// which holds at most maxSummaryFields.
func checkFieldFlags(f *ProfileField, fields []ProfileField, addsSummary bool) error {
	if addsSummary {
		if f.Type == FieldUsers {
			return ErrSummaryFieldType
		}
		n := 0
		for i := range fields {
			if fields[i].DisplayInProfileSummary {
				n++
			}
		}
		if n >= maxSummaryFields {
			return ErrSummaryFieldLimit
		}
	}
	if f.UseForUserMatching && f.Type != FieldShortText && f.Type != FieldExternalAccount {
		return ErrUserMatchingFieldType
	}
	return nil
}

// encodeFieldData is the stored text of a field's checked data: its JSON,
// or "" when there is none.
func encodeFieldData(data map[string]any) (string, error) {
	if len(data) == 0 {
		return "", nil
	}
	text, err := json.Marshal(data)
	return string(text), err
}
