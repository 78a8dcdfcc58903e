package blobs3

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/minio/minio-go/v7"
)

// upload is a multipart upload in progress: of a Put, or of an unfinished
// blob, whose upload is saved as JSON in its state object between Appends.
type upload struct {
	s   *Store
	obj string
	// UploadID is the S3 multipart upload, begun with the first full part.
	UploadID string `json:"upload_id,omitempty"`
	Parts    []part `json:"parts,omitempty"`
	// Tail is how many bytes after the parts wait in the tail object.
	Tail int64 `json:"tail,omitempty"`
}

type part struct {
	Number int    `json:"n"`
	ETag   string `json:"etag"`
	Size   int64  `json:"size"`
}

// size is the length of the blob so far.
func (u *upload) size() int64 { return u.partsSize() + u.Tail }

// partsSize is the length of the parts sent.
func (u *upload) partsSize() int64 {
	var n int64
	for _, p := range u.Parts {
		n += p.Size
	}
	return n
}

// part uploads data as the next part, beginning the upload if needed. The
// bytes of a part before the tail are saved in parts, so the tail is empty.
func (u *upload) part(ctx context.Context, data []byte) error {
	c := u.s.core
	if u.UploadID == "" {
		id, err := c.NewMultipartUpload(ctx, u.s.bucket, u.obj, minio.PutObjectOptions{})
		if err != nil {
			return err
		}
		u.UploadID = id
	}
	n := len(u.Parts) + 1
	p, err := c.PutObjectPart(ctx, u.s.bucket, u.obj, u.UploadID, n, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectPartOptions{})
	if err != nil {
		return err
	}
	u.Parts = append(u.Parts, part{Number: n, ETag: p.ETag, Size: int64(len(data))})
	u.Tail = 0
	return nil
}

// finish makes the object of the parts followed by rest: one plain PUT
// when no part was sent, else the last part and the upload's completion.
func (u *upload) finish(ctx context.Context, rest []byte) error {
	c := u.s.core
	if u.UploadID == "" {
		_, err := c.PutObject(ctx, u.s.bucket, u.obj, bytes.NewReader(rest), int64(len(rest)), "", "", minio.PutObjectOptions{})
		return err
	}
	if len(rest) > 0 {
		if err := u.part(ctx, rest); err != nil {
			return err
		}
	}
	done := make([]minio.CompletePart, len(u.Parts))
	for i, p := range u.Parts {
		done[i] = minio.CompletePart{PartNumber: p.Number, ETag: p.ETag}
	}
	_, err := c.CompleteMultipartUpload(ctx, u.s.bucket, u.obj, u.UploadID, done, minio.PutObjectOptions{})
	return err
}

// abort gives up the upload's parts, even when the request that made them
// is gone.
func (u *upload) abort() {
	if u.UploadID == "" {
		return
	}
	ctx, cancel := detached(context.Background())
	defer cancel()
	u.s.core.AbortMultipartUpload(ctx, u.s.bucket, u.obj, u.UploadID)
}

// saveTimeout bounds the work that keeps what an Append received after its
// request is gone.
const saveTimeout = 30 * time.Second

// detached is ctx without its cancellation, for saveTimeout.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
}

// Append adds r to the unfinished blob under key: whole parts are uploaded
// as they fill and the rest is saved in the tail object. A blob that
// reaches limit becomes an object at once. Whatever r gave before it
// failed stays saved, even when ctx ends.
func (s *Store) Append(ctx context.Context, key string, r io.Reader, limit int64) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	bp := s.buffer()
	defer s.buffers.Put(bp)
	u, err := s.loadState(ctx, key)
	if err != nil {
		return 0, err
	}
	resumed, hadObject := u == nil, false
	if resumed {
		u, hadObject, err = s.resume(ctx, obj, bp)
	} else if u.Tail > 0 {
		err = s.readTail(ctx, key, u.Tail, bp)
	}
	if err != nil {
		return 0, wrap(err)
	}
	before := u.partsSize() + int64(len(*bp))
	n, err := s.fill(ctx, u, bp, r, max(limit-before, 0), func() error { return s.saveState(ctx, key, u) })
	if err == nil && before+n >= limit {
		err = probeEnd(r)
	}
	saveCtx, cancel := detached(ctx)
	defer cancel()
	var saveErr error
	switch {
	case n == 0 && hadObject:
		// Nothing added to a finished blob: it stays as it is, and the
		// upload begun to continue it goes.
		u.abort()
	case before+n == limit:
		saveErr = s.finishUpload(saveCtx, key, u, *bp)
	case n > 0 || resumed:
		saveErr = s.saveTail(saveCtx, key, u, *bp)
		if saveErr == nil && hadObject {
			// The state now holds the object's bytes: an unfinished blob
			// has no object, so that Open finds finished ones in one
			// request.
			saveErr = s.client.RemoveObject(saveCtx, s.bucket, obj, minio.RemoveObjectOptions{})
		}
	}
	if saveErr != nil {
		// What the parts hold is saved; the rest is lost, and the caller
		// learns the blob's length from Size.
		saved, serr := s.Size(saveCtx, key)
		if serr != nil {
			saved = before
		}
		return max(saved-before, 0), wrap(saveErr)
	}
	return n, wrap(err)
}

