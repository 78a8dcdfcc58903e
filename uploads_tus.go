package chat

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/teamchat/chat/storage"
)

// Resumable uploads (the tus 1.0 protocol of /api/v1/tus/, with its
// creation, termination, expiration and concatenation extensions). The bytes are appended
// straight to the blob under the final path ID, so finishing copies
// nothing; until then no attachment record names the path, so nobody can
// download a partial file. The state of each upload is a small JSON blob
// under "tus/{id}", so uploads survive a restart of the server. An upload
// expires TusUploadLifetime after its last write: it is then gone for its
// client, and CollectExpiredUploads removes its bytes.

// Resumable-upload errors. The HTTP adapter answers them with the statuses
// of the tus protocol.
var (
	// ErrUploadNotFound answers an unknown upload, or another user's.
	ErrUploadNotFound = &Error{Code: CodeNotFound, Msg: "Upload not found"}
	// ErrUploadOffsetMismatch answers a write at an offset other than the
	// upload's current length.
	ErrUploadOffsetMismatch = &Error{Code: CodeBadRequest, Msg: "Upload-Offset does not match the upload's offset"}
	// ErrUploadTooLong answers a write past the declared length.
	ErrUploadTooLong = &Error{Code: CodeBadRequest, Msg: "Upload is longer than its declared Upload-Length"}
)

// ResumableUpload is the state of a resumable upload.
type ResumableUpload struct {
	ID     string
	Offset int64
	Length int64
	// Result is set once all bytes arrived and the file became an
	// attachment.
	Result *UploadResult
	// Metadata is what the client sent at creation (Upload-Metadata).
	Metadata map[string]string
	// Expires is when the upload expires (Upload-Expires).
	Expires time.Time
	// Partial says the upload is a part of a concatenation.
	Partial bool
}

// tusFinishTimeout bounds the work of making a complete upload an
// attachment, which runs on after the request that completed it is gone.
const tusFinishTimeout = 30 * time.Second

// TusUploadLifetime is how long a resumable upload lives after its last
// write (tus's Upload-Expires); a finished one's state, which tells a
// client that lost the last answer where its file is, lives as long.
const TusUploadLifetime = 24 * time.Hour

// tusInfo is the stored state of a resumable upload.
type tusInfo struct {
	OwnerID     int64         `json:"owner_id"`
	RealmID     int64         `json:"realm_id"`
	Length      int64         `json:"length"`
	PathID      string        `json:"path_id"`
	Name        string        `json:"name"`
	ContentType string        `json:"content_type"`
	Result      *UploadResult `json:"result,omitempty"`
	// Metadata is the client's Upload-Metadata, echoed on HEAD.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Expires is when the upload expires; zero for uploads stored before
	// expiry existed, which expire at the next collection.
	Expires time.Time `json:"expires,omitzero"`
	// Partial marks a part of a concatenation (tus Upload-Concat:
	// partial): complete, it waits for the final upload instead of
	// becoming an attachment.
	Partial bool `json:"partial,omitempty"`
}

func tusInfoKey(id string) string { return "tus/" + id }

// CreateResumableUpload starts a resumable upload of length bytes for the
// actor. Metadata "filename" names the file (sanitised in strict ASCII
// mode for the stored path; "uploaded-file" without one) and "filetype"
// gives its content type. An upload of length 0 is complete at once.
//
// Errors: the actor errors; ErrUploadSizeDeferred when the length is not
// known (length < 0); FileTooLargeError over the limit; internal errors.
func (s *Service) CreateResumableUpload(ctx context.Context, actor Actor, length int64, metadata map[string]string) (ResumableUpload, error) {
	return s.createResumableUpload(ctx, actor, length, metadata, false)
}

// CreatePartialUpload starts a part of a concatenated upload (tus
// Upload-Concat: partial): written like any resumable upload, it becomes
// part of a file only through ConcatenateUploads.
//
// Errors: those of CreateResumableUpload.
func (s *Service) CreatePartialUpload(ctx context.Context, actor Actor, length int64) (ResumableUpload, error) {
	return s.createResumableUpload(ctx, actor, length, nil, true)
}

