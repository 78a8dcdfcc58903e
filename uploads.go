package chat

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
	"golang.org/x/text/unicode/norm"
)

// DefaultMaxUploadMiB is the upload size limit of a Config without one, as
// the reference server's self-hosted default.
const DefaultMaxUploadMiB = 100

// ErrBlobTooLarge is returned by BlobStore.Put and BlobStore.Append when the
// data would exceed their limit.
var ErrBlobTooLarge = storage.ErrBlobTooLarge

// BlobStore keeps the bytes of uploaded files (see storage.BlobStore, which
// a blob store implements).
type BlobStore = storage.BlobStore

// Blob is an open stored file (see storage.Blob).
type Blob = storage.Blob

// LinkedBlob is a Blob that clients may download from its store directly,
// through a short-lived link (see storage.LinkedBlob; the S3 store's Blobs
// are, unless it streams).
type LinkedBlob = storage.LinkedBlob

// BlobHeader is what the response to a blob's link says of it.
type BlobHeader = storage.BlobHeader

// UploadResult is the answer of an upload.
type UploadResult struct {
	// URL is the relative URL of the file, "/user_uploads/{path_id}".
	URL string `json:"url"`
	// URI is URL under its deprecated name.
	URI string `json:"uri"`
	// Filename is the name the client sent, unsanitised.
	Filename string `json:"filename"`
}

// Upload is a file to store.
type Upload struct {
	// Filename is the name the client gave; it may be URL-quoted ("%20").
	// An empty name stores the file as "uploaded-file".
	Filename string
	// ContentType is the type the client declared; empty means guessed
	// from the file name, else application/octet-stream.
	ContentType string
	// Body is the content, read once, as a stream.
	Body io.Reader
}

// messageReadChecker reports whether user may read the message with
// messageID, inside the transaction tx. The messages code of this package
// provides it (Service.readMessage); it decides who, besides the uploader,
// may download a file that a message links.
type messageReadChecker func(tx storage.Tx, user *storage.UserRecord, messageID int64) (bool, error)

// Upload errors.
var (
	ErrNoFileToUpload     = &Error{Code: CodeBadRequest, Msg: "You must specify a file to upload"}
	ErrOneFileAtATime     = &Error{Code: CodeBadRequest, Msg: "You may only upload one file at a time"}
	ErrFileNotFound       = &Error{Code: CodeNotFound, Msg: "This file does not exist or has been deleted."}
	ErrInvalidFileToken   = &Error{Code: CodeBadRequest, Msg: "Invalid token"}
	ErrInvalidFileName    = &Error{Code: CodeBadRequest, Msg: "Invalid filename"}
	ErrUploadSizeDeferred = &Error{Code: CodeBadRequest, Msg: "SizeIsDeferred is not supported"}
)

// FileTooLargeError returns the error for a file over the limit of limitMiB
// mebibytes.
func FileTooLargeError(limitMiB int) *Error {
	return errorf("File is larger than this server's configured maximum upload size (%d MiB).", limitMiB)
}

// MaxUploadMiB is the upload size limit in mebibytes
// (max_file_upload_size_mib).
func (s *Service) MaxUploadMiB() int { return s.cfg.MaxUploadMiB }

// maxUploadBytes is the upload size limit in bytes.
func (s *Service) maxUploadBytes() int64 { return int64(s.cfg.MaxUploadMiB) << 20 }

// StagedUpload is a file whose bytes are stored but that is not yet an
// attachment: Commit makes it one, Discard deletes the bytes. It lets the
// HTTP adapter reject a request whose multipart body turns out to carry a
// second file after the first was streamed to storage.
type StagedUpload struct {
	s           *Service
	actor       Actor
	realmID     int64
	pathID      string
	name        string
	contentType string
	size        int64
	done        bool
	// keepOnFailure keeps the bytes when Commit fails, for a resumable
	// upload that a later request finishes.
	keepOnFailure bool
}

