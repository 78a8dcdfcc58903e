package httpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/internal/s3test"
	"github.com/teamchat/chat/storage/blobs3"
)

// TestUploadMemory streams a 200 MiB file through POST /user_uploads to
// the file-system blob store and samples the heap meanwhile: the upload
// must never hold the file in memory. The peak is logged (go test -v -run
// TestUploadMemory).
func TestUploadMemory(t *testing.T) {
	uploadMemory(t, newUploadEnv(t, 256))
}

// TestUploadMemoryS3 is TestUploadMemory on the S3 blob store of
// CHAT_TEST_S3_URL (scripts/with-s3.sh), which holds one 5 MiB part of a
// stream at a time.
func TestUploadMemoryS3(t *testing.T) {
	cfg, err := blobs3.ParseURL(s3test.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blobs3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	uploadMemory(t, newUploadEnvWith(t, 256, blobs, ""))
}

func uploadMemory(t *testing.T, e *uploadEnv) {
	const size = 200 << 20
	const maxHeap = 64 << 20

	// The body is generated while the handler reads it.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	sum := sha256.New()
	go func() {
		fw, err := mw.CreateFormFile("file", "big.bin")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		chunk := make([]byte, 64<<10)
		for i := range chunk {
			chunk[i] = byte(i * 7)
		}
		out := io.MultiWriter(fw, sum)
		for written := 0; written < size; written += len(chunk) {
			chunk[0]++ // not one repeated block
			if _, err := out.Write(chunk); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(mw.Close())
	}()
	r := httptest.NewRequest(http.MethodPost, "http://"+host+httpserver.Prefix+"/user_uploads", pr)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.SetBasicAuth(e.member.email, e.member.key)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var (
		peakHeap, peakSys uint64
		samples           int
		wg                sync.WaitGroup
	)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peakHeap, peakSys = max(peakHeap, ms.HeapInuse), max(peakSys, ms.Sys)
			samples++
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	elapsed := time.Since(start)
	close(done)
	wg.Wait()

	var res struct{ URL string }
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != http.StatusOK || err != nil {
		t.Fatalf("upload: %d %s", w.Code, w.Body.String())
	}
	t.Logf("200 MiB upload in %v: peak HeapInuse %.1f MiB (%.1f MiB before), peak Sys %.1f MiB, %d samples",
		elapsed.Round(time.Millisecond), mib(peakHeap), mib(before.HeapInuse), mib(peakSys), samples)
	if peakHeap > maxHeap {
		t.Errorf("peak HeapInuse %.1f MiB, want under %d MiB", mib(peakHeap), maxHeap>>20)
	}
	if samples < 3 {
		t.Errorf("only %d heap samples: the measurement saw nothing", samples)
	}

	// The stored bytes are the uploaded ones.
	f, err := e.blobs.Open(context.Background(), strings.TrimPrefix(res.URL, "/user_uploads/"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stored := sha256.New()
	n, err := io.Copy(stored, f)
	if err != nil || n != size || string(stored.Sum(nil)) != string(sum.Sum(nil)) {
		t.Errorf("stored %d bytes (%v), hash equal %v; want the %d bytes uploaded", n, err,
			string(stored.Sum(nil)) == string(sum.Sum(nil)), size)
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
