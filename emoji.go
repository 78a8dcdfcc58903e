package chat

import (
	"context"
	"errors"
	"strconv"

	"github.com/teamchat/chat/storage"
)

//go:generate go run ./internal/emojigen -data ${EMOJI_DATASOURCE_JSON} -reference ../shared/emoji/reference-names.json -out emoji_table.go

// serviceExtraEmoji is the set of the service's own emoji; the code of each
// is its name. "zulip" is the reference server's one such emoji, which
// existing clients know how to draw.
var serviceExtraEmoji = map[string]bool{"zulip": true}

// UnicodeEmojiCode returns the code of a Unicode emoji name, canonical or
// alias, such as "1f44d" for "+1" and "thumbsup".
func UnicodeEmojiCode(name string) (string, bool) {
	c, ok := unicodeEmojiCodes[name]
	return c, ok
}

// UnicodeEmojiName returns the canonical name of a Unicode emoji code.
func UnicodeEmojiName(code string) (string, bool) {
	n, ok := unicodeEmojiNames[code]
	return n, ok
}

// referenceEmojiCode is UnicodeEmojiCode for the names of the reference's
// table only, which messages render.
func referenceEmojiCode(name string) (string, bool) {
	if datasetOnlyEmojiNames[name] {
		return "", false
	}
	return UnicodeEmojiCode(name)
}

// referenceEmojiName is UnicodeEmojiName for the codes of the reference's
// table only, which messages render when typed.
func referenceEmojiName(code string) (string, bool) {
	n, ok := UnicodeEmojiName(code)
	if !ok || datasetOnlyEmojiNames[n] {
		return "", false
	}
	return n, true
}

// Emoji errors.
var (
	ErrInvalidEmojiCode            = &Error{Code: CodeBadRequest, Msg: "Invalid emoji code"}
	ErrInvalidEmojiName            = &Error{Code: CodeBadRequest, Msg: "Invalid emoji name."}
	ErrInvalidEmojiType            = &Error{Code: CodeBadRequest, Msg: "Invalid emoji type."}
	ErrInvalidCustomEmoji          = &Error{Code: CodeBadRequest, Msg: "Invalid custom emoji."}
	ErrInvalidCustomEmojiName      = &Error{Code: CodeBadRequest, Msg: "Invalid custom emoji name."}
	ErrCustomEmojiDeactivated      = &Error{Code: CodeBadRequest, Msg: "This custom emoji has been deactivated."}
	errInvalidRealmEmojiDefinition = &Error{Code: CodeBadRequest, Msg: "Invalid custom emoji name"}
	errRealmEmojiExists            = &Error{Code: CodeBadRequest, Msg: "A custom emoji with this name already exists."}
	errNoSuchRealmEmoji            = &Error{Code: CodeBadRequest, Msg: "Emoji does not exist"}
)

// emojiDoesNotExist answers an emoji name that names nothing.
func emojiDoesNotExist(name string) *Error { return errorf("Emoji '%s' does not exist", name) }

// emojiByName finds the code and namespace of an emoji name: an active
// custom emoji of the realm first, then the service's own emoji, then
// Unicode names and aliases.
func emojiByName(tx storage.Tx, realmID int64, name string) (string, ReactionType, error) {
	e, err := tx.RealmEmojiByName(realmID, name)
	switch {
	case err == nil && !e.Deactivated:
		return strconv.FormatInt(e.ID, 10), RealmEmojiType, nil
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return "", "", err
	}
	if serviceExtraEmoji[name] {
		return name, ServiceExtraEmoji, nil
	}
	if code, ok := unicodeEmojiCodes[name]; ok {
		return code, UnicodeEmoji, nil
	}
	return "", "", emojiDoesNotExist(name)
}

// checkEmoji validates a full (name, code, type) triple.
func checkEmoji(tx storage.Tx, realmID int64, name, code string, typ ReactionType) error {
	switch typ {
	case RealmEmojiType:
		id, err := strconv.ParseInt(code, 10, 64)
		if err != nil || id <= 0 || strconv.FormatInt(id, 10) != code {
			return ErrInvalidCustomEmoji
		}
		e, err := tx.RealmEmoji(id)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && e.RealmID != realmID) {
			return ErrInvalidCustomEmoji
		}
		if err != nil {
			return err
		}
		if e.Name != name {
			return ErrInvalidCustomEmojiName
		}
		if e.Deactivated {
			return ErrCustomEmojiDeactivated
		}
	case ServiceExtraEmoji:
		if !serviceExtraEmoji[code] {
			return ErrInvalidEmojiCode
		}
		if name != code {
			return ErrInvalidEmojiName
		}
	case UnicodeEmoji:
		if _, ok := unicodeEmojiNames[code]; !ok {
			return ErrInvalidEmojiCode
		}
		if unicodeEmojiCodes[name] != code {
			return ErrInvalidEmojiName
		}
	default:
		return ErrInvalidEmojiType
	}
	return nil
}

// validRealmEmojiName reports whether name can name a custom emoji: lower
// case letters, digits, '-' and '_', not starting or ending with the last
// two, at most 60 characters.
func validRealmEmojiName(name string) bool {
	if name == "" || len(name) > 60 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0 && i < len(name)-1:
		default:
			return false
		}
	}
	return true
}

// ProvisionRealmEmoji adds a custom emoji to the organization, authored by
// authorID (zero for none), without an image, and returns its ID. It is a
// provisioning operation for the server's operator and embedding programs
// (clients add emoji with their images through AddRealmEmoji) and checks
// no actor.
//
// Errors: BAD_REQUEST for an unknown organization or author, an invalid
// name ("Invalid custom emoji name") or a name in use ("A custom emoji with
// this name already exists.").
func (s *Service) ProvisionRealmEmoji(ctx context.Context, realmID int64, name string, authorID int64) (int64, error) {
	var id int64
	err := s.update(ctx, noActor, func(tx storage.Tx) error {
		if _, err := tx.Realm(realmID); errors.Is(err, storage.ErrNotFound) {
			return errorf("No such organization: %d", realmID)
		} else if err != nil {
			return err
		}
		if !validRealmEmojiName(name) {
			return errInvalidRealmEmojiDefinition
		}
		if authorID != 0 {
			if _, err := targetUser(tx, realmID, authorID); err != nil {
				return err
			}
		}
		e := storage.RealmEmoji{RealmID: realmID, Name: name, AuthorID: authorID}
		if err := tx.CreateRealmEmoji(&e); errors.Is(err, storage.ErrExists) {
			return errRealmEmojiExists
		} else if err != nil {
			return err
		}
		id = e.ID
		return nil
	})
	return id, err
}

// SetRealmEmojiDeactivated deactivates (or reactivates) the organization's
// custom emoji with the ID. Like ProvisionRealmEmoji it is an operator's
// operation. Errors: BAD_REQUEST "Emoji does not exist" for an ID of no
// emoji of the organization.
func (s *Service) SetRealmEmojiDeactivated(ctx context.Context, realmID, id int64, deactivated bool) error {
	return s.update(ctx, noActor, func(tx storage.Tx) error {
		e, err := tx.RealmEmoji(id)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && e.RealmID != realmID) {
			return errNoSuchRealmEmoji
		}
		if err != nil {
			return err
		}
		e.Deactivated = deactivated
		return tx.UpdateRealmEmoji(e)
	})
}
