package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// RunBlobStore runs the conformance suite of storage.BlobStore as
// subtests of t. open returns a new, empty store for each subtest. Stores
// that implement storage.BlobLister also have their listing checked.
func RunBlobStore(t *testing.T, open func(t *testing.T) storage.BlobStore) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(*testing.T, storage.BlobStore)
	}{
		{"PutOpenDelete", testBlobPutOpenDelete},
		{"PutLimit", testBlobPutLimit},
		{"Append", testBlobAppend},
		{"AppendFailingReader", testBlobAppendFailingReader},
		{"AppendLarge", testBlobAppendLarge},
		{"AppendAfterOpen", testBlobAppendAfterOpen},
		{"Seek", testBlobSeek},
		{"BadKeys", testBlobBadKeys},
		{"Concurrent", testBlobConcurrent},
	}
	if _, ok := open(t).(storage.BlobLister); ok {
		cases = append(cases, struct {
			name string
			fn   func(*testing.T, storage.BlobStore)
		}{"List", testBlobList})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

// readBlob reads the whole blob under key and checks its Size.
func readBlob(t *testing.T, s storage.BlobStore, key string) []byte {
	t.Helper()
	b, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer b.Close()
	data, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	if b.Size() != int64(len(data)) {
		t.Errorf("Size() of %q = %d, read %d bytes", key, b.Size(), len(data))
	}
	return data
}

func testBlobPutOpenDelete(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	key := "1/0a/abcdefghijklmnopqrstuvwx/hello.txt"
	start := time.Now().Add(-time.Minute)
	if n, err := s.Put(ctx, key, strings.NewReader("hello"), 5); err != nil || n != 5 {
		t.Fatalf("Put = %d, %v; want 5, nil", n, err)
	}
	if got := readBlob(t, s, key); string(got) != "hello" {
		t.Errorf("read %q, want hello", got)
	}
	b, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if mod := b.ModTime(); mod.Before(start) || mod.After(time.Now().Add(time.Minute)) {
		t.Errorf("ModTime() = %v, want about now", mod)
	}
	b.Close()
	if size, err := s.Size(ctx, key); err != nil || size != 5 {
		t.Errorf("Size = %d, %v; want 5", size, err)
	}
	// Put replaces.
	if _, err := s.Put(ctx, key, strings.NewReader("bye"), 5); err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, s, key); string(got) != "bye" {
		t.Errorf("after a second Put read %q, want bye", got)
	}
	// A file name may start with a dot.
	dotted := "1/0a/abcdefghijklmnopqrstuvwx/.profile"
	if _, err := s.Put(ctx, dotted, strings.NewReader("dot"), 5); err != nil {
		t.Fatalf("Put(%q): %v", dotted, err)
	}
	if got := readBlob(t, s, dotted); string(got) != "dot" {
		t.Errorf("read %q, want dot", got)
	}
	// An empty blob is a blob.
	if n, err := s.Put(ctx, "1/0a/abcdefghijklmnopqrstuvwx/empty", strings.NewReader(""), 5); err != nil || n != 0 {
		t.Fatalf("Put of nothing = %d, %v", n, err)
	}
	if got := readBlob(t, s, "1/0a/abcdefghijklmnopqrstuvwx/empty"); len(got) != 0 {
		t.Errorf("read %q, want nothing", got)
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
	if err := s.Delete(ctx, key); err != nil {
		t.Errorf("Delete of a missing blob: %v", err)
	}
}

func testBlobPutLimit(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	key := "1/0b/abcdefghijklmnopqrstuvwx/a.txt"
	if _, err := s.Put(ctx, key, strings.NewReader("hello"), 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, key, strings.NewReader("hello!"), 5); !errors.Is(err, storage.ErrBlobTooLarge) {
		t.Errorf("Put over the limit: %v, want ErrBlobTooLarge", err)
	}
	if got := readBlob(t, s, key); string(got) != "hello" {
		t.Errorf("after a failed Put read %q, want hello", got)
	}
	// A failed Put of a new key leaves nothing.
	boom := errors.New("connection lost")
	if _, err := s.Put(ctx, "1/0b/abcdefghijklmnopqrstuvwx/b.txt", io.MultiReader(strings.NewReader("par"), failing{boom}), 10); !errors.Is(err, boom) {
		t.Errorf("Put of a failing reader: %v, want %v", err, boom)
	}
	if _, err := s.Size(ctx, "1/0b/abcdefghijklmnopqrstuvwx/b.txt"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Size after a failed Put: %v, want ErrNotFound", err)
	}
}

// failing is a reader that fails with err.
type failing struct{ err error }

func (r failing) Read([]byte) (int, error) { return 0, r.err }

func testBlobAppend(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	key := "tus/0123"
	var total int64
	for _, part := range []string{"", "abc", "def"} {
		if n, err := s.Append(ctx, key, strings.NewReader(part), 8); err != nil || n != int64(len(part)) {
			t.Fatalf("Append(%q) = %d, %v", part, n, err)
		}
		total += int64(len(part))
		if size, err := s.Size(ctx, key); err != nil || size != total {
			t.Errorf("Size after Append(%q) = %d, %v; want %d", part, size, err, total)
		}
	}
	n, err := s.Append(ctx, key, strings.NewReader("ghijk"), 8)
	if !errors.Is(err, storage.ErrBlobTooLarge) || n != 2 {
		t.Errorf("Append past the limit = %d, %v; want 2, ErrBlobTooLarge", n, err)
	}
	if size, err := s.Size(ctx, key); err != nil || size != 8 {
		t.Errorf("Size = %d, %v; want 8", size, err)
	}
	if got := readBlob(t, s, key); string(got) != "abcdefgh" {
		t.Errorf("read %q, want abcdefgh", got)
	}
	// A limit under the blob's length adds nothing more.
	if n, err := s.Append(ctx, key, strings.NewReader("z"), 4); !errors.Is(err, storage.ErrBlobTooLarge) || n != 0 {
		t.Errorf("Append under the blob's length = %d, %v; want 0, ErrBlobTooLarge", n, err)
	}
	if n, err := s.Append(ctx, key, strings.NewReader(""), 4); err != nil || n != 0 {
		t.Errorf("Append of nothing under the blob's length = %d, %v; want 0, nil", n, err)
	}
	// An empty Append creates an empty blob.
	if n, err := s.Append(ctx, "tus/empty", strings.NewReader(""), 0); err != nil || n != 0 {
		t.Fatalf("Append of nothing = %d, %v", n, err)
	}
	if size, err := s.Size(ctx, "tus/empty"); err != nil || size != 0 {
		t.Errorf("Size of an empty Append = %d, %v; want 0", size, err)
	}
	// Delete removes an unfinished blob.
	if _, err := s.Append(ctx, "tus/gone", strings.NewReader("abc"), 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "tus/gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Size(ctx, "tus/gone"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Size of a deleted unfinished blob: %v, want ErrNotFound", err)
	}
	if n, err := s.Append(ctx, "tus/gone", strings.NewReader("xy"), 10); err != nil || n != 2 {
		t.Fatalf("Append after Delete = %d, %v", n, err)
	}
	if got := readBlob(t, s, "tus/gone"); string(got) != "xy" {
		t.Errorf("after Delete and Append read %q, want xy", got)
	}
}