// StageUpload streams up.Body into the blob store under a new random path,
// never holding the whole file in memory. Any active user may upload.
//
// Errors: the actor errors (ErrNotLoggedIn, ErrAccountDeactivated,
// ErrRealmDeactivated); FileTooLargeError when the body is longer than the
// configured limit (nothing is kept then); internal errors of the store.
func (s *Service) StageUpload(ctx context.Context, actor Actor, up Upload) (*StagedUpload, error) {
	var realmID int64
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.actor(tx, actor)
		realmID = u.RealmID
		return err
	})
	if err != nil {
		return nil, err
	}
	st, err := s.newStaged(actor, realmID, up.Filename, up.ContentType, false)
	if err != nil {
		return nil, err
	}
	n, err := s.cfg.Blobs.Put(ctx, st.pathID, up.Body, s.maxUploadBytes())
	if errors.Is(err, ErrBlobTooLarge) {
		return nil, FileTooLargeError(s.cfg.MaxUploadMiB)
	}
	if err != nil {
		return nil, internal(fmt.Errorf("storing upload: %w", err))
	}
	st.size = n
	return st, nil
}

// newStaged chooses the path of a new upload: the reference server's layout
// ({realm}/{two hex digits}/{random}/{name}) with the sanitised name
// (strict ASCII for tus).
func (s *Service) newStaged(actor Actor, realmID int64, filename, contentType string, strict bool) (*StagedUpload, error) {
	var random [19]byte // 1 byte for the hex directory, 18 for 24 base64 characters
	if _, err := io.ReadFull(s.cfg.Rand, random[:]); err != nil {
		return nil, internal(fmt.Errorf("reading randomness: %w", err))
	}
	name := filename
	if unq, err := url.PathUnescape(filename); err == nil {
		name = unq
	}
	stored := SanitizeFilename(name, strict)
	if contentType == "" {
		contentType = mime.TypeByExtension(path.Ext(stored))
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	return &StagedUpload{
		s: s, actor: actor, realmID: realmID, name: name, contentType: contentType,
		pathID: fmt.Sprintf("%d/%02x/%s/%s", realmID, random[0],
			base64.URLEncoding.EncodeToString(random[1:]), stored),
	}, nil
}

// Size is the length of the staged file.
func (u *StagedUpload) Size() int64 { return u.size }

// Commit records the staged file as an attachment of the uploader, visible
// only to them until a message links it, and sends the uploader an
// attachment/add event. A StagedUpload commits or discards once.
//
// Errors: the actor errors (the uploader was deactivated meanwhile; the
// bytes are deleted then); internal errors of the store.
func (u *StagedUpload) Commit(ctx context.Context) (UploadResult, error) {
	if u.done {
		return UploadResult{}, internal(errors.New("staged upload already committed or discarded"))
	}
	u.done = true
	s := u.s
	a := Attachment{
		RealmID: u.realmID, OwnerID: u.actor.UserID(), PathID: u.pathID, Name: u.name,
		Size: u.size, ContentType: u.contentType, CreateTime: s.now(),
	}
	err := s.updateWithEvents(ctx, u.actor, func(tx storage.Tx, emit func(Event)) error {
		if _, _, err := s.actor(tx, u.actor); err != nil {
			return err
		}
		if err := tx.CreateAttachment(&a); err != nil {
			return err
		}
		used, err := tx.UploadSpaceUsed(u.realmID)
		if err != nil {
			return err
		}
		emit(Event{RealmID: u.realmID, UserIDs: []int64{u.actor.UserID()}, Payload: map[string]any{
			"type": "attachment", "op": "add", "upload_space_used": used,
			"attachment": map[string]any{
				"id": a.ID, "name": a.Name, "path_id": a.PathID, "size": a.Size,
				"create_time": secondsInMillis(a.CreateTime), "messages": []any{},
			},
		}})
		return nil
	})
	if err != nil {
		if !u.keepOnFailure {
			s.deleteBlob(ctx, u.pathID)
		}
		return UploadResult{}, err
	}
	url := a.URL()
	return UploadResult{URL: url, URI: url, Filename: a.Name}, nil
}

// Discard deletes the bytes of a staged upload that will not be committed.
func (u *StagedUpload) Discard(ctx context.Context) {
	if u.done {
		return
	}
	u.done = true
	u.s.deleteBlob(ctx, u.pathID)
}

// deleteBlob removes a blob that no attachment record will name; failures
// are only logged, leaving an orphan file.
func (s *Service) deleteBlob(ctx context.Context, key string) {
	if err := s.cfg.Blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.cfg.Logger.Error("deleting an unused upload", "path_id", key, "err", err)
	}
}