func (s *Service) createResumableUpload(ctx context.Context, actor Actor, length int64, metadata map[string]string,
	partial bool) (ResumableUpload, error) {
	var realmID int64
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.actor(tx, actor)
		realmID = u.RealmID
		return err
	})
	if err != nil {
		return ResumableUpload{}, err
	}
	if length < 0 {
		return ResumableUpload{}, ErrUploadSizeDeferred
	}
	if length > s.maxUploadBytes() {
		return ResumableUpload{}, FileTooLargeError(s.cfg.MaxUploadMiB)
	}
	var rawID [16]byte
	if _, err := io.ReadFull(s.cfg.Rand, rawID[:]); err != nil {
		return ResumableUpload{}, internal(fmt.Errorf("reading randomness: %w", err))
	}
	id := hex.EncodeToString(rawID[:])
	filename := metadata["filename"]
	st, err := s.newStaged(actor, realmID, filename, metadata["filetype"], true)
	if err != nil {
		return ResumableUpload{}, err
	}
	if filename == "" {
		st.name = "uploaded-file"
	}
	info := tusInfo{OwnerID: actor.UserID(), RealmID: realmID, Length: length, PathID: st.pathID,
		Name: st.name, ContentType: st.contentType, Metadata: metadata, Expires: s.now().Add(TusUploadLifetime),
		Partial: partial}
	if _, err := s.cfg.Blobs.Append(ctx, st.pathID, strings.NewReader(""), 0); err != nil {
		return ResumableUpload{}, internal(fmt.Errorf("creating upload: %w", err))
	}
	if err := s.saveTusInfo(ctx, id, &info); err != nil {
		return ResumableUpload{}, err
	}
	up := ResumableUpload{ID: id, Length: length, Metadata: metadata, Expires: info.Expires, Partial: partial}
	if length == 0 && !partial {
		res, err := s.finishTus(ctx, id, &info)
		if err != nil {
			return ResumableUpload{}, err
		}
		up.Result = res
	}
	return up, nil
}

func (s *Service) saveTusInfo(ctx context.Context, id string, info *tusInfo) error {
	b, err := json.Marshal(info)
	if err == nil {
		_, err = s.cfg.Blobs.Put(ctx, tusInfoKey(id), strings.NewReader(string(b)), int64(len(b)))
	}
	return internal(err)
}

// loadTusInfo reads the state of the actor's upload id.
func (s *Service) loadTusInfo(ctx context.Context, actor Actor, id string) (tusInfo, error) {
	var info tusInfo
	if _, err := hex.DecodeString(id); err != nil || len(id) != 32 {
		return info, ErrUploadNotFound
	}
	b, err := s.cfg.Blobs.Open(ctx, tusInfoKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		return info, ErrUploadNotFound
	}
	if err != nil {
		return info, internal(err)
	}
	defer b.Close()
	if err := json.NewDecoder(io.LimitReader(b, 1<<16)).Decode(&info); err != nil {
		return info, internal(fmt.Errorf("reading upload state %s: %w", id, err))
	}
	if info.OwnerID != actor.UserID() {
		return tusInfo{}, ErrUploadNotFound
	}
	if !info.Expires.IsZero() && s.now().After(info.Expires) {
		s.removeTus(ctx, id, &info)
		return tusInfo{}, ErrUploadNotFound
	}
	return info, nil
}

// removeTus deletes an upload's state and, unless it became an
// attachment, its bytes.
func (s *Service) removeTus(ctx context.Context, id string, info *tusInfo) error {
	ctx = context.WithoutCancel(ctx)
	if info.Result == nil {
		if err := s.cfg.Blobs.Delete(ctx, info.PathID); err != nil {
			return internal(err)
		}
	}
	return internal(s.cfg.Blobs.Delete(ctx, tusInfoKey(id)))
}

