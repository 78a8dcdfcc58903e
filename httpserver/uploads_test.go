package httpserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/blobfs"
	"github.com/teamchat/chat/storage/memory"
)

// uploadEnv is an env whose uploads go to a directory, with an upload limit
// of maxMiB and a clock that the test can move.
type uploadEnv struct {
	*env
	dir   string
	blobs chat.BlobStore
	now   *time.Time
}

func newUploadEnv(t *testing.T, maxMiB int) *uploadEnv {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "uploads")
	blobs, err := blobfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return newUploadEnvWith(t, maxMiB, blobs, dir)
}

// newUploadEnvWith is newUploadEnv with the uploads in blobs (whose
// directory, if it has one, is dir).
func newUploadEnvWith(t *testing.T, maxMiB int, blobs chat.BlobStore, dir string) *uploadEnv {
	t.Helper()
	now := joined
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.MaxUploadMiB = maxMiB
		c.Blobs = blobs
		c.Now = func() time.Time { return now }
	})
	return &uploadEnv{env: e, dir: dir, blobs: blobs, now: &now}
}

// part is one part of a multipart upload body: a file when filename is set
// (or file is true), a field otherwise.
type part struct {
	field, filename, contentType string
	file                         bool
	body                         []byte
}

func file(name string, body []byte) part {
	return part{field: "file", filename: name, file: true, body: body}
}

