package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeLimits checks the limits chatd's HTTP server sets on what no
// handler sees: oversized headers get 431, and the timeouts leave room
// for long-polls.
func TestServeLimits(t *testing.T) {
	if writeTimeout <= 55*time.Second {
		t.Errorf("writeTimeout %v would cut long-polls of up to 55 s short", writeTimeout)
	}
	s := startServe(t, "--data", t.TempDir(), "--listen", "127.0.0.1:0")
	addr := s.addr(t)
	for _, tc := range []struct {
		size   int
		status int
	}{
		{maxHeaderBytes / 2, http.StatusUnauthorized},
		{2 * maxHeaderBytes, http.StatusRequestHeaderFieldsTooLarge},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/users/me", nil)
		req.Header.Set("X-Padding", strings.Repeat("x", tc.size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%d bytes of headers: %v", tc.size, err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("%d bytes of headers: status %d, want %d", tc.size, res.StatusCode, tc.status)
		}
	}
}