// TerminateResumableUpload ends the actor's upload id (tus termination):
// the bytes of an unfinished upload are deleted; a finished upload's file
// stays an attachment (DELETE /attachments removes it), only its resumable
// state goes.
//
// Errors: the actor errors; ErrUploadNotFound; internal errors.
func (s *Service) TerminateResumableUpload(ctx context.Context, actor Actor, id string) error {
	if err := s.view(ctx, actor, func(tx storage.Tx) error { _, _, err := s.actor(tx, actor); return err }); err != nil {
		return err
	}
	unlock, err := s.lockUpload(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	info, err := s.loadTusInfo(ctx, actor, id)
	if err != nil {
		return err
	}
	return s.removeTus(ctx, id, &info)
}

// CollectExpiredUploads removes the resumable uploads that expired, with
// the bytes of the unfinished ones, and returns how many it removed. It
// needs a BlobStore that can list its keys (storage.BlobLister; without
// one it does nothing). Servers call it now and then (chatd: hourly); the
// program's owner may.
func (s *Service) CollectExpiredUploads(ctx context.Context) (int, error) {
	lister, ok := s.cfg.Blobs.(storage.BlobLister)
	if !ok {
		return 0, nil
	}
	keys, err := lister.List(ctx, "tus/")
	if err != nil {
		return 0, internal(err)
	}
	removed := 0
	for _, key := range keys {
		id := strings.TrimPrefix(key, "tus/")
		unlock, err := s.lockUpload(ctx, id)
		if err != nil {
			return removed, err
		}
		b, err := s.cfg.Blobs.Open(ctx, key)
		if err != nil {
			unlock()
			continue
		}
		var info tusInfo
		err = json.NewDecoder(io.LimitReader(b, 1<<16)).Decode(&info)
		b.Close()
		if err == nil && (info.Expires.IsZero() || s.now().After(info.Expires)) {
			if err := s.removeTus(ctx, id, &info); err != nil {
				unlock()
				return removed, err
			}
			removed++
		}
		unlock()
	}
	return removed, nil
}

// ResumableUploadState returns the state of the actor's upload id, for
// resuming it.
//
// Errors: the actor errors; ErrUploadNotFound for an unknown upload or
// another user's; internal errors.
func (s *Service) ResumableUploadState(ctx context.Context, actor Actor, id string) (ResumableUpload, error) {
	if err := s.view(ctx, actor, func(tx storage.Tx) error { _, _, err := s.actor(tx, actor); return err }); err != nil {
		return ResumableUpload{}, err
	}
	unlock, err := s.lockUpload(ctx, id)
	if err != nil {
		return ResumableUpload{}, err
	}
	defer unlock()
	info, err := s.loadTusInfo(ctx, actor, id)
	if err != nil {
		return ResumableUpload{}, err
	}
	size, err := s.tusSize(ctx, &info)
	if err != nil {
		return ResumableUpload{}, err
	}
	up := ResumableUpload{ID: id, Offset: size, Length: info.Length, Result: info.Result, Metadata: info.Metadata,
		Expires: info.Expires, Partial: info.Partial}
	if size == info.Length && info.Result == nil && !info.Partial {
		// Every byte arrived but finishing failed (say, the server stopped
		// meanwhile): finish now.
		if up.Result, err = s.finishTus(ctx, id, &info); err != nil {
			return up, err
		}
	}
	return up, nil
}

// tusSize is the number of bytes of an upload that arrived; an upload
// whose bytes are gone is ErrUploadNotFound.
func (s *Service) tusSize(ctx context.Context, info *tusInfo) (int64, error) {
	size, err := s.cfg.Blobs.Size(ctx, info.PathID)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, ErrUploadNotFound
	}
	if err != nil {
		return 0, internal(err)
	}
	return size, nil
}