// resume starts the upload of an unfinished blob from the object under
// obj, if any (and says whether there was one): a part copied on the
// server when it is at least a part long, else its bytes read into the
// buffer, to be saved as the tail.
func (s *Store) resume(ctx context.Context, obj string, bp *[]byte) (*upload, bool, error) {
	u := &upload{s: s, obj: obj}
	info, err := s.client.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	switch {
	case notFound(err):
		return u, false, nil
	case err != nil:
		return nil, false, err
	case info.Size == 0:
		return u, true, nil
	case info.Size >= s.partSize:
		if u.UploadID, err = s.core.NewMultipartUpload(ctx, s.bucket, obj, minio.PutObjectOptions{}); err != nil {
			return nil, false, err
		}
		p, err := s.core.CopyObjectPart(ctx, s.bucket, obj, s.bucket, obj, u.UploadID, 1, 0, info.Size, nil)
		if err != nil {
			u.abort()
			return nil, false, err
		}
		u.Parts = []part{{Number: 1, ETag: p.ETag, Size: info.Size}}
		return u, true, nil
	}
	body, _, _, err := s.core.GetObject(ctx, s.bucket, obj, minio.GetObjectOptions{})
	if err != nil {
		return nil, false, err
	}
	defer body.Close()
	k, err := io.ReadFull(body, (*bp)[:info.Size])
	*bp = (*bp)[:k]
	return u, true, err
}

// saveTail saves the bytes after the parts as the tail, then the state
// that counts them: a crash between the two leaves the old state, which
// reads only the old tail's length of the new tail, the same bytes.
func (s *Store) saveTail(ctx context.Context, key string, u *upload, tail []byte) error {
	if len(tail) > 0 {
		_, err := s.core.PutObject(ctx, s.bucket, s.tailObject(key), bytes.NewReader(tail), int64(len(tail)), "", "",
			minio.PutObjectOptions{})
		if err != nil {
			return err
		}
	}
	u.Tail = int64(len(tail))
	return s.saveState(ctx, key, u)
}

// finishUpload makes the object of an unfinished blob whose tail is in
// the buffer, then removes its state and tail.
func (s *Store) finishUpload(ctx context.Context, key string, u *upload, tail []byte) error {
	if err := u.finish(ctx, tail); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, s.stateObject(key), minio.RemoveObjectOptions{}); err != nil {
		return err
	}
	return s.client.RemoveObject(ctx, s.bucket, s.tailObject(key), minio.RemoveObjectOptions{})
}

// finishAppend makes the object of an unfinished blob.
func (s *Store) finishAppend(ctx context.Context, key string, u *upload) error {
	bp := s.buffer()
	defer s.buffers.Put(bp)
	if err := s.readTail(ctx, key, u.Tail, bp); err != nil {
		return wrap(err)
	}
	return wrap(s.finishUpload(ctx, key, u, *bp))
}

// discardAppend removes an unfinished blob's upload, state and tail, if
// it has any.
func (s *Store) discardAppend(ctx context.Context, key string) error {
	u, err := s.loadState(ctx, key)
	if err != nil || u == nil {
		return err
	}
	if u.UploadID != "" {
		err := s.core.AbortMultipartUpload(ctx, s.bucket, u.obj, u.UploadID)
		if err != nil && !notFound(err) {
			return wrap(err)
		}
	}
	if err := s.client.RemoveObject(ctx, s.bucket, s.tailObject(key), minio.RemoveObjectOptions{}); err != nil {
		return wrap(err)
	}
	return wrap(s.client.RemoveObject(ctx, s.bucket, s.stateObject(key), minio.RemoveObjectOptions{}))
}

// maxStateSize bounds a state object: 10 000 parts, S3's most, of about
// 60 bytes each.
const maxStateSize = 1 << 20

// loadState reads the upload of the unfinished blob under key; nil when
// the blob is finished or missing.
func (s *Store) loadState(ctx context.Context, key string) (*upload, error) {
	body, _, _, err := s.core.GetObject(ctx, s.bucket, s.stateObject(key), minio.GetObjectOptions{})
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(err)
	}
	defer body.Close()
	u := &upload{s: s, obj: s.prefix + key}
	data, err := io.ReadAll(io.LimitReader(body, maxStateSize))
	if notFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(err)
	}
	if err := json.Unmarshal(data, u); err != nil {
		return nil, fmt.Errorf("blobs3: state of %s: %w", key, err)
	}
	return u, nil
}

// saveState writes the upload of the unfinished blob under key.
func (s *Store) saveState(ctx context.Context, key string, u *upload) error {
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	_, err = s.core.PutObject(ctx, s.bucket, s.stateObject(key), bytes.NewReader(data), int64(len(data)), "", "",
		minio.PutObjectOptions{ContentType: "application/json"})
	return err
}

// readTail reads the first n bytes of key's tail object into the buffer.
func (s *Store) readTail(ctx context.Context, key string, n int64, bp *[]byte) error {
	*bp = (*bp)[:0]
	if n == 0 {
		return nil
	}
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(0, n-1); err != nil {
		return err
	}
	body, _, _, err := s.core.GetObject(ctx, s.bucket, s.tailObject(key), opts)
	if err != nil {
		return err
	}
	defer body.Close()
	k, err := io.ReadFull(body, (*bp)[:n])
	*bp = (*bp)[:k]
	return err
}
