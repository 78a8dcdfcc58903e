package storage

import (
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"time"
)

// ErrBlobTooLarge is returned by BlobStore.Put and BlobStore.Append when the
// data would exceed their limit.
var ErrBlobTooLarge = errors.New("storage: blob larger than its limit")

// BlobStore keeps the bytes of uploaded files under keys that are attachment
// path IDs ("{realm_id}/{hex}/{random}/{name}"). The storage/blobfs package
// stores them in a directory; an S3-compatible store can implement the same
// interface (Append with multipart uploads). Keys reach a BlobStore only
// from the chat package, already validated.
type BlobStore interface {
	// Put stores the bytes of r under key, reading at most limit bytes: a
	// longer r makes Put fail with ErrBlobTooLarge and store nothing. Any
	// failure leaves nothing under key. It returns the number of bytes
	// stored. Put replaces an existing blob.
	Put(ctx context.Context, key string, r io.Reader, limit int64) (int64, error)
	// Append adds the bytes of r to the end of the blob under key, creating
	// it empty when it does not exist, and returns how many bytes it added.
	// The blob never grows past limit bytes: more data makes Append fail
	// with ErrBlobTooLarge after adding what fits. On any failure the bytes
	// added so far stay, so that a resumable upload can go on from there.
	Append(ctx context.Context, key string, r io.Reader, limit int64) (int64, error)
	// Size returns the length of the blob under key, or ErrNotFound.
	Size(ctx context.Context, key string) (int64, error)
	// Open returns a reader of the blob under key, or ErrNotFound. The
	// caller closes it.
	Open(ctx context.Context, key string) (Blob, error)
	// Delete removes the blob under key; a missing blob is not an error.
	Delete(ctx context.Context, key string) error
}

// Blob is an open stored file, readable from any offset (for HTTP ranges).
type Blob interface {
	io.ReadSeekCloser
	// Size is the length of the blob in bytes.
	Size() int64
	// ModTime is when the blob was last written.
	ModTime() time.Time
}

// BlobLister is a BlobStore that can list its keys, which lets the
// service collect what was abandoned.
type BlobLister interface {
	// List returns the keys that start with prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
}

// LinkedBlob is a Blob that clients may fetch from its store directly,
// through a short-lived link (an S3 presigned URL), so that the bytes do
// not pass through the server. Stores configured to stream return Blobs
// without this method.
type LinkedBlob interface {
	Blob
	// Link returns a URL that serves the blob with the response headers
	// of h until it expires a short time later.
	Link(ctx context.Context, h BlobHeader) (string, error)
}

// BlobHeader is what the response to a blob's link says of it.
type BlobHeader struct {
	ContentType        string
	ContentDisposition string
	CacheControl       string
}

// ContextReader returns a reader of r that fails with ctx's error once
// ctx is done, so that a blob store's copy stops with its request even
// when r itself would wait on.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ValidBlobKey reports whether key has the form of the keys package chat
// makes: a clean relative slash path, without empty, "." or ".."
// elements or backslashes, whose first element does not start with a dot
// (stores may keep objects of their own there). Blob stores refuse other
// keys, so that no key reaches outside its place.
func ValidBlobKey(key string) bool {
	if key == "" || key[0] == '.' || path.Clean(key) != key || strings.ContainsRune(key, '\\') {
		return false
	}
	for _, el := range strings.Split(key, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}