// uploadRequest builds POST /api/v1/user_uploads with the parts.
func (e *uploadEnv) uploadRequest(as *account, parts ...part) *http.Request {
	e.t.Helper()
	buf := &bytes.Buffer{}
	w := multipart.NewWriter(buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.file {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename="%s"`, p.field, p.filename))
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.field))
		}
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			e.t.Fatal(err)
		}
		pw.Write(p.body)
	}
	w.Close()
	r := httptest.NewRequest(http.MethodPost, "http://"+host+httpserver.Prefix+"/user_uploads", buf)
	r.Header.Set("Content-Type", w.FormDataContentType())
	if as != nil {
		r.SetBasicAuth(as.email, as.key)
	}
	return r
}

var uploadURL = regexp.MustCompile(`^/user_uploads/1/[0-9a-f]{2}/[A-Za-z0-9_-]{24}/([^/]+)$`)

// upload uploads one file and returns its URL, checking the whole answer.
func (e *uploadEnv) upload(as *account, name string, body []byte) string {
	e.t.Helper()
	res := e.do(e.uploadRequest(as, file(name, body)))
	url, _ := res.body["url"].(string)
	if !uploadURL.MatchString(url) {
		e.t.Fatalf("upload answered %d %s: url does not have the stored-path layout", res.status, res.raw)
	}
	e.expect(res, http.StatusOK, success("uri", url, "url", url, "filename", name))
	return url
}

// fetch GETs path (outside /api/v1) as the account and returns the raw
// answer.
func (e *uploadEnv) fetch(path string, as *account, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://"+host+path, nil)
	if as != nil {
		r.SetBasicAuth(as.email, as.key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// expectNotFound checks the reference server's 404 page.
func (e *uploadEnv) expectNotFound(w *httptest.ResponseRecorder, what string) {
	e.t.Helper()
	if w.Code != http.StatusNotFound || w.Body.String() != "<p>This file does not exist or has been deleted.</p>" ||
		w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		e.t.Errorf("%s: %d %q (%s), want the 404 page", what, w.Code, w.Body.String(), w.Header().Get("Content-Type"))
	}
}

// blobFiles lists the files under the upload directory.
func (e *uploadEnv) blobFiles() []string {
	e.t.Helper()
	var out []string
	filepath.WalkDir(e.dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func TestUploadSizes(t *testing.T) {
	e := newUploadEnv(t, 1)
	for _, size := range []int{0, 1, 1 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			data := randomBytes(size)
			url := e.upload(&e.member, "data.bin", data)
			w := e.fetch(url, &e.member)
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), data) {
				t.Errorf("download: %d, %d bytes; want 200 and the %d bytes uploaded", w.Code, w.Body.Len(), size)
			}
			if got := w.Header().Get("Content-Length"); got != fmt.Sprint(size) {
				t.Errorf("Content-Length %q, want %d", got, size)
			}
		})
	}
	t.Run("over the limit", func(t *testing.T) {
		before := len(e.blobFiles())
		res := e.do(e.uploadRequest(&e.member, file("big.bin", randomBytes(1<<20+1))))
		e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest,
			"File is larger than this server's configured maximum upload size (1 MiB).")
		if after := len(e.blobFiles()); after != before {
			t.Errorf("a refused upload left files: %d before, %d after", before, after)
		}
	})
}

func TestUploadAnswer(t *testing.T) {
	e := newUploadEnv(t, 100)
	// The query string and the other fields are reported as ignored; the
	// file's field name and content type are free.
	r := e.uploadRequest(&e.member,
		part{field: "note", body: []byte("hi")},
		part{field: "anything", filename: "my%20report (final).PDF", file: true, contentType: "application/pdf", body: []byte("%PDF")},
		part{field: "zeta", body: []byte("z")})
	r.URL.RawQuery = "alpha=1"
	res := e.do(r)
	url, _ := res.body["url"].(string)
	m := uploadURL.FindStringSubmatch(url)
	if m == nil || m[1] != "my-report-final.PDF" {
		t.Fatalf("url %q: want the layout and the sanitised name my-report-final.PDF", url)
	}
	e.expect(res, http.StatusOK, success("uri", url, "url", url, "filename", "my report (final).PDF",
		"ignored_parameters_unsupported", []any{"alpha", "note", "zeta"}))
	w := e.fetch(url, &e.member)
	if w.Body.String() != "%PDF" || w.Header().Get("Content-Type") != "application/pdf" ||
		w.Header().Get("Content-Disposition") != `inline; filename="my report (final).PDF"` ||
		w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("download: %q, headers %v", w.Body.String(), w.Header())
	}
	// The type is guessed from the name when the part has none; pages are
	// downloads, never shown in place.
	url = e.upload(&e.member, "page.html", []byte("<script>alert(1)</script>"))
	w = e.fetch(url, &e.member)
	if ct, cd := w.Header().Get("Content-Type"), w.Header().Get("Content-Disposition"); ct != "text/html; charset=utf-8" ||
		cd != `attachment; filename=page.html` {
		t.Errorf("HTML upload served as %q, %q", ct, cd)
	}
	url = e.upload(&e.member, "noext", []byte("x"))
	if ct := e.fetch(url, &e.member).Header().Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("unknown type served as %q", ct)
	}
	// Unicode names keep their letters in the stored path.
	url = e.upload(&e.member, "Ｒésumé\u3000№1.txt", []byte("x"))
	if got := uploadURL.FindStringSubmatch(url)[1]; got != "Résumé-No1.txt" {
		t.Errorf("stored name %q, want Résumé-No1.txt", got)
	}
	// The forced-download form.
	w = e.fetch(strings.Replace(url, "/user_uploads/", "/user_uploads/download/", 1), &e.member)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Disposition"), "attachment;") {
		t.Errorf("download form: %d %v", w.Code, w.Header())
	}
}

func TestUploadErrors(t *testing.T) {
	e := newUploadEnv(t, 100)
	e.expectError(e.do(e.uploadRequest(&e.member)), http.StatusBadRequest, chat.CodeBadRequest,
		"You must specify a file to upload")
	e.expectError(e.do(e.uploadRequest(&e.member, part{field: "f", body: []byte("not a file")})),
		http.StatusBadRequest, chat.CodeBadRequest, "You must specify a file to upload")
	e.expectError(e.call(http.MethodPost, "/user_uploads", &e.member, form("a", "b")),
		http.StatusBadRequest, chat.CodeBadRequest, "You must specify a file to upload")
	empty := e.uploadRequest(&e.member)
	empty.Body = io.NopCloser(strings.NewReader(""))
	e.expectError(e.do(empty), http.StatusBadRequest, chat.CodeBadRequest, "You must specify a file to upload")
	e.expectError(e.do(e.uploadRequest(&e.member, file("a.txt", []byte("a")), file("b.txt", []byte("b")))),
		http.StatusBadRequest, chat.CodeBadRequest, "You may only upload one file at a time")
	if files := e.blobFiles(); len(files) != 0 {
		t.Errorf("refused uploads left files: %v", files)
	}
	e.expectError(e.do(e.uploadRequest(nil, file("a.txt", []byte("a")))), http.StatusUnauthorized,
		chat.CodeUnauthorized, "Not logged in: API authentication or user session required")
	res := e.call(http.MethodGet, "/user_uploads", &e.member, nil)
	e.expect(res, http.StatusMethodNotAllowed, map[string]any{"result": "error", "msg": "Method Not Allowed",
		"allowed_methods": []any{"POST"}})
	// A body cut short is the client's fault.
	r := e.uploadRequest(&e.member, file("a.txt", bytes.Repeat([]byte("a"), 1000)))
	cut, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(cut[:len(cut)-50]))
	e.expectError(e.do(r), http.StatusBadRequest, chat.CodeBadRequest, "Could not read the request body")
	if files := e.blobFiles(); len(files) != 0 {
		t.Errorf("a cut upload left files: %v", files)
	}
}

func TestDownloadAccess(t *testing.T) {
	e := newUploadEnv(t, 100)
	data := []byte("secret plans")
	url := e.upload(&e.member, "plans.txt", data)
	if w := e.fetch(url, &e.member); w.Code != http.StatusOK || w.Body.String() != string(data) {
		t.Errorf("uploader: %d %q", w.Code, w.Body.String())
	}
	// Nobody else, admins included, until a message links the file (and
	// messages decide who may read them).
	for _, who := range []*account{&e.owner, &e.admin, &e.moderator, &e.guest, &e.bot} {
		e.expectNotFound(e.fetch(url, who), who.email)
		e.expectNotFound(e.fetch(strings.Replace(url, "/user_uploads/", "/user_uploads/download/", 1), who), who.email)
		e.expectError(e.call(http.MethodGet, url, who, nil), http.StatusNotFound, chat.CodeNotFound,
			"This file does not exist or has been deleted.")
	}
	// Unknown files, bad paths, traversal.
	for _, path := range []string{
		url + "x", strings.Replace(url, "/1/", "/2/", 1), "/user_uploads/1/x", "/user_uploads/abc/x",
		"/user_uploads/1/..%2F..%2F..%2Fetc%2Fpasswd", "/user_uploads/0/" + strings.TrimPrefix(url, "/user_uploads/1/"),
	} {
		e.expectNotFound(e.fetch(path, &e.member), path)
	}
	// Credentials are needed.
	w := e.fetch(url, nil)
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") == "" {
		t.Errorf("anonymous download: %d %v", w.Code, w.Header())
	}
	// HEAD, and other methods.
	r := httptest.NewRequest(http.MethodHead, "http://"+host+url, nil)
	r.SetBasicAuth(e.member.email, e.member.key)
	w = httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Header().Get("Content-Length") != fmt.Sprint(len(data)) || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	r = httptest.NewRequest(http.MethodDelete, "http://"+host+url, nil)
	r.SetBasicAuth(e.member.email, e.member.key)
	res := e.do(r)
	e.expect(res, http.StatusMethodNotAllowed, map[string]any{"result": "error", "msg": "Method Not Allowed",
		"allowed_methods": []any{"GET", "HEAD"}})
	// Ranges.
	w = e.fetch(url, &e.member, "Range", "bytes=7-")
	if w.Code != http.StatusPartialContent || w.Body.String() != "plans" {
		t.Errorf("range: %d %q", w.Code, w.Body.String())
	}
}

func TestDownloadOtherRealm(t *testing.T) {
	e := newUploadEnv(t, 100)
	url := e.upload(&e.member, "a.txt", []byte("a"))
	org, err := e.svc.CreateOrg(context.Background(), chat.NewOrg{
		Name: "Other", Host: "other.example.com", URL: "http://other.example.com",
		OwnerEmail: "boss@other.example.com", OwnerName: "Other Boss", OwnerPassword: "boss-password",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{url, strings.Replace(url, "/user_uploads/1/", "/user_uploads/2/", 1)} {
		r := httptest.NewRequest(http.MethodGet, "http://other.example.com"+path, nil)
		r.SetBasicAuth(org.Email, org.APIKey)
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		e.expectNotFound(w, "other organization: "+path)
	}
}

func TestTemporaryURL(t *testing.T) {
	e := newUploadEnv(t, 100)
	data := []byte("temporary bytes")
	url := e.upload(&e.member, "notes.txt", data)
	res := e.call(http.MethodGet, url, &e.member, nil)
	temp, _ := res.body["url"].(string)
	tempURL := regexp.MustCompile(`^/user_uploads/temporary/[0-9A-F]+/notes\.txt$`)
	if !tempURL.MatchString(temp) {
		t.Fatalf("temporary URL %q (answer %s)", temp, res.raw)
	}
	e.expect(res, http.StatusOK, success("url", temp))
	// No credentials needed.
	if w := e.fetch(temp, nil); w.Code != http.StatusOK || w.Body.String() != string(data) {
		t.Errorf("temporary download: %d %q", w.Code, w.Body.String())
	}
	base := strings.TrimSuffix(temp, "/notes.txt")
	expectJSON := func(w *httptest.ResponseRecorder, msg string) {
		t.Helper()
		want := `{"result":"error","msg":"` + msg + `","code":"BAD_REQUEST"}` + "\n"
		if w.Code != http.StatusBadRequest || w.Body.String() != want {
			t.Errorf("%d %s, want 400 %s", w.Code, w.Body.String(), want)
		}
	}
	expectJSON(e.fetch(base+"/other.txt", nil), "Invalid filename")
	token := strings.TrimPrefix(base, "/user_uploads/temporary/")
	forged := token[:len(token)-1] + map[bool]string{true: "0", false: "1"}[token[len(token)-1] != '0']
	expectJSON(e.fetch("/user_uploads/temporary/"+forged+"/notes.txt", nil), "Invalid token")
	expectJSON(e.fetch("/user_uploads/temporary/"+strings.ToLower(token)+"/notes.txt", nil), "Invalid token")
	expectJSON(e.fetch("/user_uploads/temporary/XYZ/notes.txt", nil), "Invalid token")
	// Valid for 60 seconds.
	*e.now = e.now.Add(59 * time.Second)
	if w := e.fetch(temp, nil); w.Code != http.StatusOK {
		t.Errorf("after 59 s: %d", w.Code)
	}
	*e.now = e.now.Add(time.Second)
	expectJSON(e.fetch(temp, nil), "Invalid token")
	// Only for those who may read the file.
	res = e.call(http.MethodGet, url, &e.admin, nil)
	if res.status != http.StatusNotFound {
		t.Errorf("temporary URL for another user: %d %s", res.status, res.raw)
	}
}

func TestUploadEvent(t *testing.T) {
	sink := &recordingSink{}
	e := newEnvWith(t, memory.New(), func(c *chat.Config) { c.Events = sink })
	ue := &uploadEnv{env: e}
	sink.events = nil // the accounts' realm_user add events
	url := ue.upload(&e.member, "a b.txt", []byte("12345"))
	if len(sink.events) != 1 {
		t.Fatalf("events %v, want one", sink.events)
	}
	ev := sink.events[0]
	want := chat.Event{RealmID: 1, UserIDs: []int64{e.member.id}, Payload: map[string]any{
		"type": "attachment", "op": "add", "upload_space_used": int64(5),
		"attachment": map[string]any{
			"id": int64(1), "name": "a b.txt", "path_id": strings.TrimPrefix(url, "/user_uploads/"),
			"size": int64(5), "create_time": joined.UnixMilli(), "messages": []any{},
		},
	}}
	if d := cmp.Diff(want, ev); d != "" {
		t.Errorf("event (-want +got):\n%s", d)
	}
}

// recordingSink keeps the published events.
type recordingSink struct{ events []chat.Event }

func (s *recordingSink) Publish(_ context.Context, events []chat.Event) {
	s.events = append(s.events, events...)
}

func TestUploadRoutesAreRateLimited(t *testing.T) {
	e := newUploadEnv(t, 100)
	e.h = validated(t, httpserver.New(e.svc, httpserver.Options{RateLimits: httpserver.RateLimits{PerUser: 2}}))
	url := e.upload(&e.member, "a.txt", []byte("a"))
	if w := e.fetch(url, &e.member); w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("download: %d %v", w.Code, w.Header())
	}
	res := e.do(e.uploadRequest(&e.member, file("b.txt", []byte("b"))))
	if res.status != http.StatusTooManyRequests || res.body["code"] != "RATE_LIMIT_HIT" {
		t.Errorf("third request: %d %s", res.status, res.raw)
	}
	if w := e.tusRequest(http.MethodPost, "", &e.member, nil, "Upload-Length", "1"); w.Code != http.StatusTooManyRequests {
		t.Errorf("tus over the limit: %d", w.Code)
	}
}

// TestDownloadThroughMessages: a file linked in a message is readable by
// whoever can read the message, and by nobody else.
func TestDownloadThroughMessages(t *testing.T) {
	e := newUploadEnv(t, 100)
	ok := func(res response) {
		t.Helper()
		if res.status != http.StatusOK {
			t.Fatalf("%s", res.raw)
		}
	}
	ok(e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form(
		"subscriptions", `[{"name":"secret"}]`, "invite_only", "true",
		"principals", "["+itoa(e.member.id)+","+itoa(e.moderator.id)+"]")))
	private := e.upload(&e.member, "private.txt", []byte("for the channel"))
	direct := e.upload(&e.member, "direct.txt", []byte("for the guest"))
	unlinked := e.upload(&e.member, "unlinked.txt", []byte("nobody else"))
	ok(e.call(http.MethodPost, "/messages", &e.member, form(
		"type", "stream", "to", "secret", "topic", "files", "content", "[private.txt]("+private+")")))
	ok(e.call(http.MethodPost, "/messages", &e.member, form(
		"type", "direct", "to", "["+itoa(e.guest.id)+"]", "content", "[direct.txt]("+direct+")")))

	for _, c := range []struct {
		url     string
		as      *account
		allowed bool
	}{
		{private, &e.moderator, true},
		{private, &e.guest, false},
		{private, &e.owner, false}, // not subscribed to the private channel
		{direct, &e.guest, true},
		{direct, &e.moderator, false},
		{unlinked, &e.moderator, false},
		{unlinked, &e.member, true},
	} {
		w := e.fetch(c.url, c.as)
		if c.allowed && w.Code != http.StatusOK {
			t.Errorf("%s as %s: %d, want the file", c.url, c.as.email, w.Code)
		}
		if !c.allowed {
			e.expectNotFound(w, c.as.email+" "+c.url)
		}
	}
	// Someone else's upload linked in a message stays theirs alone.
	theirs := e.upload(&e.admin, "theirs.txt", []byte("admin's"))
	ok(e.call(http.MethodPost, "/messages", &e.member, form(
		"type", "stream", "to", "secret", "topic", "files", "content", "[theirs]("+theirs+")")))
	e.expectNotFound(e.fetch(theirs, &e.moderator), "linked by someone else")
}

// TestAttachmentRoutes checks the whole answers of GET /attachments and
// DELETE /attachments/{attachment_id}, and that a removed file is gone.
func TestAttachmentRoutes(t *testing.T) {
	e := newUploadEnv(t, 100)
	e.expect(e.call(http.MethodGet, "/attachments", &e.member, nil), 200,
		success("attachments", []any{}, "upload_space_used", float64(0)))
	url := e.upload(&e.member, "notes.txt", []byte("hello"))
	res := e.call(http.MethodGet, "/attachments", &e.member, nil)
	list, _ := res.body["attachments"].([]any)
	if len(list) != 1 {
		t.Fatalf("GET /attachments: %s", res.raw)
	}
	a := list[0].(map[string]any)
	e.expect(res, 200, success("upload_space_used", float64(5), "attachments", []any{map[string]any{
		"id": a["id"], "name": "notes.txt", "path_id": strings.TrimPrefix(url, "/user_uploads/"), "size": float64(5),
		"create_time": a["create_time"], "messages": []any{},
	}}))
	if ms, ok := a["create_time"].(float64); !ok || int64(ms)%1000 != 0 || ms <= 0 {
		t.Errorf("create_time %v: want whole seconds in milliseconds", a["create_time"])
	}
	id := itoa(int64(a["id"].(float64)))
	e.expectError(e.call(http.MethodDelete, "/attachments/"+id, &e.owner, nil), 400, chat.CodeBadRequest, "Invalid attachment")
	e.expectError(e.call(http.MethodDelete, "/attachments/abc", &e.member, nil), 400, chat.CodeBadRequest, "Invalid attachment")
	e.expect(e.call(http.MethodDelete, "/attachments/"+id, &e.member, nil), 200, success())
	e.expect(e.call(http.MethodGet, "/attachments", &e.member, nil), 200,
		success("attachments", []any{}, "upload_space_used", float64(0)))
	if w := e.fetch(url, &e.member); w.Code != http.StatusNotFound {
		t.Errorf("download of a removed file: %d", w.Code)
	}
}

// TestEditDetachesUploads: an edit that takes a file's link out of a
// message unlinks it; the answer lists it in detached_uploads once no
// message links it, and only its owner can read it then.
func TestEditDetachesUploads(t *testing.T) {
	e := newUploadEnv(t, 100)
	ok := func(res response) response {
		t.Helper()
		if res.status != http.StatusOK {
			t.Fatalf("%s", res.raw)
		}
		return res
	}
	ok(e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form(
		"subscriptions", `[{"name":"files"}]`, "principals", "["+itoa(e.member.id)+","+itoa(e.moderator.id)+"]")))
	url := e.upload(&e.member, "plan.txt", []byte("the plan"))
	kept := e.upload(&e.member, "kept.txt", []byte("stays"))
	sent := ok(e.call(http.MethodPost, "/messages", &e.member, form(
		"type", "stream", "to", "files", "topic", "t", "content", "[plan]("+url+") [kept]("+kept+")")))
	id := itoa(int64(sent.body["id"].(float64)))
	if w := e.fetch(url, &e.moderator); w.Code != http.StatusOK {
		t.Fatalf("before the edit, a subscriber reads the file: %d", w.Code)
	}
	res := ok(e.call(http.MethodPatch, "/messages/"+id, &e.member, form("content", "no plan, [kept]("+kept+")")))
	detached := res.body["detached_uploads"].([]any)
	if len(detached) != 1 {
		t.Fatalf("detached_uploads: %s", res.raw)
	}
	d := detached[0].(map[string]any)
	pathID := strings.TrimPrefix(url, "/user_uploads/")
	if d["name"] != "plan.txt" || d["path_id"] != pathID || d["size"] != float64(8) || len(d["messages"].([]any)) != 0 {
		t.Errorf("detached upload: %v", d)
	}
	e.expectNotFound(e.fetch(url, &e.moderator), "a detached file, by a subscriber")
	if w := e.fetch(url, &e.member); w.Code != http.StatusOK {
		t.Errorf("the owner reads a detached file: %d", w.Code)
	}
	if w := e.fetch(kept, &e.moderator); w.Code != http.StatusOK {
		t.Errorf("a file still linked: %d", w.Code)
	}
}
