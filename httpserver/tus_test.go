package httpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat/httpserver"
)

// tusRequest builds a tus request to /api/v1/tus/{id} with the protocol
// version header and the given headers.
func (e *uploadEnv) tusRequest(method, id string, as *account, body io.Reader, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(method, "http://"+host+httpserver.Prefix+"/tus/"+id, body)
	r.Header.Set("Tus-Resumable", "1.0.0")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			r.Header.Del(header[i])
		} else {
			r.Header.Set(header[i], header[i+1])
		}
	}
	if as != nil {
		r.SetBasicAuth(as.email, as.key)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

func metadata(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

// tusCreate creates an upload and returns its ID.
func (e *uploadEnv) tusCreate(as *account, length int, name string) string {
	e.t.Helper()
	w := e.tusRequest(http.MethodPost, "", as, nil, "Upload-Length", fmt.Sprint(length),
		"Upload-Metadata", metadata("filename", name, "filetype", "text/plain"))
	loc := w.Header().Get("Location")
	if w.Code != http.StatusCreated || !strings.HasPrefix(loc, "/api/v1/tus/") || w.Header().Get("Tus-Resumable") != "1.0.0" {
		e.t.Fatalf("create: %d %v %s", w.Code, w.Header(), w.Body.String())
	}
	return strings.TrimPrefix(loc, "/api/v1/tus/")
}

func (e *uploadEnv) tusPatch(as *account, id string, offset int, body io.Reader) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.tusRequest(http.MethodPatch, id, as, body, "Upload-Offset", fmt.Sprint(offset),
		"Content-Type", "application/offset+octet-stream")
}

func (e *uploadEnv) tusOffset(as *account, id string) string {
	e.t.Helper()
	w := e.tusRequest(http.MethodHead, id, as, nil)
	if w.Code != http.StatusOK {
		e.t.Fatalf("HEAD: %d", w.Code)
	}
	return w.Header().Get("Upload-Offset") + "/" + w.Header().Get("Upload-Length")
}

// failingReader gives its bytes, then fails like a dropped connection.
type failingReader struct{ r io.Reader }

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset by peer")
	}
	return n, err
}

func TestTusInterruptedAndResumed(t *testing.T) {
	e := newUploadEnv(t, 100)
	data := randomBytes(3<<20 + 17)
	id := e.tusCreate(&e.member, len(data), "big report.txt")
	if got := e.tusOffset(&e.member, id); got != fmt.Sprintf("0/%d", len(data)) {
		t.Errorf("offset after create %s", got)
	}
	// The connection drops after 1 MiB + 5 bytes: they are kept.
	cut := 1<<20 + 5
	w := e.tusPatch(&e.member, id, 0, &failingReader{bytes.NewReader(data[:cut])})
	if w.Code != http.StatusBadRequest {
		t.Errorf("interrupted PATCH: %d %s", w.Code, w.Body.String())
	}
	if got := e.tusOffset(&e.member, id); got != fmt.Sprintf("%d/%d", cut, len(data)) {
		t.Fatalf("offset after the interruption %s, want %d", got, cut)
	}
	// Not downloadable yet: no attachment exists.
	if files := len(e.blobFiles()); files != 2 {
		t.Errorf("%d files, want the partial data and the upload state", files)
	}
	// Resuming at a wrong offset is refused.
	w = e.tusPatch(&e.member, id, cut-1, bytes.NewReader(data[cut-1:]))
	if w.Code != http.StatusConflict {
		t.Errorf("PATCH at a stale offset: %d %s", w.Code, w.Body.String())
	}
	// The rest, in two requests.
	mid := 2 << 20
	w = e.tusPatch(&e.member, id, cut, bytes.NewReader(data[cut:mid]))
	if w.Code != http.StatusNoContent || w.Header().Get("Upload-Offset") != fmt.Sprint(mid) {
		t.Errorf("PATCH: %d %v", w.Code, w.Header())
	}
	w = e.tusPatch(&e.member, id, mid, bytes.NewReader(data[mid:]))
	var body map[string]any
	json.Unmarshal(w.Body.Bytes(), &body)
	url, _ := body["url"].(string)
	if w.Code != http.StatusOK || w.Header().Get("Upload-Offset") != fmt.Sprint(len(data)) || !uploadURL.MatchString(url) {
		t.Fatalf("last PATCH: %d %v %s", w.Code, w.Header(), w.Body.String())
	}
	// The same JSON as POST /user_uploads; the stored name in strict ASCII.
	if d := cmp.Diff(success("uri", url, "url", url, "filename", "big report.txt"), body); d != "" {
		t.Errorf("final answer (-want +got):\n%s", d)
	}
	if got := uploadURL.FindStringSubmatch(url)[1]; got != "big-report.txt" {
		t.Errorf("stored name %q", got)
	}
	dl := e.fetch(url, &e.member)
	if dl.Code != http.StatusOK || !bytes.Equal(dl.Body.Bytes(), data) || dl.Header().Get("Content-Type") != "text/plain" {
		t.Errorf("download: %d, %d bytes, equal %v, type %q", dl.Code, dl.Body.Len(), bytes.Equal(dl.Body.Bytes(), data),
			dl.Header().Get("Content-Type"))
	}
	e.expectNotFound(e.fetch(url, &e.admin), "another user")
	// A client that lost the last answer finds the upload complete, and
	// the answer again.
	if got := e.tusOffset(&e.member, id); got != fmt.Sprintf("%d/%d", len(data), len(data)) {
		t.Errorf("offset after completion %s", got)
	}
	w = e.tusPatch(&e.member, id, len(data), strings.NewReader(""))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), url) {
		t.Errorf("repeated last PATCH: %d %s", w.Code, w.Body.String())
	}
}

