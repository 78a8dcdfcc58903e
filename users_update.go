package chat

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Errors of PATCH /users/{user_id}.
var (
	ErrGuestCannotBeAdmin      = &Error{Code: CodeBadRequest, Msg: "Guests cannot be organization administrators"}
	ErrLastOwner               = &Error{Code: CodeBadRequest, Msg: "The owner permission cannot be removed from the only organization owner."}
	ErrCannotChangeEmails      = &Error{Code: CodeBadRequest, Msg: "User not authorized to change user emails"}
	ErrInvalidNewEmail         = &Error{Code: CodeBadRequest, Msg: "Invalid new email address."}
	ErrInvalidRole             = &Error{Code: CodeBadRequest, Msg: "Invalid role: Value error, Not in the list of possible values"}
	ErrInvalidEmailVisibility  = &Error{Code: CodeBadRequest, Msg: "Invalid email_address_visibility: Value error, Not in the list of possible values"}
	ErrNoNewStatusValues       = &Error{Code: CodeBadRequest, Msg: "Client did not pass any new values."}
	ErrStatusTextTooLong       = &Error{Code: CodeBadRequest, Msg: "status_text is too long (limit: 60 characters)"}
	ErrStatusEmojiNameRequired = &Error{Code: CodeBadRequest, Msg: "Client must pass emoji_name if they pass either emoji_code or reaction_type."}
	errNewEmailInUse           = &Error{Code: CodeBadRequest, Msg: "New email value error: Email is already in use."}
)

// maxStatusTextLength is the limit of status_text in code points, counted
// after trimming.
const maxStatusTextLength = 60

// UserUpdate is a change to another user's account; nil fields are left as
// they are.
type UserUpdate struct {
	// FullName is trimmed; a blank name is ignored.
	FullName    *string
	Role        *Role
	ProfileData []ProfileDataEntry
	NewEmail    *string
}

// UpdateUser changes a user's account as PATCH /users/{user_id} does.
// Administrators may call it (and owners of a bot for that bot); changing
// the owner role takes an owner, and new_email takes an owner who holds the
// CanChangeUserEmails permission. Deactivated users and bots may be changed.
// Everything is checked before anything changes. Each change emits a
// realm_user update event.
//
// Errors, in the order they are checked: ErrInvalidRole; ErrNoSuchUser;
// ErrInsufficientPermission; ErrCannotChangeEmails; for a changed role
// ErrMustBeOwner, ErrMustBeAdmin, ErrGuestCannotBeAdmin, ErrLastOwner; the
// full-name errors of CreateUser; the errors of UpdateProfileData (except
// that administrators may change any field); ErrInvalidNewEmail and
// "New email value error: Email is already in use.".
func (s *Service) UpdateUser(ctx context.Context, actor Actor, target int64, req UserUpdate) error {
	if req.Role != nil && !req.Role.Valid() {
		return ErrInvalidRole
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		admin, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		u, err := targetUser(tx, realm.ID, target)
		if err != nil {
			return err
		}
		if !admin.Role.IsAdmin() && !(u.IsBot() && u.BotOwnerID == admin.ID) {
			return ErrInsufficientPermission
		}
		if req.NewEmail != nil && (admin.Role != RoleOwner || !admin.CanChangeUserEmails) {
			return ErrCannotChangeEmails
		}
		var persons []map[string]any
		if req.Role != nil && *req.Role != u.Role {
			role := *req.Role
			switch {
			case (role == RoleOwner || u.Role == RoleOwner) && admin.Role != RoleOwner:
				return ErrMustBeOwner
			case !admin.Role.IsAdmin():
				return ErrMustBeAdmin
			case u.Role == RoleGuest && role.IsAdmin():
				return ErrGuestCannotBeAdmin
			}
			if u.Role == RoleOwner {
				only, err := onlyActiveOwner(tx, realm.ID, u.ID)
				if err != nil {
					return err
				}
				if only {
					return ErrLastOwner
				}
			}
			u.Role = role
			persons = append(persons, map[string]any{"user_id": u.ID, "role": int(role)})
		}
		if req.FullName != nil && *req.FullName != u.FullName && strings.TrimSpace(*req.FullName) != "" {
			name, err := checkFullName(*req.FullName)
			if err != nil {
				return err
			}
			if name != u.FullName {
				u.FullName = name
				persons = append(persons, map[string]any{"user_id": u.ID, "full_name": name})
			}
		}
		var changes []profileChange
		if req.ProfileData != nil {
			if changes, err = s.checkProfileData(tx, &realm, &admin, req.ProfileData); err != nil {
				return err
			}
		}
		oldAPIEmail := apiEmail(&u, s.emailDomain(realm))
		emailChanged := false
		if req.NewEmail != nil {
			email := strings.TrimSpace(*req.NewEmail)
			if !validEmail(email) {
				return ErrInvalidNewEmail
			}
			if other, err := tx.UserByEmail(realm.ID, email); err == nil && other.ID != u.ID {
				return errNewEmailInUse
			} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			emailChanged = email != u.Email
			u.Email = email
		}
		if err := tx.UpdateUser(u); errors.Is(err, storage.ErrExists) {
			return errNewEmailInUse
		} else if err != nil {
			return err
		}
		if err := applyProfileData(tx, emit, realm.ID, &u, changes); err != nil {
			return err
		}
		if emailChanged {
			// Only those who may see the address learn it; the API
			// address changes for everyone when it is the real one.
			users, err := tx.Users(realm.ID, nil)
			if err != nil {
				return err
			}
			var seeing []int64
			for i := range users {
				if v := (viewer{user: users[i]}); users[i].IsActive && v.canSeeEmail(&u) {
					seeing = append(seeing, users[i].ID)
				}
			}
			emit(Event{RealmID: realm.ID, UserIDs: seeing, Payload: map[string]any{
				"type": "realm_user", "op": "update",
				"person": map[string]any{"user_id": u.ID, "delivery_email": u.Email},
			}})
			if newAPI := apiEmail(&u, s.emailDomain(realm)); newAPI != oldAPIEmail {
				persons = append(persons, map[string]any{"user_id": u.ID, "new_email": newAPI})
			}
		}
		for _, p := range persons {
			emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
				"type": "realm_user", "op": "update", "person": p,
			}})
		}
		return nil
	})
}

