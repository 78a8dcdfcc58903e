package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
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

func read(t *testing.T, s *blobfs.Store, key string) string {
	t.Helper()
	b, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer b.Close()
	data, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != int64(len(data)) {
		t.Errorf("Size() = %d, read %d bytes", b.Size(), len(data))
	}
	return string(data)
}

// TestConformance runs the BlobStore suite that every store passes.
func TestConformance(t *testing.T) {
	storagetest.RunBlobStore(t, func(t *testing.T) storage.BlobStore {
		s, _ := newStore(t)
		return s
	})
}

// TestPutOpenDelete checks where the files go, and that Delete takes an
// upload's own directory with it.
func TestPutOpenDelete(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	key := "1/0a/abcdefghijklmnopqrstuvwx/hello.txt"
	n, err := s.Put(ctx, key, strings.NewReader("hello"), 5)
	if err != nil || n != 5 {
		t.Fatalf("Put = %d, %v; want 5, nil", n, err)
	}
	if got := read(t, s, key); got != "hello" {
		t.Errorf("read %q, want hello", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "1", "0a", "abcdefghijklmnopqrstuvwx", "hello.txt")); err != nil {
		t.Errorf("file not at its key's path: %v", err)
	}
	// Over the limit: an error, and the old blob is untouched.
	if _, err := s.Put(ctx, key, strings.NewReader("hello!"), 5); !errors.Is(err, storage.ErrBlobTooLarge) {
		t.Errorf("Put over the limit: %v, want ErrBlobTooLarge", err)
	}
	if got := read(t, s, key); got != "hello" {
		t.Errorf("after a failed Put read %q, want hello", got)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "1", "0a", "abcdefghijklmnopqrstuvwx"))
	if len(entries) != 1 {
		t.Errorf("a failed Put left files behind: %v", entries)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, key); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Open after Delete: %v, want ErrNotFound", err)
	}
	if _, err := s.Size(ctx, key); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Size after Delete: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "1", "0a", "abcdefghijklmnopqrstuvwx")); !os.IsNotExist(err) {
		t.Errorf("the upload's directory stays after Delete: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Errorf("Delete of a missing blob: %v", err)
	}
}

func TestBadKeys(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	for _, key := range []string{"", "../outside", "1/../../outside", "/etc/passwd", "1//x", "1/./x", "1/x/", `1\..\..\x`, "..", "."} {
		if _, err := s.Put(ctx, key, bytes.NewReader(nil), 10); err == nil {
			t.Errorf("Put(%q) succeeded", key)
		}
		if _, err := s.Open(ctx, key); err == nil || errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Open(%q) = %v, want a key error", key, err)
		}
		if _, err := s.Append(ctx, key, bytes.NewReader(nil), 10); err == nil {
			t.Errorf("Append(%q) succeeded", key)
		}
		if err := s.Delete(ctx, key); err == nil {
			t.Errorf("Delete(%q) succeeded", key)
		}
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the store: %v", err)
	}
}