// AppendResumableUpload adds the bytes of r at offset to the actor's
// upload id. Whatever arrives before r fails stays stored, so the client
// can resume from the new offset. When the upload is complete, the file
// becomes the actor's attachment, as with UploadFile, and the result is
// returned in ResumableUpload.Result.
//
// Errors: the actor errors; ErrUploadNotFound; ErrUploadOffsetMismatch when
// offset is not the current offset; ErrUploadTooLong when r holds more than
// the declared length (the bytes that fit are kept); the failure of reading
// r; internal errors.
func (s *Service) AppendResumableUpload(ctx context.Context, actor Actor, id string, offset int64, r io.Reader) (ResumableUpload, error) {
	if err := s.view(ctx, actor, func(tx storage.Tx) error { _, _, err := s.actor(tx, actor); return err }); err != nil {
		return ResumableUpload{}, err
	}
	unlock, err := s.lockUpload(ctx, id)
	if err != nil {
		return ResumableUpload{}, err
	}
	defer unlock()
	info, err := s.loadTusInfo(ctx, actor, id)
	if err != nil {
		return ResumableUpload{}, err
	}
	size, err := s.tusSize(ctx, &info)
	if err != nil {
		return ResumableUpload{}, err
	}
	up := ResumableUpload{ID: id, Offset: size, Length: info.Length, Result: info.Result, Metadata: info.Metadata,
		Expires: info.Expires, Partial: info.Partial}
	if offset != size {
		return up, ErrUploadOffsetMismatch
	}
	n, appendErr := s.cfg.Blobs.Append(ctx, info.PathID, r, info.Length)
	up.Offset += n
	if n > 0 && info.Result == nil {
		// A write keeps the upload alive.
		info.Expires = s.now().Add(TusUploadLifetime)
		up.Expires = info.Expires
		if err := s.saveTusInfo(ctx, id, &info); err != nil {
			return up, err
		}
	}
	switch {
	case errors.Is(appendErr, ErrBlobTooLarge):
		return up, ErrUploadTooLong
	case appendErr != nil:
		return up, appendErr
	}
	if up.Offset == info.Length && info.Result == nil && !info.Partial {
		if up.Result, err = s.finishTus(ctx, id, &info); err != nil {
			return up, err
		}
	}
	return up, nil
}

// ErrPartialIncomplete refuses a concatenation of parts not all complete.
var ErrPartialIncomplete = &Error{Code: CodeBadRequest, Msg: "Every partial upload of a concatenation must be complete"}

// ConcatenateUploads makes one file of the actor's complete partial
// uploads, in order (tus Upload-Concat: final): their bytes are copied
// into a new upload, which becomes an attachment as a finished upload
// does, and the parts are removed. metadata names the file as for
// CreateResumableUpload.
//
// Errors: the actor errors; ErrUploadNotFound for an unknown part, another
// user's, or an upload that is not a part; ErrPartialIncomplete;
// FileTooLargeError when the parts add up to more than the limit; internal
// errors.
func (s *Service) ConcatenateUploads(ctx context.Context, actor Actor, partIDs []string, metadata map[string]string) (ResumableUpload, error) {
	if len(partIDs) == 0 {
		return ResumableUpload{}, ErrUploadNotFound
	}
	var parts []tusInfo
	var total int64
	for _, id := range partIDs {
		info, err := s.loadTusInfo(ctx, actor, id)
		if err != nil {
			return ResumableUpload{}, err
		}
		if !info.Partial {
			return ResumableUpload{}, ErrUploadNotFound
		}
		size, err := s.tusSize(ctx, &info)
		if err != nil {
			return ResumableUpload{}, err
		}
		if size != info.Length {
			return ResumableUpload{}, ErrPartialIncomplete
		}
		parts = append(parts, info)
		total += info.Length
	}
	if total > s.maxUploadBytes() {
		return ResumableUpload{}, FileTooLargeError(s.cfg.MaxUploadMiB)
	}
	up, err := s.createResumableUpload(ctx, actor, total, metadata, false)
	if err != nil || up.Result != nil {
		return up, err
	}
	unlock, err := s.lockUpload(ctx, up.ID)
	if err != nil {
		return ResumableUpload{}, err
	}
	defer unlock()
	final, err := s.loadTusInfo(ctx, actor, up.ID)
	if err != nil {
		return up, err
	}
	for _, p := range parts {
		b, err := s.cfg.Blobs.Open(ctx, p.PathID)
		if err != nil {
			return up, internal(err)
		}
		n, err := s.cfg.Blobs.Append(ctx, final.PathID, b, total)
		b.Close()
		if err != nil {
			return up, internal(err)
		}
		up.Offset += n
	}
	if up.Result, err = s.finishTus(ctx, up.ID, &final); err != nil {
		return up, err
	}
	for i, id := range partIDs {
		if err := s.removeTus(ctx, id, &parts[i]); err != nil {
			return up, err
		}
	}
	return up, nil
}