// StatusUpdate is a change of the actor's status; nil
// fields are not passed.
type StatusUpdate struct {
	StatusText   *string
	Away         *bool
	EmojiName    *string
	EmojiCode    *string
	ReactionType *string
}

// UpdateStatus changes the actor's status: only the values passed change.
// status_text is trimmed and "" clears it; emoji_name "" clears the emoji;
// an emoji name alone is looked up (custom emoji first, then the service's
// own, then Unicode names and aliases); away sets the presence setting to
// its negation. Humans may call it. The user's status change is published
// as a user_status event with the changed keys.
//
// Errors, in the order they are checked: ErrBotsNotAllowed; ErrStatusTextTooLong;
// ErrStatusEmojiNameRequired; ErrNoNewStatusValues; "Emoji '{name}' does
// not exist", ErrInvalidEmojiCode, ErrInvalidEmojiName, ErrInvalidEmojiType,
// ErrInvalidCustomEmoji, ErrInvalidCustomEmojiName,
// ErrCustomEmojiDeactivated.
func (s *Service) UpdateStatus(ctx context.Context, actor Actor, req StatusUpdate) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpUpdateStatus)
		if err != nil {
			return err
		}
		var text string
		if req.StatusText != nil {
			text = strings.TrimSpace(*req.StatusText)
			if utf8.RuneCountInString(text) > maxStatusTextLength {
				return ErrStatusTextTooLong
			}
		}
		if req.EmojiName == nil && (req.EmojiCode != nil || req.ReactionType != nil) {
			return ErrStatusEmojiNameRequired
		}
		if req.StatusText == nil && req.Away == nil && req.EmojiName == nil {
			return ErrNoNewStatusValues
		}
		event := map[string]any{"type": "user_status", "user_id": u.ID}
		st := u.Status
		if req.EmojiName != nil {
			name := *req.EmojiName
			var code string
			var typ ReactionType
			if name != "" {
				if req.EmojiCode == nil || req.ReactionType == nil {
					if code, typ, err = emojiByName(tx, realm.ID, name); err != nil {
						return err
					}
				} else {
					code, typ = *req.EmojiCode, ReactionType(*req.ReactionType)
				}
				if err := checkEmoji(tx, realm.ID, name, code, typ); err != nil {
					return err
				}
			} else {
				typ = UnicodeEmoji
			}
			st.EmojiName, st.EmojiCode, st.ReactionType = name, code, typ
			if name == "" {
				st.ReactionType = ""
			}
			event["emoji_name"], event["emoji_code"], event["reaction_type"] = name, code, string(typ)
		}
		if req.StatusText != nil {
			st.Text = text
			event["status_text"] = text
		}
		if req.Away != nil {
			u.PresenceEnabled = !*req.Away
			event["away"] = *req.Away
		}
		u.Status = st
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		emit(Event{RealmID: realm.ID, AllUsers: true, Payload: event})
		return nil
	})
}

