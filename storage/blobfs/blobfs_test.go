package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/blobfs"
	"github.com/teamchat/chat/storage/storagetest"
)

func newStore(t *testing.T) (*blobfs.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "uploads")
	s, err := blobfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// TestConformance runs the BlobStore suite that every store passes.
func TestConformance(t *testing.T) {
	storagetest.RunBlobStore(t, func(t *testing.T) storage.BlobStore {
		s, _ := newStore(t)
		return s
	})
}

// TestFilesInPlace checks where the files go: at their key's path, no
// temporary file left by a failed Put, and an upload's own directory gone
// with its file.
func TestFilesInPlace(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	key := "1/0a/abcdefghijklmnopqrstuvwx/hello.txt"
	upload := filepath.Join(dir, "1", "0a", "abcdefghijklmnopqrstuvwx")
	if _, err := s.Put(ctx, key, strings.NewReader("hello"), 5); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(upload, "hello.txt")); err != nil {
		t.Errorf("file not at its key's path: %v", err)
	}
	if _, err := s.Put(ctx, key, strings.NewReader("hello!"), 5); !errors.Is(err, storage.ErrBlobTooLarge) {
		t.Errorf("Put over the limit: %v, want ErrBlobTooLarge", err)
	}
	if entries, _ := os.ReadDir(upload); len(entries) != 1 {
		t.Errorf("a failed Put left files behind: %v", entries)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(upload); !os.IsNotExist(err) {
		t.Errorf("the upload's directory stays after Delete: %v", err)
	}
}

// TestBadKeysStayInside: the keys the suite refuses never write beside
// the store's directory.
func TestBadKeysStayInside(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	for _, key := range []string{"../outside", "1/../../outside", `1\..\..\outside`} {
		s.Put(ctx, key, bytes.NewReader(nil), 10)
		s.Append(ctx, key, bytes.NewReader(nil), 10)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the store: %v", err)
	}
}
