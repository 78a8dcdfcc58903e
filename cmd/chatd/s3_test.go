package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/internal/s3test"
)

// TestTwoProcessesNoSharedDisk runs two chatd processes on one PostgreSQL
// database and one S3 bucket, each with a data directory of its own, as on
// two machines: a file uploaded through one is downloaded through the
// other (A redirects to presigned links, B streams), a resumable upload
// whose PATCHes alternate between them arrives whole, and the request
// budget of a user is shared rather than doubled.
func TestTwoProcessesNoSharedDisk(t *testing.T) {
	dsn := pgtest.Schema(t)
	bucket := s3test.URL(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building chatd: %v", err)
	}
	t.Setenv("CHATD_DSN", dsn)
	t.Setenv("CHATD_UPLOAD_URL_KEY", "one secret for every process")
	t.Setenv("CHATD_API_KEY_SECRET", "another secret for every process")
	const budget = 40 // requests a minute per user
	common := []string{"--store", "postgres", "--rate-limit", strconv.Itoa(budget)}
	a := startProcess(t, bin, append(common, "--data", filepath.Join(dir, "a"), "--blob", bucket)...)
	defer a.kill()
	m := regexp.MustCompile(`curl -sSu (\S+):(\S+) `).FindStringSubmatch(a.out)
	if m == nil {
		t.Fatalf("no credentials in the first-start output:\n%s", a.out)
	}
	owner, ownerKey := m[1], m[2]
	streamed, _ := url.Parse(bucket)
	q := streamed.Query()
	q.Set("link", "0")
	streamed.RawQuery = q.Encode()
	b := startProcess(t, bin, append(common, "--data", filepath.Join(dir, "b"), "--blob", streamed.String())...)
	defer b.kill()

	// A plain upload through A, two parts long, read through both.
	plain := randomBytes(6<<20 + 100)
	res := upload(t, a, owner, ownerKey, "plain.bin", plain)
	path := res["url"].(string)
	if got := download(t, b, owner, ownerKey, path, false); !bytes.Equal(got, plain) {
		t.Errorf("plain upload streamed through B: %d bytes that differ from the %d sent", len(got), len(plain))
	}
	if got := download(t, a, owner, ownerKey, path, true); !bytes.Equal(got, plain) {
		t.Errorf("plain upload linked by A: %d bytes that differ from the %d sent", len(got), len(plain))
	}

	// A resumable upload in four PATCHes, alternating between A and B.
	resumable := randomBytes(12<<20 + 7)
	location := tusCreate(t, a, owner, ownerKey, "resumable.bin", len(resumable))
	var final map[string]any
	chunk := 3 << 20
	for i, off := 0, 0; off < len(resumable); i, off = i+1, off+chunk {
		p := []*process{a, b}[i%2]
		end := min(off+chunk, len(resumable))
		final = tusPatch(t, p, owner, ownerKey, location, off, resumable[off:end])
	}
	if final == nil || final["url"] == nil {
		t.Fatalf("the last PATCH answered %v, want the file's URL", final)
	}
	if got := download(t, b, owner, ownerKey, final["url"].(string), false); !bytes.Equal(got, resumable) {
		t.Errorf("resumable upload through B: %d bytes that differ from the %d sent", len(got), len(resumable))
	}
	if got := download(t, a, owner, ownerKey, final["url"].(string), true); !bytes.Equal(got, resumable) {
		t.Errorf("resumable upload linked by A: %d bytes that differ from the %d sent", len(got), len(resumable))
	}

	// One budget for both processes: a new user's requests, alternating,
	// are refused once the budget is spent, not after twice as many.
	call(t, a, http.MethodPost, "/users", owner, ownerKey, url.Values{
		"email": {"limited@example.com"}, "password": {"long-enough-password"}, "full_name": {"Limited"}})
	key := call(t, b, http.MethodPost, "/fetch_api_key", "", "", url.Values{
		"username": {"limited@example.com"}, "password": {"long-enough-password"}})["api_key"].(string)
	const requests = 2 * budget
	accepted := 0
	for i := range requests {
		p := []*process{a, b}[i%2]
		req, _ := http.NewRequest(http.MethodGet, "http://"+p.addr+"/api/v1/users/me", nil)
		req.SetBasicAuth("limited@example.com", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			accepted++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("GET /users/me: %s", resp.Status)
		}
	}
	// The budget refills at budget/60 a second: a few more may pass while
	// the loop runs, never the budget of a second process.
	if accepted < budget-1 || accepted > budget+budget/4 {
		t.Errorf("%d of %d requests alternating between two processes accepted, want about the one budget of %d",
			accepted, requests, budget)
	}
}

func randomBytes(n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// upload sends a file with POST /user_uploads and returns the answer.
func upload(t *testing.T, p *process, email, key, name string, data []byte) map[string]any {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1/user_uploads", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth(email, key)
	return decodeOK(t, req)
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// download reads a file through p: streamed, or (linked) through the
// redirect to its presigned link, fetched without credentials as a
// browser would.
func download(t *testing.T, p *process, email, key, path string, linked bool) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+p.addr+path, nil)
	req.SetBasicAuth(email, key)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if linked {
		link := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusFound || link == "" {
			t.Fatalf("GET %s: %s, want a redirect to a link", path, resp.Status)
		}
		resp.Body.Close()
		if resp, err = http.Get(link); err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=`+filepath.Base(path) {
			t.Errorf("the link's Content-Disposition: %q", cd)
		}
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", resp.Request.URL, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tusCreate starts a resumable upload and returns its location.
func tusCreate(t *testing.T, p *process, email, key, name string, length int) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1/tus/", nil)
	req.SetBasicAuth(email, key)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Upload-Length", strconv.Itoa(length))
	req.Header.Set("Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte(name)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("tus creation: %s", resp.Status)
	}
	return resp.Header.Get("Location")
}

// tusPatch sends the bytes at offset; the last PATCH's answer is the
// upload's JSON, the others' nil.
func tusPatch(t *testing.T, p *process, email, key, location string, offset int, data []byte) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPatch, "http://"+p.addr+location, bytes.NewReader(data))
	req.SetBasicAuth(email, key)
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.Itoa(offset))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got, want := resp.Header.Get("Upload-Offset"), fmt.Sprint(offset+len(data)); got != want {
		t.Fatalf("PATCH at %d: %s, Upload-Offset %q, want %s", offset, resp.Status, got, want)
	}
	if resp.StatusCode == http.StatusNoContent {
		return nil
	}
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH at %d: %s, %v %v", offset, resp.Status, out, err)
	}
	return out
}