func testBlobAppendFailingReader(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	boom := errors.New("connection lost")
	r := io.MultiReader(strings.NewReader("partial"), failing{boom})
	if n, err := s.Append(ctx, "tus/4567", r, 100); !errors.Is(err, boom) || n != 7 {
		t.Errorf("Append of a failing reader = %d, %v; want 7, %v", n, err, boom)
	}
	if size, err := s.Size(ctx, "tus/4567"); err != nil || size != 7 {
		t.Errorf("Size = %d, %v; want 7", size, err)
	}
	// A cancelled context keeps what arrived too.
	cctx, cancel := context.WithCancel(ctx)
	r = io.MultiReader(strings.NewReader(" more"), cancelling{cancel})
	if n, err := s.Append(cctx, "tus/4567", r, 100); !errors.Is(err, context.Canceled) || n != 5 {
		t.Errorf("Append whose context ends = %d, %v; want 5, context.Canceled", n, err)
	}
	if got := readBlob(t, s, "tus/4567"); string(got) != "partial more" {
		t.Errorf("read %q, want %q", got, "partial more")
	}
}

// cancelling is a reader that cancels its context and fails as a reader
// would once its request is gone.
type cancelling struct{ cancel context.CancelFunc }

func (r cancelling) Read([]byte) (int, error) {
	r.cancel()
	return 0, context.Canceled
}

