package httpserver

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/teamchat/chat"
)

// Transfers (uploads, tus PATCHes, downloads) may be long, so they are
// bound by progress rather than by a total time: each read or write of
// their body must make progress within transferIdleTimeout, and each user
// (each address, for links without credentials) has at most
// maxTransfersPerUser in progress. A client that trickles a byte now and
// then, or opens many transfers, cannot hold the server's connections.

// transferIdleTimeout is the longest a transfer may make no progress.
var transferIdleTimeout = 30 * time.Second

// maxTransfersPerUser bounds the transfers in progress of one user.
const maxTransfersPerUser = 8

// errTooManyTransfers answers a transfer past the per-user bound.
var errTooManyTransfers = &chat.Error{Code: chat.CodeRateLimitHit,
	Msg: "Too many file transfers in progress; try again when one has finished."}

// idleReader sets the connection's read deadline before each read, so
// that a body that stops arriving fails after transferIdleTimeout however
// long it is.
type idleReader struct {
	r  io.Reader
	rc *http.ResponseController
}

func (i idleReader) Read(p []byte) (int, error) {
	// A connection without deadlines (a test recorder) reads as it is.
	_ = i.rc.SetReadDeadline(time.Now().Add(transferIdleTimeout))
	return i.r.Read(p)
}

// idleWriter sets the connection's write deadline before each write of a
// download, so that a client that stops reading is cut off.
type idleWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (i idleWriter) Write(p []byte) (int, error) {
	_ = i.rc.SetWriteDeadline(time.Now().Add(transferIdleTimeout))
	return i.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (i idleWriter) Unwrap() http.ResponseWriter { return i.ResponseWriter }

// transferSlots counts the transfers in progress by key.
type transferSlots struct {
	mu     sync.Mutex
	active map[string]int
}

// acquire takes a slot of key and returns its release, or false when key
// has maxTransfersPerUser in progress.
func (t *transferSlots) acquire(key string) (func(), bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.active == nil {
		t.active = map[string]int{}
	}
	if t.active[key] >= maxTransfersPerUser {
		return nil, false
	}
	t.active[key]++
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.active[key]--; t.active[key] == 0 {
			delete(t.active, key)
		}
	}, true
}
