package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/teamchat/chat/bench/internal/chatdproc"
)

// account is the credentials of a request.
type account = chatdproc.Account

// member is a normal client: its account, its channel and its event queue.
type member struct {
	as      account
	channel string
	queue   string
	last    int64
}

// soak is the state of one run.
type soak struct {
	c     config
	p     *chatdproc.Proc
	api   *chatdproc.Client
	owner account

	normals []*member
	// queues registers event queues, long sends long messages, transfers
	// keeps slow transfers open: the hostile members.
	queues, long, transfers account
	// file is the path (/user_uploads/...) of the file slow downloads fetch.
	file string

	// sent maps the nonce of each normal message to its sending.
	sent sync.Map // string -> sending
	// pollers holds the long-polls of the normal members.
	pollers sync.WaitGroup
	done    chan struct{}
	// current is the phase that the pollers' errors count against.
	currentMu sync.Mutex
	current   *phaseState
}

// sending is when a normal message was sent, and in which phase.
type sending struct {
	at    time.Time
	phase *phaseState
}

const (
	password      = "soak-bench-password"
	hostileName   = "soak hostile"
	normalsPrefix = "soak "
)

// setup creates the members, channels and linkifiers, registers the
// normal members' queues, uploads the file of the slow downloads, and
// starts the normal members' long-polls.
func setup(c config, p *chatdproc.Proc) (*soak, error) {
	s := &soak{c: c, p: p, owner: p.Owner, done: make(chan struct{})}
	// Enough idle connections for every long-poll and every other request
	// of the normal members to keep its own, as separate clients would.
	s.api = chatdproc.NewClient(p.Port, 2*c.normal+16)
	var me struct {
		UserID int64 `json:"user_id"`
	}
	if err := s.setupCall(s.owner, http.MethodGet, "/users/me", nil, &me); err != nil {
		return nil, err
	}
	s.owner.ID = me.UserID

	// Members, with passwords: the rejected logins try real accounts too.
	names := make([]string, c.normal+3)
	for i := range c.normal {
		names[i] = fmt.Sprintf("normal%03d@example.com", i)
	}
	copy(names[c.normal:], []string{"hostile-queues@example.com", "hostile-long@example.com", "hostile-transfers@example.com"})
	accounts := make([]account, len(names))
	err := parallel(4, len(names), func(i int) error {
		var res struct {
			UserID int64 `json:"user_id"`
		}
		if err := s.setupCall(s.owner, http.MethodPost, "/users", url.Values{"email": {names[i]}, "password": {password},
			"full_name": {fmt.Sprintf("Soak %d", i)}}, &res); err != nil {
			return err
		}
		var key struct {
			APIKey string `json:"api_key"`
		}
		if err := s.setupCall(account{}, http.MethodPost, "/fetch_api_key", url.Values{"username": {names[i]}, "password": {password}}, &key); err != nil {
			return err
		}
		accounts[i] = account{ID: res.UserID, Email: names[i], Key: key.APIKey}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range c.normal {
		s.normals = append(s.normals, &member{as: accounts[i], channel: fmt.Sprintf("%s%d", normalsPrefix, i%c.channels)})
	}
	s.queues, s.long, s.transfers = accounts[c.normal], accounts[c.normal+1], accounts[c.normal+2]

	// Channels: the normal members' own, and the one of the long messages.
	byChannel := map[string][]int64{hostileName: {s.queues.ID, s.long.ID}}
	for _, m := range s.normals {
		byChannel[m.channel] = append(byChannel[m.channel], m.as.ID)
	}
	for name, ids := range byChannel {
		subs, _ := json.Marshal([]map[string]string{{"name": name}})
		ps, _ := json.Marshal(ids)
		if err := s.setupCall(s.owner, http.MethodPost, "/users/me/subscriptions", url.Values{"subscriptions": {string(subs)}, "principals": {string(ps)}}, nil); err != nil {
			return nil, err
		}
	}

	// Linkifiers that each match every word of letters and digits, up to
	// chat.MaxLinkifiers: the first links every word of a long message,
	// and each of the others searches it all again. (They differ only by
	// their group's name, which keeps them distinct.)
	for i := range c.linkifiers {
		err := s.setupCall(s.owner, http.MethodPost, "/realm/filters", url.Values{
			"pattern": {fmt.Sprintf(`(?P<w%d>[a-z0-9]+)`, i)}, "url_template": {fmt.Sprintf("https://example.com/%d/{w%d}", i, i)}}, nil)
		if err != nil {
			return nil, err
		}
	}

	for _, m := range s.normals {
		var reg struct {
			QueueID     string `json:"queue_id"`
			LastEventID int64  `json:"last_event_id"`
		}
		if err := s.setupCall(m.as, http.MethodPost, "/register", url.Values{"event_types": {`["message"]`}, "fetch_event_types": {`[]`}}, &reg); err != nil {
			return nil, err
		}
		m.queue, m.last = reg.QueueID, reg.LastEventID
	}

	if s.file, err = s.upload(c.fileMiB << 20); err != nil {
		return nil, err
	}
	for _, m := range s.normals {
		s.pollers.Add(1)
		go s.poll(m)
	}
	return s, nil
}

// stop ends the long-polls.
func (s *soak) stop() {
	close(s.done)
	// A poll waits up to the server's heartbeat; closing the idle
	// connections does not end it, so the process's exit does.
}

// setupCall is Call, waiting and trying again after a 429: the setup's
// own requests may exceed the owner's budget.
func (s *soak) setupCall(as account, method, path string, form url.Values, out any) error {
	for {
		err := s.api.Call(as, method, path, form, out)
		var st *chatdproc.StatusError
		if !errors.As(err, &st) || st.Status != http.StatusTooManyRequests {
			return err
		}
		time.Sleep(retryAfter(st))
	}
}

// retryAfter is the wait a 429 asks for, from its JSON body.
func retryAfter(st *chatdproc.StatusError) time.Duration {
	var body struct {
		RetryAfter float64 `json:"retry-after"`
	}
	if json.Unmarshal(st.Body, &body) != nil || body.RetryAfter <= 0 {
		return time.Second
	}
	return time.Duration(body.RetryAfter * float64(time.Second))
}

// upload stores a file of size bytes as the transfers member and returns
// its path.
func (s *soak) upload(size int) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "soak.bin")
	if err != nil {
		return "", err
	}
	fw.Write(bytes.Repeat([]byte("soak"), size/4))
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, s.api.Base+"/user_uploads", &body)
	if err != nil {
		return "", err
	}
	req.Host = s.api.Host
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth(s.transfers.Email, s.transfers.Key)
	res, err := s.api.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("upload: %d %s", res.StatusCode, b)
	}
	var out struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return "", err
	}
	return out.URL, nil
}

// parallel runs fn(0) … fn(n-1) on workers goroutines and returns the
// first error.
func parallel(workers, n int, fn func(i int) error) error {
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// errorKind names a failed request for the error counts: its status, or
// the transport's failure.
func errorKind(what string, err error) string {
	var st *chatdproc.StatusError
	if errors.As(err, &st) {
		return what + " " + strconv.Itoa(st.Status)
	}
	return what + " " + err.Error()
}
