package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/teamchat/chat/bench/internal/chatdproc"
)

// chatdTarget is chatd serve, on SQLite or PostgreSQL, driven through its
// API at /api/v1.
type chatdTarget struct {
	name  string
	proc  *chatdproc.Proc
	dir   string
	dbs   *databases // nil on SQLite: its database is in the process
	api   *chatdproc.Client
	owner chatdproc.Account
	ids   []int64             // users, by number
	keys  []chatdproc.Account // sessions of the first users
}

// password is every user's password, on both servers: long and mixed
// enough for Mattermost's default password rules.
const password = "Peer-bench-password-1!"

func startChatd(ctx context.Context, bin, store string, dbs *databases) (*chatdTarget, error) {
	dir, err := os.MkdirTemp("", "peer-chatd-")
	if err != nil {
		return nil, err
	}
	t := &chatdTarget{name: "chatd SQLite", dir: dir}
	extra := []string{"--rate-limit", "0"}
	if store == "postgres" {
		dsn, err := dbs.create(ctx, "peer_chatd")
		if err != nil {
			return nil, err
		}
		t.name, t.dbs = "chatd PostgreSQL", dbs
		extra = append(extra, "--store", "postgres", "--dsn", dsn)
	}
	if t.proc, err = chatdproc.Start(bin, dir, extra...); err != nil {
		return nil, err
	}
	// Enough connections for every listener's long-poll and the senders.
	t.api = chatdproc.NewClient(t.proc.Port, 512)
	t.owner = t.proc.Owner
	return t, nil
}

func (t *chatdTarget) Name() string { return t.name }

func (t *chatdTarget) PID() int { return t.proc.PID }

func (t *chatdTarget) Stop() {
	t.proc.Stop()
	os.RemoveAll(t.dir)
}

func (t *chatdTarget) CPU() (server, database time.Duration) {
	server, _, _, _ = procCPU(t.proc.PID)
	if t.dbs != nil {
		database = t.dbs.databaseCPU()
	}
	return server, database
}

func (t *chatdTarget) email(i int) string { return fmt.Sprintf("peer-%05d@example.com", i) }

func (t *chatdTarget) Setup(s shape) error {
	var me struct {
		UserID int64 `json:"user_id"`
	}
	if err := t.api.Call(t.owner, http.MethodGet, "/users/me", nil, &me); err != nil {
		return err
	}
	t.owner.ID = me.UserID
	t.ids = make([]int64, s.users)
	err := each(s.users, 8, func(i int) error {
		var res struct {
			UserID int64 `json:"user_id"`
		}
		err := t.api.Call(t.owner, http.MethodPost, "/users", url.Values{"email": {t.email(i)}, "password": {password},
			"full_name": {fmt.Sprintf("Peer User %d", i)}}, &res)
		t.ids[i] = res.UserID
		return err
	})
	if err != nil {
		return err
	}
	for c, n := range s.channelUsers() {
		principals := append([]int64{t.owner.ID}, t.ids[:n]...)
		subs, _ := json.Marshal([]map[string]string{{"name": c.name()}})
		ps, _ := json.Marshal(principals)
		if err := t.api.Call(t.owner, http.MethodPost, "/users/me/subscriptions", url.Values{"subscriptions": {string(subs)}, "principals": {string(ps)}}, nil); err != nil {
			return err
		}
	}
	t.keys = make([]chatdproc.Account, s.sessions)
	return each(s.sessions, 8, func(i int) error {
		var key struct {
			APIKey string `json:"api_key"`
		}
		err := t.api.Call(chatdproc.Account{}, http.MethodPost, "/fetch_api_key", url.Values{"username": {t.email(i)}, "password": {password}}, &key)
		t.keys[i] = chatdproc.Account{ID: t.ids[i], Email: t.email(i), Key: key.APIKey}
		return err
	})
}

func (t *chatdTarget) as(u int) chatdproc.Account {
	if u < 0 {
		return t.owner
	}
	return t.keys[u]
}

