package chat

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teamchat/chat/storage"
)

// memBlobs is the BlobStore of a Config without one: blobs in memory, for
// tests and for embedding programs that keep nothing on disk.
type memBlobs struct {
	mu    sync.Mutex
	now   func() time.Time
	blobs map[string]memBlob
}

type memBlob struct {
	data []byte
	mod  time.Time
}

func newMemBlobs(now func() time.Time) *memBlobs {
	return &memBlobs{now: now, blobs: map[string]memBlob{}}
}

// readLimited reads r until EOF or past limit bytes.
func readLimited(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(storage.ContextReader(ctx, r), limit+1))
	if err != nil {
		return buf.Bytes(), err
	}
	if n > limit {
		return buf.Bytes()[:limit], ErrBlobTooLarge
	}
	return buf.Bytes(), nil
}

// errBadBlobKey answers a key that storage.ValidBlobKey refuses.
var errBadBlobKey = errors.New("chat: invalid blob key")

func (m *memBlobs) Put(ctx context.Context, key string, r io.Reader, limit int64) (int64, error) {
	if !storage.ValidBlobKey(key) {
		return 0, errBadBlobKey
	}
	data, err := readLimited(ctx, r, limit)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs[key] = memBlob{data, m.now()}
	return int64(len(data)), nil
}

func (m *memBlobs) Append(ctx context.Context, key string, r io.Reader, limit int64) (int64, error) {
	if !storage.ValidBlobKey(key) {
		return 0, errBadBlobKey
	}
	size, err := m.Size(ctx, key)
	if err != nil && err != storage.ErrNotFound {
		return 0, err
	}
	data, err := readLimited(ctx, r, max(limit-size, 0))
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.blobs[key]
	m.blobs[key] = memBlob{append(b.data[:len(b.data):len(b.data)], data...), m.now()}
	return int64(len(data)), err
}

func (m *memBlobs) Size(_ context.Context, key string) (int64, error) {
	if !storage.ValidBlobKey(key) {
		return 0, errBadBlobKey
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[key]
	if !ok {
		return 0, storage.ErrNotFound
	}
	return int64(len(b.data)), nil
}

func (m *memBlobs) Open(_ context.Context, key string) (Blob, error) {
	if !storage.ValidBlobKey(key) {
		return nil, errBadBlobKey
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[key]
	if !ok {
		return nil, storage.ErrNotFound
	}
	// Appends copy on write, so the slice stays as it is.
	return &memBlobReader{bytes.NewReader(b.data), b.mod}, nil
}

func (m *memBlobs) Delete(_ context.Context, key string) error {
	if !storage.ValidBlobKey(key) {
		return errBadBlobKey
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.blobs, key)
	return nil
}

type memBlobReader struct {
	*bytes.Reader
	mod time.Time
}

func (b *memBlobReader) Close() error       { return nil }
func (b *memBlobReader) ModTime() time.Time { return b.mod }

// List implements storage.BlobLister.
func (m *memBlobs) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.blobs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}
