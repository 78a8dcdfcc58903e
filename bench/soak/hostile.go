package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/teamchat/chat/bench/internal/chatdproc"
)

// startHostile starts the hostile clients, which run until ctx ends; wg
// waits for them. They obey 429s (waiting the time the answer asks), as
// the attacks measured here are the ones the per-request limits do not
// stop by themselves: a raw flood of requests is a matter for the network
// in front of the server.
func (s *soak) startHostile(ctx context.Context, ps *phaseState, wg *sync.WaitGroup) {
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if s.c.hostile["queues"] {
		run(func() { s.hoardQueues(ctx, ps) })
	}
	if s.c.hostile["long"] {
		run(func() { s.sendLong(ctx, ps) })
	}
	if !s.c.hostile["transfers"] {
		s.c.trickles = 0
	}
	for i := range s.c.trickles {
		run(func() {
			if i%2 == 0 {
				s.trickleUpload(ctx, ps)
			} else {
				s.trickleDownload(ctx, ps)
			}
		})
	}
	s.rejectedLogins(ctx, ps, run)
}

// hostileCall is one hostile request: its outcome is counted under what,
// and a 429 is waited out.
func (s *soak) hostileCall(ctx context.Context, ps *phaseState, what string, as account, method, path string, form url.Values) {
	err := s.api.Call(as, method, path, form, nil)
	if err == nil {
		ps.count(what + " 200")
		return
	}
	if ctx.Err() != nil {
		return
	}
	ps.count(errorKind(what, err))
	var st *chatdproc.StatusError
	if errors.As(err, &st) && st.Status == http.StatusTooManyRequests {
		sleep(ctx, retryAfter(st))
	}
}

// hoardQueues registers event queues back to back, for every event type
// and the longest lifespan, and never reads them: past the per-user cap,
// each new queue drops the oldest.
func (s *soak) hoardQueues(ctx context.Context, ps *phaseState) {
	for ctx.Err() == nil {
		s.hostileCall(ctx, ps, "register", s.queues, http.MethodPost, "/register", url.Values{"queue_lifespan_secs": {"604800"}})
	}
}

// sendLong sends long messages back to back, alternately to the hostile
// channel and as a direct message to the queue hoarder, whose queues all
// receive both. Every word of them matches every linkifier.
func (s *soak) sendLong(ctx context.Context, ps *phaseState) {
	var b strings.Builder
	for i := 0; b.Len() < s.c.long-8; i++ {
		fmt.Fprintf(&b, "w%d ", i%1000)
	}
	content := b.String()
	channel, _ := json.Marshal(hostileName)
	direct, _ := json.Marshal([]int64{s.queues.ID})
	for i := 0; ctx.Err() == nil; i++ {
		form := url.Values{"type": {"stream"}, "to": {string(channel)}, "topic": {"long"}, "content": {content}}
		if i%2 == 1 {
			form = url.Values{"type": {"direct"}, "to": {string(direct)}, "content": {content}}
		}
		s.hostileCall(ctx, ps, "long message", s.long, http.MethodPost, "/messages", form)
	}
}

// rejectedLogins sends -login-rate logins a second that fail, over
// -login-workers connections: wrong passwords of the normal members and
// addresses that have no account, alternately.
func (s *soak) rejectedLogins(ctx context.Context, ps *phaseState, run func(func())) {
	if s.c.loginRate <= 0 || !s.c.hostile["logins"] {
		return
	}
	ticks := make(chan int)
	run(func() {
		defer close(ticks)
		t := time.NewTicker(time.Second / time.Duration(s.c.loginRate))
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			select {
			case ticks <- i:
			default:
				// Every connection is still waiting: the server is slower
				// than the rate, and this attempt is not made.
				ps.count("login skipped")
			}
		}
	})
	for range s.c.loginWorkers {
		run(func() {
			for i := range ticks {
				username := s.normals[i%len(s.normals)].as.Email
				if i%2 == 1 {
					username = fmt.Sprintf("nobody%d@example.com", i)
				}
				err := s.api.Call(account{}, http.MethodPost, "/fetch_api_key", url.Values{"username": {username}, "password": {"wrong password"}}, nil)
				switch {
				case err == nil:
					ps.count("login 200")
				case ctx.Err() == nil:
					ps.count(errorKind("login", err))
				}
			}
		})
	}
}