func TestTusProtocol(t *testing.T) {
	e := newUploadEnv(t, 1)
	// OPTIONS needs no credentials.
	w := e.tusRequest(http.MethodOptions, "", nil, nil)
	h := w.Header()
	if w.Code != http.StatusNoContent || h.Get("Tus-Version") != "1.0.0" || h.Get("Tus-Extension") != "creation,termination,expiration,concatenation" ||
		h.Get("Tus-Max-Size") != fmt.Sprint(1<<20) {
		t.Errorf("OPTIONS: %d %v", w.Code, h)
	}
	expectMessage := func(w *httptest.ResponseRecorder, status int, msg string) {
		t.Helper()
		want := fmt.Sprintf(`{"message":%q}`+"\n", msg)
		if w.Code != status || w.Body.String() != want {
			t.Errorf("%d %s, want %d %s", w.Code, w.Body.String(), status, want)
		}
	}
	expectMessage(e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", fmt.Sprint(1<<20+1)),
		http.StatusRequestEntityTooLarge, "File is larger than this server's configured maximum upload size (1 MiB).")
	expectMessage(e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Defer-Length", "1"),
		http.StatusLengthRequired, "SizeIsDeferred is not supported")
	expectMessage(e.tusRequest(http.MethodPost, "", &e.member, nil, "Tus-Resumable", "0.2.2", "Upload-Length", "1"),
		http.StatusPreconditionFailed, "Unsupported version")
	expectMessage(e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", "-1"),
		http.StatusBadRequest, "Invalid Upload-Length header")
	expectMessage(e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", "1", "Upload-Metadata", "filename !!"),
		http.StatusBadRequest, "Invalid Upload-Metadata header")
	// Credentials as everywhere in the API.
	w = e.tusRequest(http.MethodPost, "", nil, nil, "Upload-Length", "1")
	if w.Code != http.StatusUnauthorized {
		t.Errorf("anonymous create: %d", w.Code)
	}

	id := e.tusCreate(&e.member, 4, "")
	// Other users cannot see or write the upload.
	if w := e.tusRequest(http.MethodHead, id, &e.admin, nil); w.Code != http.StatusNotFound {
		t.Errorf("HEAD by another user: %d", w.Code)
	}
	expectMessage(e.tusPatch(&e.admin, id, 0, strings.NewReader("ab")), http.StatusNotFound, "Upload not found")
	expectMessage(e.tusPatch(&e.member, "0123456789abcdef0123456789abcdef", 0, strings.NewReader("ab")),
		http.StatusNotFound, "Upload not found")
	expectMessage(e.tusPatch(&e.member, "..%2F..%2Fx", 0, strings.NewReader("ab")), http.StatusNotFound, "Upload not found")
	expectMessage(e.tusRequest(http.MethodPatch, id, &e.member, strings.NewReader("ab"), "Upload-Offset", "0"),
		http.StatusUnsupportedMediaType, "Content-Type must be application/offset+octet-stream")
	// More than the declared length: what fits is kept.
	expectMessage(e.tusPatch(&e.member, id, 0, strings.NewReader("abcdef")), http.StatusRequestEntityTooLarge,
		"Upload is longer than its declared Upload-Length")
	if got := e.tusOffset(&e.member, id); got != "4/4" {
		t.Errorf("offset %s, want 4/4", got)
	}
	w = e.tusPatch(&e.member, id, 4, strings.NewReader(""))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"filename":"uploaded-file"`) {
		t.Errorf("upload without a name: %d %s", w.Code, w.Body.String())
	}

	// An empty upload is complete at creation.
	w = e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", "0", "Upload-Metadata", metadata("filename", "empty.txt"))
	var body map[string]any
	json.Unmarshal(w.Body.Bytes(), &body)
	url, _ := body["url"].(string)
	if w.Code != http.StatusCreated || !uploadURL.MatchString(url) {
		t.Fatalf("empty upload: %d %s", w.Code, w.Body.String())
	}
	if dl := e.fetch(url, &e.member); dl.Code != http.StatusOK || dl.Body.Len() != 0 {
		t.Errorf("empty download: %d %d bytes", dl.Code, dl.Body.Len())
	}
	w = e.tusRequest(http.MethodGet, id, &e.member, nil)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", w.Code)
	}
}

// cancelAtEOF gives its bytes and, at their end, cancels the request's
// context, as a client that hangs up right after its last byte does.
type cancelAtEOF struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c *cancelAtEOF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.cancel()
	}
	return n, err
}

// TestTusLastByteThenHangUp: the request that brings the last byte is
// cancelled as its body ends; the file is kept and finished all the same,
// and a resuming client learns its URL.
func TestTusLastByteThenHangUp(t *testing.T) {
	e := newUploadEnv(t, 100)
	data := randomBytes(4096)
	id := e.tusCreate(&e.member, len(data), "notes.txt")
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest(http.MethodPatch, "http://"+host+httpserver.Prefix+"/tus/"+id,
		&cancelAtEOF{bytes.NewReader(data), cancel}).WithContext(ctx)
	r.Header.Set("Tus-Resumable", "1.0.0")
	r.Header.Set("Upload-Offset", "0")
	r.Header.Set("Content-Type", "application/offset+octet-stream")
	r.SetBasicAuth(e.member.email, e.member.key)
	e.h.ServeHTTP(httptest.NewRecorder(), r)
	if got := e.tusOffset(&e.member, id); got != fmt.Sprintf("%d/%d", len(data), len(data)) {
		t.Fatalf("offset after the hang-up %s", got)
	}
	w := e.tusPatch(&e.member, id, len(data), strings.NewReader(""))
	var body map[string]any
	json.Unmarshal(w.Body.Bytes(), &body)
	url, _ := body["url"].(string)
	if w.Code != http.StatusOK || !uploadURL.MatchString(url) {
		t.Fatalf("PATCH after the hang-up: %d %s", w.Code, w.Body.String())
	}
	if dl := e.fetch(url, &e.member); dl.Code != http.StatusOK || !bytes.Equal(dl.Body.Bytes(), data) {
		t.Errorf("download: %d, %d bytes", dl.Code, dl.Body.Len())
	}
}

// TestTusHeadMetadataAndMethodOverride: HEAD echoes Upload-Metadata, and a
// POST naming PATCH in X-HTTP-Method-Override is a PATCH.
func TestTusHeadMetadataAndMethodOverride(t *testing.T) {
	e := newUploadEnv(t, 100)
	id := e.tusCreate(&e.member, 3, "a.txt")
	w := e.tusRequest(http.MethodHead, id, &e.member, nil)
	if got, want := w.Header().Get("Upload-Metadata"), metadata("filename", "a.txt", "filetype", "text/plain"); got != want {
		t.Errorf("Upload-Metadata on HEAD = %q, want %q", got, want)
	}
	w = e.tusRequest(http.MethodPost, id, &e.member, strings.NewReader("abc"), "X-HTTP-Method-Override", "PATCH",
		"Upload-Offset", "0", "Content-Type", "application/offset+octet-stream")
	if w.Code != http.StatusOK || w.Header().Get("Upload-Offset") != "3" {
		t.Errorf("overridden PATCH: %d %v %s", w.Code, w.Header(), w.Body.String())
	}
}

// TestTusBytesGone: an upload whose bytes are gone (removed by hand, or
// lost with a disk) answers 404, not 500.
func TestTusBytesGone(t *testing.T) {
	e := newUploadEnv(t, 100)
	id := e.tusCreate(&e.member, 10, "gone.txt")
	for _, f := range e.blobFiles() {
		if !strings.Contains(filepath.ToSlash(f), "/tus/") {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w := e.tusRequest(http.MethodHead, id, &e.member, nil); w.Code != http.StatusNotFound {
		t.Errorf("HEAD of an upload without bytes: %d", w.Code)
	}
	if w := e.tusPatch(&e.member, id, 0, strings.NewReader("x")); w.Code != http.StatusNotFound {
		t.Errorf("PATCH of an upload without bytes: %d %s", w.Code, w.Body.String())
	}
}

// TestTusConcatenation: parts uploaded as Upload-Concat: partial, in any
// order, become one file with Upload-Concat: final, as tus-js-client's
// parallelUploads does; incomplete parts and other users' are refused,
// and a part never becomes an attachment of its own.
func TestTusConcatenation(t *testing.T) {
	e := newUploadEnv(t, 100)
	part := func(as *account, body string) string {
		t.Helper()
		w := e.tusRequest(http.MethodPost, "", as, nil, "Upload-Length", fmt.Sprint(len(body)), "Upload-Concat", "partial")
		if w.Code != http.StatusCreated || w.Header().Get("Upload-Concat") != "partial" {
			t.Fatalf("create part: %d %v", w.Code, w.Header())
		}
		id := strings.TrimPrefix(w.Header().Get("Location"), "/api/v1/tus/")
		if w := e.tusPatch(as, id, 0, strings.NewReader(body)); w.Code != http.StatusNoContent {
			t.Fatalf("part PATCH: %d %s", w.Code, w.Body.String())
		}
		return id
	}
	b, a := part(&e.member, "world"), part(&e.member, "hello ")
	if h := e.tusRequest(http.MethodHead, a, &e.member, nil); h.Header().Get("Upload-Concat") != "partial" {
		t.Errorf("HEAD of a part: %v", h.Header())
	}
	other := part(&e.admin, "x")
	incomplete := e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", "9", "Upload-Concat", "partial")
	incompleteID := strings.TrimPrefix(incomplete.Header().Get("Location"), "/api/v1/tus/")
	final := func(ids ...string) *httptest.ResponseRecorder {
		urls := make([]string, len(ids))
		for i, id := range ids {
			urls[i] = "/api/v1/tus/" + id
		}
		return e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Concat", "final;"+strings.Join(urls, " "),
			"Upload-Metadata", metadata("filename", "joined.txt", "filetype", "text/plain"))
	}
	if w := final(a, other); w.Code != http.StatusNotFound {
		t.Errorf("another user's part: %d", w.Code)
	}
	if w := final(a, incompleteID); w.Code != http.StatusBadRequest {
		t.Errorf("an incomplete part: %d %s", w.Code, w.Body.String())
	}
	w := final(a, b)
	if w.Code != http.StatusCreated {
		t.Fatalf("final: %d %s", w.Code, w.Body.String())
	}
	var res struct{ URL string }
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || !strings.HasSuffix(res.URL, "/joined.txt") {
		t.Fatalf("final answer %s", w.Body.String())
	}
	dl := e.fetch(res.URL, &e.member)
	if dl.Code != http.StatusOK || dl.Body.String() != "hello world" {
		t.Errorf("download of the joined file: %d %q", dl.Code, dl.Body.String())
	}
	if h := e.tusRequest(http.MethodHead, a, &e.member, nil); h.Code != http.StatusNotFound {
		t.Errorf("a used part is still there: %d", h.Code)
	}
}
