package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/blobfs"
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

func TestAppend(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	key := "tus/0123"
	for _, part := range []string{"", "abc", "def"} {
		if n, err := s.Append(ctx, key, strings.NewReader(part), 8); err != nil || n != int64(len(part)) {
			t.Fatalf("Append(%q) = %d, %v", part, n, err)
		}
	}
	n, err := s.Append(ctx, key, strings.NewReader("ghijk"), 8)
	if !errors.Is(err, storage.ErrBlobTooLarge) || n != 2 {
		t.Errorf("Append past the limit = %d, %v; want 2, ErrBlobTooLarge", n, err)
	}
	if got := read(t, s, key); got != "abcdefgh" {
		t.Errorf("read %q, want abcdefgh", got)
	}
	if size, err := s.Size(ctx, key); err != nil || size != 8 {
		t.Errorf("Size = %d, %v; want 8", size, err)
	}
	// A failing reader keeps what arrived before it failed.
	key2 := "tus/4567"
	boom := errors.New("connection lost")
	r := io.MultiReader(strings.NewReader("partial"), errReader{boom})
	if n, err := s.Append(ctx, key2, r, 100); !errors.Is(err, boom) || n != 7 {
		t.Errorf("Append of a failing reader = %d, %v; want 7, %v", n, err, boom)
	}
	if got := read(t, s, key2); got != "partial" {
		t.Errorf("read %q, want partial", got)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

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

// TestList lists keys by prefix, sorted, without the temporary files of
// writes, and nothing under a missing directory.
func TestList(t *testing.T) {
	s, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []string{"tus/b", "tus/a", "1/ab/x/file.txt", "tusk"} {
		if _, err := s.Put(ctx, k, strings.NewReader("x"), 10); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.List(ctx, "tus/")
	if err != nil || !slices.Equal(got, []string{"tus/a", "tus/b"}) {
		t.Errorf("List(tus/) = %v, %v", got, err)
	}
	got, err = s.List(ctx, "")
	if err != nil || !slices.Equal(got, []string{"1/ab/x/file.txt", "tus/a", "tus/b", "tusk"}) {
		t.Errorf("List() = %v, %v", got, err)
	}
	if got, err := s.List(ctx, "nothing/"); err != nil || len(got) != 0 {
		t.Errorf("List(nothing/) = %v, %v", got, err)
	}
}