// dial opens a raw connection to the server, whose receive buffer, for the
// slow downloads, is as small as the kernel allows.
func (s *soak) dial(ctx context.Context, smallBuffer bool) (net.Conn, error) {
	d := net.Dialer{}
	if smallBuffer {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
			if err != nil {
				return err
			}
			return serr
		}
	}
	return d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", s.p.Port))
}

func (s *soak) basicAuth(as account) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(as.Email+":"+as.Key))
}

// trickleUpload keeps an upload open that sends a byte every -trickle-gap
// of a body it declares to be 1 MiB, again as soon as the server ends one.
func (s *soak) trickleUpload(ctx context.Context, ps *phaseState) {
	const boundary = "soak-boundary"
	for ctx.Err() == nil {
		conn, err := s.dial(ctx, false)
		if err != nil {
			if ctx.Err() == nil {
				ps.count("slow upload dial failed")
				sleep(ctx, s.c.trickleGap)
			}
			continue
		}
		head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.bin\"\r\n" +
			"Content-Type: application/octet-stream\r\n\r\n"
		fmt.Fprintf(conn, "POST /api/v1/user_uploads HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"+
			"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s",
			s.api.Host, s.basicAuth(s.transfers), boundary, 1<<20, head)
		// The server's answer, if it gives one before the body is done: a
		// 429 when the member has too many transfers open, or the cut.
		answered := make(chan string, 1)
		go func() {
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil {
				answered <- "closed"
				return
			}
			answered <- strings.TrimSpace(line)
		}()
		s.trickle(ctx, ps, conn, answered, "slow upload", func() error {
			_, err := conn.Write([]byte("x"))
			return err
		})
	}
}

// trickleDownload downloads the large file and reads a byte of it every
// -trickle-gap, which never opens the small receive window again: the
// server sees no progress. As the cut is not visible under the buffered
// bytes, the download starts again after 35 s, past the server's 30 s.
func (s *soak) trickleDownload(ctx context.Context, ps *phaseState) {
	for ctx.Err() == nil {
		conn, err := s.dial(ctx, true)
		if err != nil {
			if ctx.Err() == nil {
				ps.count("slow download dial failed")
				sleep(ctx, s.c.trickleGap)
			}
			continue
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n\r\n", s.file, s.api.Host, s.basicAuth(s.transfers))
		status := make([]byte, len("HTTP/1.1 200"))
		if _, err := ioReadFull(conn, status); err != nil {
			conn.Close()
			if ctx.Err() == nil {
				ps.count("slow download closed before its status")
				sleep(ctx, s.c.trickleGap)
			}
			continue
		}
		answered := make(chan string, 1)
		if code := string(status[len("HTTP/1.1 "):]); code != "200" {
			answered <- "HTTP/1.1 " + code
		}
		limit, stopLimit := context.WithTimeout(ctx, 35*time.Second)
		s.trickle(limit, ps, conn, answered, "slow download", func() error {
			_, err := conn.Read(make([]byte, 1))
			return err
		})
		if limit.Err() != nil && ctx.Err() == nil {
			ps.count("slow download restarted")
		}
		stopLimit()
	}
}

// trickle runs step every -trickle-gap on conn until ctx ends, step fails
// or the server answers, counts the outcome under what, and closes conn.
func (s *soak) trickle(ctx context.Context, ps *phaseState, conn net.Conn, answered <-chan string, what string, step func() error) {
	defer conn.Close()
	t := time.NewTicker(s.c.trickleGap)
	defer t.Stop()
	ps.count(what + " opened")
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-answered:
			if strings.Contains(a, " 429") {
				ps.count(what + " 429")
			} else {
				ps.count(what + " ended by the server")
			}
			sleep(ctx, s.c.trickleGap)
			return
		case <-t.C:
			if step() != nil {
				ps.count(what + " ended by the server")
				return
			}
		}
	}
}

// ioReadFull reads len(b) bytes within 10 s.
func ioReadFull(conn net.Conn, b []byte) (int, error) {
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer conn.SetReadDeadline(time.Time{})
	n := 0
	for n < len(b) {
		k, err := conn.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
