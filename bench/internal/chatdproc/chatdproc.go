// Package chatdproc starts a chatd binary for the load programs of bench/,
// reads its memory from /proc, and calls its API over HTTP, so that each
// program measures a real server process the way a deployment runs it.
package chatdproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Account is the credentials a request is sent with; the zero Account
// sends none.
type Account struct {
	ID         int64
	Email, Key string
}

// Proc is a running chatd serve.
type Proc struct {
	// PID is the server's process ID, for Memory.
	PID int
	// Port is the loopback port it listens on.
	Port int
	// Owner is the owner of the organization its first start created (ID
	// unset: the start prints no ID).
	Owner Account
	// Log is the file its standard error goes to.
	Log string

	cmd     *exec.Cmd
	logFile *os.File
}

// Start starts chatd serve from the binary at path on a free loopback port,
// with dir as its data directory and extra after the listening flags (such
// as "--rate-limit", "0", or "--store", "postgres", "--dsn", DSN), and
// waits until its first start has printed the owner's credentials. Its
// standard error goes to chatd.log in dir.
func Start(path, dir string, extra ...string) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--data", dir, "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, extra...)
	cmd := exec.Command(path, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "chatd.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &Proc{PID: cmd.Process.Pid, Port: port, Log: logFile.Name(), cmd: cmd, logFile: logFile}
	sc := bufio.NewScanner(stdout)
	for (p.Owner.Email == "" || p.Owner.Key == "") && sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "owner email:"); ok {
			p.Owner.Email = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "owner API key:"); ok {
			p.Owner.Key = strings.TrimSpace(v)
		}
	}
	// The rest of its output is not needed, but a full pipe would block it.
	go io.Copy(io.Discard, stdout)
	if p.Owner.Key == "" {
		p.Stop()
		return nil, fmt.Errorf("chatd printed no owner credentials (log: %s)", p.Log)
	}
	return p, nil
}

// Stop ends the server with SIGTERM, as an operator would, and waits for
// it.
func (p *Proc) Stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	p.logFile.Close()
}

// Memory returns the resident set size of process pid and its peak
// (VmRSS and VmHWM of /proc/PID/status), in bytes.
func Memory(pid int) (now, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %q", name, value)
		}
		if name == "VmRSS" {
			now = kib * 1024
		} else {
			peak = kib * 1024
		}
	}
	return now, peak, nil
}

// MiB formats a number of bytes in MiB.
func MiB(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Client calls the API of one server.
type Client struct {
	// HTTP sends the requests.
	HTTP *http.Client
	// Base is the API's URL, as http://127.0.0.1:PORT/api/v1.
	Base string
	// Host is the Host header of every request: the organization's host,
	// which on loopback is localhost:PORT.
	Host string
}

// NewClient returns a Client of the server on port, keeping up to conns
// idle connections.
func NewClient(port, conns int) *Client {
	return &Client{
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}},
		Base: fmt.Sprintf("http://127.0.0.1:%d/api/v1", port),
		Host: fmt.Sprintf("localhost:%d", port),
	}
}

// StatusError is an answer other than 200.
type StatusError struct {
	Method, Path string
	Status       int
	Body         []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, bytes.TrimSpace(e.Body))
}

// Call sends one API request to path (under Base), as the account when it
// has a key, with form as the query of a GET and the URL-encoded body
// otherwise, and decodes the answer into out when out is not nil. An
// answer other than 200 is a *StatusError.
func (c *Client) Call(as Account, method, path string, form url.Values, out any) error {
	var req *http.Request
	var err error
	if method == http.MethodGet {
		req, err = http.NewRequest(method, c.Base+path+"?"+form.Encode(), nil)
	} else {
		req, err = http.NewRequest(method, c.Base+path, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if err != nil {
		return err
	}
	req.Host = c.Host
	if as.Key != "" {
		req.SetBasicAuth(as.Email, as.Key)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return &StatusError{Method: method, Path: path, Status: res.StatusCode, Body: body}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}
