// Package s3test gives tests a place of their own in the S3-compatible
// bucket named by the CHAT_TEST_S3_URL environment variable
// (scripts/with-s3.sh starts a throwaway SeaweedFS server and sets it,
// with the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
//
// Without the variable, tests that need S3 skip, except in CI (CI=true),
// where its absence fails them: a CI run must never pass by skipping them.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/teamchat/chat/internal/pgtest"
)

// EnvURL is the environment variable that names the test bucket, as
// s3://bucket?endpoint=http://host:port.
const EnvURL = "CHAT_TEST_S3_URL"

// Required fails the test in CI and skips it elsewhere when the test
// bucket is not configured, and returns its URL otherwise.
func Required(t testing.TB) string {
	t.Helper()
	raw := os.Getenv(EnvURL)
	if raw != "" {
		return raw
	}
	if pgtest.InCI() {
		t.Fatalf("%s is not set: CI must run the S3 tests (run them under scripts/with-s3.sh)", EnvURL)
	}
	t.Skipf("%s is not set: skipping the S3 tests (run `scripts/with-s3.sh go test ./...` to include them)", EnvURL)
	return ""
}

// URL returns the test bucket's URL with a new random prefix below its
// own, so that every test has a directory of its own.
func URL(t testing.TB) string {
	t.Helper()
	u, err := url.Parse(Required(t))
	if err != nil {
		t.Fatalf("s3test: %s: %v", EnvURL, err)
	}
	var b [6]byte
	rand.Read(b[:])
	u.Path = "/" + path.Join(u.Path, "test-"+hex.EncodeToString(b[:]))
	return u.String()
}

// Objects lists, below the prefix of the bucket URL raw, every object
// (relative to the prefix, sorted) and counts the unfinished multipart
// uploads: what a store left behind.
func Objects(t testing.TB, raw string) (keys []string, uploads int) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, secure := u.Query().Get("endpoint"), true
	if rest, ok := strings.CutPrefix(endpoint, "http://"); ok {
		endpoint, secure = rest, false
	}
	c, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewEnvAWS(), Secure: secure, Region: u.Query().Get("region")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	prefix := strings.Trim(u.Path, "/") + "/"
	for o := range c.ListObjects(ctx, u.Host, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("s3test: listing: %v", o.Err)
		}
		keys = append(keys, strings.TrimPrefix(o.Key, prefix))
	}
	for up := range c.ListIncompleteUploads(ctx, u.Host, prefix, true) {
		if up.Err != nil {
			t.Fatalf("s3test: listing uploads: %v", up.Err)
		}
		uploads++
	}
	return keys, uploads
}