// StatusView is a user's status as clients see it: away is the negation of
// the presence setting.
type StatusView struct {
	UserStatus
	Away bool
}

// UserStatus returns the status of a user of the actor's organization. Any
// active user may call it. Errors: ErrNoSuchUser, and those of Users.
func (s *Service) UserStatus(ctx context.Context, actor Actor, id int64) (StatusView, error) {
	var out StatusView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		u, err := targetUser(tx, realm.ID, id)
		if err != nil {
			return err
		}
		out = StatusView{UserStatus: u.Status, Away: !u.PresenceEnabled}
		return nil
	})
	return out, err
}

// SettingsUpdate is a change of the actor's own settings; nil fields are
// left as they are.
type SettingsUpdate struct {
	EmailAddressVisibility *EmailVisibility
	PresenceEnabled        *bool
	// Values changes display and notification settings by name (see
	// PersonalSettingNames), each a JSON value.
	Values map[string]json.RawMessage
}

// UpdateSettings changes the actor's own settings, as PATCH /settings does.
// Humans may call it. Each changed setting emits a user_settings update
// event to the user; a visibility change that changes the user's API
// address also emits a realm_user update with new_email.
//
// Errors: ErrInvalidEmailVisibility; "Invalid {name}", "{name} is not a
// boolean", "{name} is not an integer", "{name} is not a string" for a
// display or notification setting; ErrBotsNotAllowed.
func (s *Service) UpdateSettings(ctx context.Context, actor Actor, req SettingsUpdate) error {
	if req.EmailAddressVisibility != nil && !req.EmailAddressVisibility.Valid() {
		return ErrInvalidEmailVisibility
	}
	values := make(map[string]any, len(req.Values))
	for _, name := range slices.Sorted(maps.Keys(req.Values)) {
		v, err := checkPersonalSetting(name, req.Values[name])
		if err != nil {
			return err
		}
		values[name] = v
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpUpdateSettings)
		if err != nil {
			return err
		}
		setting := func(property string, value any) {
			emit(Event{RealmID: realm.ID, UserIDs: []int64{u.ID}, Payload: map[string]any{
				"type": "user_settings", "op": "update", "property": property, "value": value,
			}})
		}
		domain := s.emailDomain(realm)
		oldAPI := apiEmail(&u, domain)
		if v := req.EmailAddressVisibility; v != nil && *v != u.EmailVisibility {
			u.EmailVisibility = *v
			setting("email_address_visibility", int(*v))
		}
		if p := req.PresenceEnabled; p != nil && *p != u.PresenceEnabled {
			u.PresenceEnabled = *p
			setting("presence_enabled", *p)
		}
		if len(values) > 0 {
			current, err := personalSettings(tx, u.ID)
			if err != nil {
				return err
			}
			changed := map[string]string{}
			for _, name := range slices.Sorted(maps.Keys(values)) {
				if v := values[name]; v != current[name] {
					changed[name] = encodeSetting(v)
					setting(name, v)
				}
			}
			if len(changed) > 0 {
				if err := tx.SetUserSettings(u.ID, changed); err != nil {
					return err
				}
			}
		}
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		if newAPI := apiEmail(&u, domain); newAPI != oldAPI {
			emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
				"type": "realm_user", "op": "update",
				"person": map[string]any{"user_id": u.ID, "new_email": newAPI},
			}})
		}
		return nil
	})
}

// UpdateUserSettingsDefaults changes the organization's defaults for new
// users, as PATCH /realm/user_settings_defaults does (only
// email_address_visibility so far). Administrators may call it; all active
// users get a realm_user_settings_defaults update event when it changes.
//
// Errors: ErrInvalidEmailVisibility; ErrMustBeAdmin.
func (s *Service) UpdateUserSettingsDefaults(ctx context.Context, actor Actor, visibility *EmailVisibility) error {
	if visibility != nil && !visibility.Valid() {
		return ErrInvalidEmailVisibility
	}
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpUpdateUserSettingsDefaults)
		if err != nil {
			return err
		}
		if visibility == nil || *visibility == realm.DefaultEmailVisibility {
			return nil
		}
		realm.DefaultEmailVisibility = *visibility
		if err := tx.UpdateRealm(realm); err != nil {
			return err
		}
		emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
			"type": "realm_user_settings_defaults", "op": "update",
			"property": "email_address_visibility", "value": int(*visibility),
		}})
		return nil
	})
}
