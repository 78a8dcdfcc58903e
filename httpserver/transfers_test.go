package httpserver_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat/httpserver"
)

// TestStalledTusPatchReleasesUpload: a PATCH whose body stops arriving
// fails after the idle bound, and the upload is free for the next PATCH,
// which resumes where the stalled one stopped.
func TestStalledTusPatchReleasesUpload(t *testing.T) {
	defer httpserver.SetTransferIdleTimeout(200 * time.Millisecond)()
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	do := func(method, path string, body io.Reader, headers ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, body)
		req.SetBasicAuth(e.member.email, e.member.key)
		req.Header.Set("Tus-Resumable", "1.0.0")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	res := do(http.MethodPost, httpserver.Prefix+"/tus/", nil, "Upload-Length", "6",
		"Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte("stall.txt")))
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusCreated || loc == "" {
		t.Fatalf("create: %d", res.StatusCode)
	}
	// Three bytes, then nothing: the server gives up on the body.
	pr, pw := io.Pipe()
	go func() { pw.Write([]byte("abc")) }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest(http.MethodPatch, srv.URL+loc, pr)
		req.SetBasicAuth(e.member.email, e.member.key)
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("Upload-Offset", "0")
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		req.ContentLength = 6
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled PATCH was not cut off")
	}
	pw.Close()
	head := do(http.MethodHead, loc, nil)
	if head.StatusCode != http.StatusOK || head.Header.Get("Upload-Offset") != "3" {
		t.Fatalf("HEAD after the stall: %d, offset %q", head.StatusCode, head.Header.Get("Upload-Offset"))
	}
	res = do(http.MethodPatch, loc, strings.NewReader("def"), "Upload-Offset", "3", "Content-Type", "application/offset+octet-stream")
	if res.StatusCode != http.StatusOK {
		t.Errorf("resuming PATCH: %d", res.StatusCode)
	}
}