// patterned returns n bytes that differ at every offset of interest.
func patterned(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// testBlobAppendLarge appends 12 MiB in uneven pieces, across the 5 MiB
// parts of multipart stores, as resumable uploads do, and puts as much.
func testBlobAppendLarge(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	want := patterned(1, 12<<20+12345)
	limit := int64(len(want))
	var off int
	for _, n := range []int{1000, 3 << 20, 4 << 20, 1, 6<<20 - 1001, len(want)} {
		end := min(off+n, len(want))
		got, err := s.Append(ctx, "tus/large", bytes.NewReader(want[off:end]), limit)
		if err != nil || got != int64(end-off) {
			t.Fatalf("Append of %d bytes at %d = %d, %v", end-off, off, got, err)
		}
		off = end
		if size, err := s.Size(ctx, "tus/large"); err != nil || size != int64(off) {
			t.Fatalf("Size = %d, %v; want %d", size, err, off)
		}
	}
	if got := readBlob(t, s, "tus/large"); !bytes.Equal(got, want) {
		t.Errorf("read %d bytes that differ from the %d appended", len(got), len(want))
	}
	if n, err := s.Put(ctx, "1/0c/abcdefghijklmnopqrstuvwx/large", bytes.NewReader(want), limit); err != nil || n != limit {
		t.Fatalf("Put of %d bytes = %d, %v", limit, n, err)
	}
	if got := readBlob(t, s, "1/0c/abcdefghijklmnopqrstuvwx/large"); !bytes.Equal(got, want) {
		t.Errorf("read %d bytes that differ from the %d put", len(got), len(want))
	}
	if _, err := s.Put(ctx, "1/0c/abcdefghijklmnopqrstuvwx/large2", bytes.NewReader(want), limit-1); !errors.Is(err, storage.ErrBlobTooLarge) {
		t.Errorf("Put of a large blob over its limit: %v, want ErrBlobTooLarge", err)
	}
	if _, err := s.Size(ctx, "1/0c/abcdefghijklmnopqrstuvwx/large2"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Size after a failed large Put: %v, want ErrNotFound", err)
	}
}

// testBlobAppendAfterOpen appends to blobs that were read, small and
// larger than a part.
func testBlobAppendAfterOpen(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	for _, size := range []int{10, 6 << 20} {
		key := fmt.Sprintf("tus/reopened-%d", size)
		want := patterned(uint64(size), size+10)
		if _, err := s.Append(ctx, key, bytes.NewReader(want[:size]), int64(len(want))); err != nil {
			t.Fatal(err)
		}
		if got := readBlob(t, s, key); !bytes.Equal(got, want[:size]) {
			t.Fatalf("size %d: read %d bytes, not the %d appended", size, len(got), size)
		}
		if n, err := s.Append(ctx, key, bytes.NewReader(want[size:]), int64(len(want))); err != nil || n != 10 {
			t.Fatalf("size %d: Append after Open = %d, %v", size, n, err)
		}
		if got := readBlob(t, s, key); !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes that differ from the %d appended", size, len(got), len(want))
		}
	}
}

func testBlobSeek(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	key := "1/0d/abcdefghijklmnopqrstuvwx/digits"
	if _, err := s.Put(ctx, key, strings.NewReader("0123456789"), 10); err != nil {
		t.Fatal(err)
	}
	b, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	read := func(n int) string {
		buf := make([]byte, n)
		k, err := io.ReadFull(b, buf)
		if err != nil && err != io.ErrUnexpectedEOF {
			t.Fatalf("read: %v", err)
		}
		return string(buf[:k])
	}
	steps := []struct {
		offset int64
		whence int
		n      int
		want   string
	}{
		{0, io.SeekEnd, 0, ""},
		{0, io.SeekStart, 3, "012"},
		{2, io.SeekCurrent, 2, "56"},
		{-3, io.SeekEnd, 5, "789"},
		{4, io.SeekStart, 1, "4"},
	}
	for _, st := range steps {
		if _, err := b.Seek(st.offset, st.whence); err != nil {
			t.Fatalf("Seek(%d, %d): %v", st.offset, st.whence, err)
		}
		if got := read(st.n); got != st.want {
			t.Errorf("after Seek(%d, %d) read %q, want %q", st.offset, st.whence, got, st.want)
		}
	}
}

func testBlobBadKeys(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	for _, key := range []string{"", "../outside", "1/../../outside", "/etc/passwd", "1//x", "1/./x", "1/x/", `1\..\..\x`, "..", ".", ".append/x"} {
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
}

// testBlobList lists finished keys by prefix, sorted.
func testBlobList(t *testing.T, s storage.BlobStore) {
	lister := s.(storage.BlobLister)
	ctx := context.Background()
	for _, k := range []string{"tus/b", "tus/a", "1/ab/x/file.txt", "tusk"} {
		if _, err := s.Put(ctx, k, strings.NewReader("x"), 10); err != nil {
			t.Fatal(err)
		}
	}
	got, err := lister.List(ctx, "tus/")
	if err != nil || !slices.Equal(got, []string{"tus/a", "tus/b"}) {
		t.Errorf("List(tus/) = %v, %v", got, err)
	}
	got, err = lister.List(ctx, "")
	if err != nil || !slices.Equal(got, []string{"1/ab/x/file.txt", "tus/a", "tus/b", "tusk"}) {
		t.Errorf("List() = %v, %v", got, err)
	}
	if got, err := lister.List(ctx, "nothing/"); err != nil || len(got) != 0 {
		t.Errorf("List(nothing/) = %v, %v", got, err)
	}
}

// testBlobConcurrent writes distinct keys side by side.
func testBlobConcurrent(t *testing.T, s storage.BlobStore) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := fmt.Sprintf("tus/concurrent-%d", i)
			for j := range 5 {
				if _, err := s.Append(ctx, key, strings.NewReader(fmt.Sprint(j)), 5); err != nil {
					t.Errorf("Append to %s: %v", key, err)
					return
				}
			}
			if _, err := s.Put(ctx, fmt.Sprintf("1/0e/abcdefghijklmnopqrstuvwx/c%d", i), strings.NewReader("x"), 1); err != nil {
				t.Errorf("Put: %v", err)
			}
		})
	}
	wg.Wait()
	for i := range 8 {
		if got := readBlob(t, s, fmt.Sprintf("tus/concurrent-%d", i)); string(got) != "01234" {
			t.Errorf("concurrent-%d read %q, want 01234", i, got)
		}
	}
}