func (t *chatdTarget) Post(u int, c channel, text string) (string, error) {
	var res struct {
		ID int64 `json:"id"`
	}
	to, _ := json.Marshal(c.name())
	err := t.api.Call(t.as(u), http.MethodPost, "/messages", url.Values{"type": {"stream"}, "to": {string(to)},
		"topic": {"bench"}, "content": {text}}, &res)
	return strconv.FormatInt(res.ID, 10), err
}

func (t *chatdTarget) React(u int, message string) error {
	return t.api.Call(t.as(u), http.MethodPost, "/messages/"+message+"/reactions", url.Values{"emoji_name": {"smile"}}, nil)
}

func (t *chatdTarget) ListUsers() error {
	var res struct {
		Members []json.RawMessage `json:"members"`
	}
	if err := t.api.Call(t.owner, http.MethodGet, "/users", nil, &res); err != nil {
		return err
	}
	if len(res.Members) < len(t.ids) {
		return fmt.Errorf("GET /users: %d users, not %d", len(res.Members), len(t.ids))
	}
	return nil
}

func (t *chatdTarget) Newest50() error {
	var res struct {
		Messages []json.RawMessage `json:"messages"`
	}
	narrow, _ := json.Marshal([]map[string]string{{"operator": "channel", "operand": bigChannel.name()}})
	err := t.api.Call(t.owner, http.MethodGet, "/messages", url.Values{"anchor": {"newest"}, "num_before": {"50"},
		"num_after": {"0"}, "narrow": {string(narrow)}}, &res)
	if err == nil && len(res.Messages) != 50 {
		err = fmt.Errorf("GET /messages: %d messages, not 50", len(res.Messages))
	}
	return err
}

func (t *chatdTarget) CreateUser(i int) error {
	return t.api.Call(t.owner, http.MethodPost, "/users", url.Values{"email": {t.email(i)}, "password": {password},
		"full_name": {fmt.Sprintf("Peer User %d", i)}}, nil)
}

// Listen registers an event queue for messages for each of the first n
// users, and keeps a long-poll GET /events open on each, as Zulip's
// clients do: a poll answered, the next one is sent at once.
func (t *chatdTarget) Listen(n int, got func(int, string)) (func(), error) {
	type queue struct {
		id   string
		last int64
	}
	queues := make([]queue, n)
	err := each(n, 8, func(i int) error {
		var reg struct {
			QueueID     string `json:"queue_id"`
			LastEventID int64  `json:"last_event_id"`
		}
		err := t.api.Call(t.keys[i], http.MethodPost, "/register", url.Values{"event_types": {`["message"]`}}, &reg)
		queues[i] = queue{reg.QueueID, reg.LastEventID}
		return err
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			q := queues[i]
			for ctx.Err() == nil {
				var res struct {
					Events []struct {
						ID      int64  `json:"id"`
						Type    string `json:"type"`
						Message struct {
							Content string `json:"content"`
						} `json:"message"`
					} `json:"events"`
				}
				err := t.poll(ctx, t.keys[i], url.Values{"queue_id": {q.id}, "last_event_id": {strconv.FormatInt(q.last, 10)}}, &res)
				if err != nil {
					if ctx.Err() == nil {
						logf("%s: listener %d: %v", t.name, i, err)
						time.Sleep(100 * time.Millisecond)
					}
					continue
				}
				for _, e := range res.Events {
					if e.Type == "message" {
						got(i, e.Message.Content)
					}
					q.last = e.ID
				}
			}
		})
	}
	return func() {
		cancel()
		wg.Wait()
		each(n, 8, func(i int) error {
			return t.api.Call(t.keys[i], http.MethodDelete, "/events", url.Values{"queue_id": {queues[i].id}}, nil)
		})
	}, nil
}

// poll is a GET /events that ends when ctx does.
func (t *chatdTarget) poll(ctx context.Context, as chatdproc.Account, q url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.api.Base+"/events?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.Host = t.api.Host
	req.SetBasicAuth(as.Email, as.Key)
	res, err := t.api.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return errors.New("GET /events: " + res.Status)
	}
	return json.NewDecoder(res.Body).Decode(out)
}