// finishTus makes a complete upload an attachment and remembers the result,
// so that a client that lost the last answer finds it. It runs on a
// context detached from the request's, since a client that hangs up right
// after its last byte must not lose the file; on failure the bytes stay,
// and the next HEAD or PATCH finishes.
func (s *Service) finishTus(ctx context.Context, id string, info *tusInfo) (*UploadResult, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tusFinishTimeout)
	defer cancel()
	st := &StagedUpload{s: s, actor: AsUser(info.OwnerID), realmID: info.RealmID, pathID: info.PathID,
		name: info.Name, contentType: info.ContentType, size: info.Length, keepOnFailure: true}
	res, err := st.Commit(ctx)
	if err != nil {
		return nil, err
	}
	info.Result = &res
	if err := s.saveTusInfo(ctx, id, info); err != nil {
		return nil, err
	}
	return &res, nil
}

// NamedLocks are locks by name. Lock waits for the lock named key, or for
// ctx to end, and returns the function that releases it.
type NamedLocks interface {
	Lock(ctx context.Context, key string) (func(), error)
}

// lockUpload takes the lock of upload id: the configured shared locks, or
// this process's own.
func (s *Service) lockUpload(ctx context.Context, id string) (func(), error) {
	if s.cfg.UploadLocks != nil {
		unlock, err := s.cfg.UploadLocks.Lock(ctx, "tus/"+id)
		return unlock, internal(err)
	}
	return s.tusLocks.lock(id), nil
}

// keyedMutex is a set of mutexes by key, created on demand and dropped
// when unused.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int
}

// lock locks key and returns the function that unlocks it.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyedLock{}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

// orphanAge is how old a stored file must be before CollectOrphanedFiles
// may take it for an orphan: an upload stores its bytes before the record
// that names them.
const orphanAge = time.Hour

// CollectOrphanedFiles removes the stored files of uploads that no
// attachment names and no resumable upload is writing (left by a failure
// between storing the bytes and the record, or by a crash), once they are
// older than an hour, and returns how many it removed. Like
// CollectExpiredUploads it needs a storage.BlobLister; servers call both
// now and then (chatd: hourly), and the program's owner may.
func (s *Service) CollectOrphanedFiles(ctx context.Context) (int, error) {
	lister, ok := s.cfg.Blobs.(storage.BlobLister)
	if !ok {
		return 0, nil
	}
	keys, err := lister.List(ctx, "")
	if err != nil {
		return 0, internal(err)
	}
	writing := map[string]bool{}
	for _, key := range keys {
		if !strings.HasPrefix(key, "tus/") {
			continue
		}
		b, err := s.cfg.Blobs.Open(ctx, key)
		if err != nil {
			continue
		}
		var info tusInfo
		if json.NewDecoder(io.LimitReader(b, 1<<16)).Decode(&info) == nil {
			writing[info.PathID] = true
		}
		b.Close()
	}
	removed := 0
	for _, key := range keys {
		realmID, ok := uploadPathRealm(key)
		if !ok || writing[key] {
			continue
		}
		// The record is asked first: a file that an attachment names, as
		// nearly every one is, is never opened (on S3 an open is a request).
		named := true
		err := s.view(ctx, noActor, func(tx storage.Tx) error {
			_, err := tx.AttachmentByPath(realmID, key)
			if errors.Is(err, storage.ErrNotFound) {
				named = false
				return nil
			}
			return err
		})
		if err != nil {
			return removed, err
		}
		if named {
			continue
		}
		b, err := s.cfg.Blobs.Open(ctx, key)
		if err != nil {
			continue
		}
		old := s.now().Sub(b.ModTime()) > orphanAge
		b.Close()
		if !old {
			continue
		}
		if err := s.cfg.Blobs.Delete(ctx, key); err != nil {
			return removed, internal(err)
		}
		removed++
	}
	return removed, nil
}

// uploadPathRealm returns the realm of a key that has the form of an
// upload's path ID, "{realm_id}/{2 hex}/{random}/{name}".
func uploadPathRealm(key string) (int64, bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 4 || len(parts[1]) != 2 {
		return 0, false
	}
	if _, err := hex.DecodeString(parts[1]); err != nil {
		return 0, false
	}
	id, err := strconv.ParseInt(parts[0], 10, 64)
	return id, err == nil && id > 0
}
