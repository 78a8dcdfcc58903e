package blobs3_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat/internal/s3test"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/blobs3"
	"github.com/teamchat/chat/storage/storagetest"
)

func open(t *testing.T) *blobs3.Store {
	t.Helper()
	return openURL(t, s3test.URL(t))
}

func openURL(t testing.TB, raw string) *blobs3.Store {
	t.Helper()
	cfg, err := blobs3.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blobs3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConformance runs the BlobStore suite on a real S3 server.
func TestConformance(t *testing.T) {
	storagetest.RunBlobStore(t, func(t *testing.T) storage.BlobStore { return open(t) })
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		url  string
		want blobs3.Config
	}{
		{"s3://uploads", blobs3.Config{Bucket: "uploads", LinkTTL: time.Minute}},
		{"s3://uploads/chat/one/?region=eu-west-1&link=5m", blobs3.Config{Bucket: "uploads", Prefix: "chat/one", Region: "eu-west-1", LinkTTL: 5 * time.Minute}},
		{"s3://b?endpoint=http://127.0.0.1:8333&link=0", blobs3.Config{Bucket: "b", Endpoint: "127.0.0.1:8333", Insecure: true}},
		{"s3://b?endpoint=https://s3.example.com", blobs3.Config{Bucket: "b", Endpoint: "s3.example.com", LinkTTL: time.Minute}},
		{"s3://b?endpoint=minio:9000&insecure=true", blobs3.Config{Bucket: "b", Endpoint: "minio:9000", Insecure: true, LinkTTL: time.Minute}},
	}
	for _, c := range cases {
		got, err := blobs3.ParseURL(c.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.url, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("ParseURL(%q) (-want +got):\n%s", c.url, diff)
		}
	}
	for url, want := range map[string]string{
		"http://b":              "is not s3://bucket",
		"s3:///prefix":          "is not s3://bucket",
		"s3://key:secret@b":     "credentials belong in the environment",
		"s3://b?acl=public":     `unknown parameter "acl"`,
		"s3://b?insecure=maybe": "is not a boolean",
		"s3://b?link=forever":   "is not a duration",
		"s3://b?link=-1m":       "is not a duration",
		"s3://b?link=200h":      "is not a duration",
	} {
		if _, err := blobs3.ParseURL(url); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q) = %v, want an error with %q", url, err, want)
		}
	}
}

// TestLink fetches a blob through its presigned link, with the headers
// asked for, and checks that a forged link is refused.
func TestLink(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	key := "1/0a/abcdefghijklmnopqrstuvwx/hello.txt"
	if _, err := s.Put(ctx, key, strings.NewReader("hello"), 5); err != nil {
		t.Fatal(err)
	}
	b, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lb, ok := b.(storage.LinkedBlob)
	if !ok {
		t.Fatalf("Open returned a %T, not a storage.LinkedBlob", b)
	}
	h := storage.BlobHeader{ContentType: "text/plain", ContentDisposition: `inline; filename="hello.txt"`, CacheControl: "private, max-age=60"}
	link, err := lb.Link(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := []string{resp.Status, string(body), resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), resp.Header.Get("Cache-Control")}
	want := []string{"200 OK", "hello", h.ContentType, h.ContentDisposition, h.CacheControl}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET of the link (-want +got):\n%s", diff)
	}
	forged := strings.Replace(link, "hello.txt", "other.txt", 1)
	resp, err = http.Get(forged)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET of a forged link: %s, want 403 Forbidden", resp.Status)
	}
}

// TestStreamed checks that link=0 makes blobs without links.
func TestStreamed(t *testing.T) {
	ctx := context.Background()
	cfg, err := blobs3.ParseURL(s3test.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.LinkTTL = 0
	s, err := blobs3.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "tus/x", strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	b, err := s.Open(ctx, "tus/x")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, ok := b.(storage.LinkedBlob); ok {
		t.Errorf("a store with link=0 returned a LinkedBlob")
	}
}

// TestUnfinishedCleanedUp checks that finishing, deleting and replacing
// unfinished blobs leave none of their state, tails or parts behind.
func TestUnfinishedCleanedUp(t *testing.T) {
	ctx := context.Background()
	raw := s3test.URL(t)
	s := openURL(t, raw)
	big := strings.Repeat("x", 6<<20)
	for _, key := range []string{"tus/finished", "tus/deleted", "tus/replaced"} {
		if _, err := s.Append(ctx, key, strings.NewReader(big), int64(2*len(big))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, key, strings.NewReader("tail"), int64(2*len(big))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, "tus/finished", strings.NewReader(big[:len(big)-4]), int64(2*len(big))); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "tus/deleted"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "tus/replaced", strings.NewReader("new"), 3); err != nil {
		t.Fatal(err)
	}
	keys, uploads := s3test.Objects(t, raw)
	if diff := cmp.Diff([]string{"tus/finished", "tus/replaced"}, keys); diff != "" {
		t.Errorf("objects left (-want +got):\n%s", diff)
	}
	if uploads != 0 {
		t.Errorf("%d multipart uploads left", uploads)
	}
}