// UploadFile stores one file for the actor and records it as their
// attachment: StageUpload then Commit.
func (s *Service) UploadFile(ctx context.Context, actor Actor, up Upload) (UploadResult, error) {
	st, err := s.StageUpload(ctx, actor, up)
	if err != nil {
		return UploadResult{}, err
	}
	return st.Commit(ctx)
}

// SanitizeFilename returns the form of name used in stored paths: Unicode
// NFKC; every character other than letters,
// digits, "_", whitespace, "." and "-" dropped (in strict mode, everything
// but ASCII letters, digits, "_", " ", "." and "-"); surrounding whitespace
// trimmed; runs of whitespace and "-" collapsed into one "-"; and
// "uploaded-file" for a result that is empty, "." or "..". The result is
// cut to at most maxStoredNameBytes bytes, keeping the extension, so that it
// fits a file-system name.
func SanitizeFilename(name string, strict bool) string {
	name = norm.NFKC.String(name)
	keep := func(r rune) bool {
		if strict {
			return r < utf8.RuneSelf && (r == '_' || r == ' ' || r == '.' || r == '-' ||
				'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}
		return r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsSpace(r)
	}
	var b strings.Builder
	for _, r := range name {
		if keep(r) {
			b.WriteRune(r)
		}
	}
	trimmed := strings.TrimSpace(b.String())
	b.Reset()
	dash := false
	for _, r := range trimmed {
		if r == '-' || unicode.IsSpace(r) {
			dash = true
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	if dash {
		b.WriteByte('-')
	}
	out := b.String()
	if len(out) > maxStoredNameBytes {
		ext := path.Ext(out)
		if len(ext) > 32 {
			ext = ""
		}
		stem := out[:maxStoredNameBytes-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		out = stem + ext
	}
	if out == "" || out == "." || out == ".." {
		return "uploaded-file"
	}
	return out
}

// maxStoredNameBytes bounds the sanitised name, below the 255 bytes of a
// file name on common file systems.
const maxStoredNameBytes = 200

// canReadAttachment applies the download rule: the uploader always; anyone
// else only when they can read a message that links the file
// (s.readMessage, the messages' own access rule).
func (s *Service) canReadAttachment(tx storage.Tx, user *storage.UserRecord, a *Attachment) (bool, error) {
	if a.OwnerID == user.ID {
		return true, nil
	}
	if s.readMessage == nil {
		return false, nil
	}
	ids, err := tx.AttachmentMessages(a.ID)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		ok, err := s.readMessage(tx, user, id)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// readableAttachment returns the attachment at "{realmID}/{rest}" when the
// actor may read it.
func (s *Service) readableAttachment(tx storage.Tx, actor Actor, realmID int64, rest string) (Attachment, error) {
	u, _, err := s.actor(tx, actor)
	if err != nil {
		return Attachment{}, err
	}
	if realmID != u.RealmID {
		return Attachment{}, ErrFileNotFound
	}
	a, err := tx.AttachmentByPath(u.RealmID, strconv.FormatInt(realmID, 10)+"/"+rest)
	if errors.Is(err, storage.ErrNotFound) {
		return Attachment{}, ErrFileNotFound
	}
	if err != nil {
		return Attachment{}, err
	}
	ok, err := s.canReadAttachment(tx, &u, &a)
	if err != nil {
		return Attachment{}, err
	}
	if !ok {
		// No hint that the file exists.
		return Attachment{}, ErrFileNotFound
	}
	return a, nil
}

// OpenAttachment returns the attachment at "/user_uploads/{realmID}/{rest}"
// and an open reader of its bytes, when the actor may read it: they
// uploaded it, or they can read a message that links it. The caller closes
// the Blob.
//
// Errors: the actor errors; ErrFileNotFound for a file that does not exist,
// is in another organization, or that the actor may not read; internal
// errors of the stores.
func (s *Service) OpenAttachment(ctx context.Context, actor Actor, realmID int64, rest string) (Attachment, Blob, error) {
	var a Attachment
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		var err error
		a, err = s.readableAttachment(tx, actor, realmID, rest)
		return err
	})
	if err != nil {
		return Attachment{}, nil, err
	}
	return s.openBlob(ctx, a)
}

func (s *Service) openBlob(ctx context.Context, a Attachment) (Attachment, Blob, error) {
	b, err := s.cfg.Blobs.Open(ctx, a.PathID)
	if errors.Is(err, storage.ErrNotFound) {
		s.cfg.Logger.Error("attachment without its bytes", "path_id", a.PathID)
		return Attachment{}, nil, ErrFileNotFound
	}
	if err != nil {
		return Attachment{}, nil, internal(fmt.Errorf("opening upload: %w", err))
	}
	return a, b, nil
}

// linkAttachments links the message to the sender's attachments that its
// content names.
func (s *Service) linkAttachments(tx storage.Tx, sender *storage.UserRecord, messageID int64, content string) error {
	as, err := linkedAttachments(tx, sender, content)
	if err != nil {
		return err
	}
	for _, a := range as {
		if err := tx.LinkAttachment(a.ID, messageID); err != nil {
			return err
		}
	}
	return nil
}

// linkedAttachments returns the sender's attachments that content links
// ("/user_uploads/{realm}/..."); links to others' files give no access.
func linkedAttachments(tx storage.Tx, sender *storage.UserRecord, content string) ([]storage.Attachment, error) {
	const marker = "/user_uploads/"
	prefix := marker + strconv.FormatInt(sender.RealmID, 10) + "/"
	var out []storage.Attachment
	for rest := content; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			return out, nil
		}
		rest = rest[i+len(marker):]
		end := strings.IndexFunc(rest, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(")]>\"'", r)
		})
		if end < 0 {
			end = len(rest)
		}
		pathID := rest[:end]
		rest = rest[end:]
		a, err := tx.AttachmentByPath(sender.RealmID, pathID)
		if errors.Is(err, storage.ErrNotFound) || err == nil && a.OwnerID != sender.ID {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
}

// detachAttachments unlinks the message from the sender's attachments that
// its old content linked and its new content does not, and returns those
// no message links any more: only their owner can read them now.
func detachAttachments(tx storage.Tx, sender *storage.UserRecord, messageID int64, before, after string) ([]AttachmentView, error) {
	old, err := linkedAttachments(tx, sender, before)
	if err != nil {
		return nil, err
	}
	kept, err := linkedAttachments(tx, sender, after)
	if err != nil {
		return nil, err
	}
	still := map[int64]bool{}
	for _, a := range kept {
		still[a.ID] = true
	}
	detached := []AttachmentView{}
	for _, a := range old {
		if still[a.ID] {
			continue
		}
		still[a.ID] = true // named twice
		if err := tx.UnlinkAttachment(a.ID, messageID); err != nil {
			return nil, err
		}
		ids, err := tx.AttachmentMessages(a.ID)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			detached = append(detached, AttachmentView{ID: a.ID, Name: a.Name, PathID: a.PathID, Size: a.Size,
				CreateTime: secondsInMillis(a.CreateTime), Messages: []AttachmentMessage{}})
		}
	}
	return detached, nil
}
