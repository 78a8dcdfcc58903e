package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// MaxEmojiFileBytes is the reference's limit on a custom emoji's image
// (max_emoji_file_size_mib, 5 MiB).
const MaxEmojiFileBytes = 5 << 20

// Errors of custom emoji administration, with the reference's texts.
var (
	ErrEmojiFileTooLarge  = errorf("Uploaded file is larger than the allowed limit of 5 MiB")
	ErrEmojiImageFormat   = errorf("Invalid image format")
	ErrEmojiDeleteAllowed = errorf("Must be an organization administrator or emoji author")
)

// emojiImageTypes are the image formats custom emoji may use, by the
// content type their bytes show, with the extension of their file.
var emojiImageTypes = map[string]string{"image/png": "png", "image/gif": "gif", "image/jpeg": "jpg", "image/webp": "webp"}

// emojiBlobKey is where a realm's emoji image lives in the blob store.
func emojiBlobKey(realmID int64, fileName string) string {
	return strconv.FormatInt(realmID, 10) + "/emoji/" + fileName
}

// emojiSourceURL is the path clients load an emoji image from, as the
// reference's local-storage layout names it.
func emojiSourceURL(realmID int64, fileName string) string {
	return fmt.Sprintf("/user_avatars/%d/emoji/images/%s", realmID, fileName)
}

// AddRealmEmoji adds a custom emoji with its image (POST
// /realm/emoji/{name}): a PNG, GIF, JPEG or WebP file of at most 5 MiB,
// read from image. A deactivated emoji of the same name is replaced. Every
// user gets a realm_emoji update event. Users who are not guests may.
//
// Errors: "Invalid custom emoji name"; ErrNotAllowedForGuests;
// ErrEmojiFileTooLarge; ErrEmojiImageFormat; "A custom emoji with this
// name already exists."; those of the blob store.
func (s *Service) AddRealmEmoji(ctx context.Context, actor Actor, name string, image io.Reader) error {
	if !validRealmEmojiName(name) {
		return errInvalidRealmEmojiDefinition
	}
	var realmID int64
	if err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.admit(tx, actor, OpAddRealmEmoji)
		realmID = realm.ID
		return err
	}); err != nil {
		return err
	}
	// The image is small enough to hold, and must be checked before it is
	// stored.
	data, err := io.ReadAll(io.LimitReader(image, MaxEmojiFileBytes+1))
	if err != nil {
		return err
	}
	if len(data) > MaxEmojiFileBytes {
		return ErrEmojiFileTooLarge
	}
	ext, ok := emojiImageTypes[http.DetectContentType(data)]
	if !ok {
		return ErrEmojiImageFormat
	}
	// The image is stored before the transaction, which then only names
	// it, so that no write waits on the file. A random name never meets
	// another image, nor a cached copy of an emoji's former image.
	var random [12]byte
	if _, err := rand.Read(random[:]); err != nil {
		return err
	}
	fileName := hex.EncodeToString(random[:]) + "." + ext
	key := emojiBlobKey(realmID, fileName)
	if _, err := s.cfg.Blobs.Put(ctx, key, bytes.NewReader(data), MaxEmojiFileBytes); err != nil {
		return err
	}
	err = s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpAddRealmEmoji)
		if err != nil {
			return err
		}
		if realm.ID != realmID {
			return ErrRealmDeactivated
		}
		e, err := tx.RealmEmojiByName(realm.ID, name)
		switch {
		case err == nil && !e.Deactivated:
			return errRealmEmojiExists
		case errors.Is(err, storage.ErrNotFound):
			e = storage.RealmEmoji{RealmID: realm.ID, Name: name, AuthorID: u.ID}
			if err := tx.CreateRealmEmoji(&e); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		e.Deactivated, e.AuthorID, e.FileName = false, u.ID, fileName
		if err := tx.UpdateRealmEmoji(e); err != nil {
			return err
		}
		return emitRealmEmoji(tx, emit, realm.ID)
	})
	if err != nil {
		_ = s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key)
	}
	return err
}

// emitRealmEmoji tells every user of the realm's custom emoji, all of them.
func emitRealmEmoji(tx storage.Tx, emit func(Event), realmID int64) error {
	views, err := realmEmojiViews(tx, realmID)
	if err != nil {
		return err
	}
	emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{"type": "realm_emoji", "op": "update", "realm_emoji": views}})
	return nil
}

// DeactivateRealmEmoji deactivates a custom emoji (DELETE
// /realm/emoji/{name}), as the reference does: existing reactions keep
// it, and nobody can use it any more. Administrators and the emoji's
// author may. Every user gets a realm_emoji update event.
//
// Errors: "Emoji '{name}' does not exist" for an unknown or deactivated
// emoji; ErrEmojiDeleteAllowed; those of the actor check.
func (s *Service) DeactivateRealmEmoji(ctx context.Context, actor Actor, name string) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpDeactivateRealmEmoji)
		if err != nil {
			return err
		}
		e, err := tx.RealmEmojiByName(realm.ID, name)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && e.Deactivated) {
			return emojiDoesNotExist(name)
		}
		if err != nil {
			return err
		}
		if !u.Role.IsAdmin() && e.AuthorID != u.ID {
			return ErrEmojiDeleteAllowed
		}
		e.Deactivated = true
		if err := tx.UpdateRealmEmoji(e); err != nil {
			return err
		}
		return emitRealmEmoji(tx, emit, realm.ID)
	})
}

// OpenRealmEmojiImage opens the image of a custom emoji of the realm by
// its file name, as clients load it from an emoji's source_url. Images
// are public within the server, as the reference serves them; deactivated
// emoji keep theirs for old reactions. Anyone may call it.
//
// Errors: ErrNotFound-wrapping ErrFileNotFound for an unknown file.
func (s *Service) OpenRealmEmojiImage(ctx context.Context, realmID int64, fileName string) (Blob, error) {
	found := false
	err := s.view(ctx, noActor, func(tx storage.Tx) error {
		list, err := tx.RealmEmojis(realmID)
		if err != nil {
			return err
		}
		for _, e := range list {
			if e.FileName != "" && e.FileName == fileName {
				found = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrFileNotFound
	}
	b, err := s.cfg.Blobs.Open(ctx, emojiBlobKey(realmID, fileName))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrFileNotFound
	}
	return b, err
}
