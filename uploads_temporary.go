package chat

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// TemporaryURLValidity is how long a URL of TemporaryUploadURL works, as
// the reference server's signed access tokens.
const TemporaryURLValidity = 60 * time.Second

// tokenMACSize is the length of the signature inside a temporary token.
const tokenMACSize = 16

// TemporaryUploadURL returns "/user_uploads/temporary/{token}/{filename}",
// a URL that serves the file at "/user_uploads/{realmID}/{rest}" without
// authentication for TemporaryURLValidity, for clients that cannot send
// credentials with a download. The actor must be allowed to read the file,
// as for OpenAttachment. The token is upper-case hex of the expiry time,
// the path and an HMAC-SHA256 of both under Config.UploadURLKey.
//
// Errors: as OpenAttachment.
func (s *Service) TemporaryUploadURL(ctx context.Context, actor Actor, realmID int64, rest string) (string, error) {
	var a Attachment
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		var err error
		a, err = s.readableAttachment(tx, actor, realmID, rest)
		return err
	})
	if err != nil {
		return "", err
	}
	msg := make([]byte, 8, 8+tokenMACSize+len(a.PathID))
	binary.BigEndian.PutUint64(msg, uint64(s.now().Add(TemporaryURLValidity).Unix()))
	mac := s.tokenMAC(msg[:8], a.PathID)
	msg = append(append(msg, mac...), a.PathID...)
	return "/user_uploads/temporary/" + strings.ToUpper(hex.EncodeToString(msg)) + "/" + path.Base(a.PathID), nil
}

func (s *Service) tokenMAC(expiry []byte, pathID string) []byte {
	h := hmac.New(sha256.New, s.cfg.UploadURLKey)
	h.Write(expiry)
	h.Write([]byte(pathID))
	return h.Sum(nil)[:tokenMACSize]
}

// OpenTemporaryUpload serves a URL of TemporaryUploadURL: it checks the
// token and the file name and opens the file. It needs no actor: the token
// is the permission.
//
// Errors: ErrInvalidFileToken for a malformed, forged or expired token;
// ErrInvalidFileName when filename is not the file's name; ErrFileNotFound
// when the file is gone; internal errors of the stores.
func (s *Service) OpenTemporaryUpload(ctx context.Context, token, filename string) (Attachment, Blob, error) {
	raw, err := hex.DecodeString(token)
	if err != nil || len(raw) <= 8+tokenMACSize || strings.ToUpper(token) != token {
		return Attachment{}, nil, ErrInvalidFileToken
	}
	expiry, mac, pathID := raw[:8], raw[8:8+tokenMACSize], string(raw[8+tokenMACSize:])
	if !hmac.Equal(mac, s.tokenMAC(expiry, pathID)) ||
		s.now().Unix() >= int64(binary.BigEndian.Uint64(expiry)) {
		return Attachment{}, nil, ErrInvalidFileToken
	}
	if path.Base(pathID) != filename {
		return Attachment{}, nil, ErrInvalidFileName
	}
	realmPart, _, _ := strings.Cut(pathID, "/")
	realmID, err := strconv.ParseInt(realmPart, 10, 64)
	if err != nil {
		return Attachment{}, nil, ErrInvalidFileToken
	}
	var a Attachment
	err = s.view(ctx, noActor, func(tx storage.Tx) error {
		var err error
		a, err = tx.AttachmentByPath(realmID, pathID)
		if errors.Is(err, storage.ErrNotFound) {
			return ErrFileNotFound
		}
		return err
	})
	if err != nil {
		return Attachment{}, nil, err
	}
	return s.openBlob(ctx, a)
}
