// Package blobfs is a storage.BlobStore in a directory of the file system:
// each blob is a file whose path below the directory is the blob's key.
//
// Writes stream through a small buffer, so a file of any size costs a
// constant amount of memory. Put writes a temporary file and renames it into
// place, so readers never see a partial blob and a failed Put leaves
// nothing; Append writes in place, which is what resumable uploads need.
package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// Store is a storage.BlobStore under one directory. It is safe for concurrent
// use; concurrent writes to one key are the caller's to serialise.
type Store struct {
	root string
}

// New returns a Store under dir, creating the directory when needed.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blobfs: %w", err)
	}
	return &Store{root: dir}, nil
}

// errBadKey answers a key that is not a clean relative slash path.
var errBadKey = errors.New("blobfs: invalid key")

// file returns the file name of key. Keys come validated from package chat;
// this check makes path traversal impossible even so.
func (s *Store) file(key string) (string, error) {
	if !storage.ValidBlobKey(key) || !fs.ValidPath(key) || strings.ContainsRune(key, '\\') ||
		!filepath.IsLocal(filepath.FromSlash(key)) {
		return "", fmt.Errorf("%w: %q", errBadKey, key)
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// copyBufferSize is the buffer of every copy: the memory a write costs.
const copyBufferSize = 64 << 10

// copyN copies at most n bytes of r to w with a buffer of copyBufferSize
// (io.Copy would also do, but this keeps the buffer size explicit and
// avoids the ReaderFrom paths that ignore it).
func copyN(w io.Writer, r io.Reader, n int64) (int64, error) {
	buf := make([]byte, copyBufferSize)
	return io.CopyBuffer(struct{ io.Writer }{w}, io.LimitReader(r, n), buf)
}

// Put stores r under key through a temporary file renamed into place.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, limit int64) (n int64, err error) {
	name, err := s.file(key)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	f, err := os.CreateTemp(dir, ".put-*")
	if err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err = copyN(f, storage.ContextReader(ctx, r), limit+1)
	if err != nil {
		return 0, err
	}
	if n > limit {
		return 0, storage.ErrBlobTooLarge
	}
	if err = f.Sync(); err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	if err = f.Close(); err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	if err = os.Rename(f.Name(), name); err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	return n, nil
}

// Append adds r at the end of the file of key, never past limit bytes.
func (s *Store) Append(ctx context.Context, key string, r io.Reader, limit int64) (int64, error) {
	name, err := s.file(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	n, err := copyN(f, storage.ContextReader(ctx, r), max(limit-fi.Size(), 0))
	if err == nil {
		// Everything that fits is written: is there more?
		var probe [1]byte
		var m int
		m, err = io.ReadFull(r, probe[:])
		switch {
		case m > 0:
			err = storage.ErrBlobTooLarge
		case err == io.EOF:
			err = nil
		}
	}
	if syncErr := f.Sync(); err == nil && syncErr != nil {
		err = fmt.Errorf("blobfs: %w", syncErr)
	}
	return n, err
}

// Size returns the length of the file of key.
func (s *Store) Size(_ context.Context, key string) (int64, error) {
	name, err := s.file(key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, storage.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("blobfs: %w", err)
	}
	return fi.Size(), nil
}

// Open opens the file of key.
func (s *Store) Open(_ context.Context, key string) (storage.Blob, error) {
	name, err := s.file(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, storage.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("blobfs: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("blobfs: %s is not a regular file (%v)", key, err)
	}
	return &blob{f, fi.Size(), fi.ModTime()}, nil
}

type blob struct {
	*os.File
	size int64
	mod  time.Time
}

func (b *blob) Size() int64        { return b.size }
func (b *blob) ModTime() time.Time { return b.mod }

// Delete removes the file of key, and for an upload's key
// ("{realm}/{hex}/{random}/{name}") its own random directory. Shared
// directories stay, so that a concurrent Put never loses its directory.
func (s *Store) Delete(_ context.Context, key string) error {
	name, err := s.file(key)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blobfs: %w", err)
	}
	if strings.Count(key, "/") == 3 {
		os.Remove(filepath.Dir(name)) // fails harmlessly when not empty
	}
	return nil
}

var _ storage.BlobLister = (*Store)(nil)

// List returns the keys under the directory part of prefix that start
// with prefix, sorted; the temporary files of writes in progress are not
// keys. A prefix whose directory does not exist has none.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	dir := path.Dir(prefix + "x")
	root := s.root
	if dir != "." {
		name, err := s.file(dir)
		if err != nil {
			return nil, err
		}
		root = name
	}
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".put-") {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); strings.HasPrefix(key, prefix) {
			out = append(out, key)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blobfs: %w", err)
	}
	slices.Sort(out)
	return out, nil
}
