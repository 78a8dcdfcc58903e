package httpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/sqlite"
)

// queryCase is one request whose SQL statement count is pinned.
type queryCase struct {
	name   string
	method string
	path   string
	as     func(e *env) *account
	form   func(e *env) []string
	// max is the most statements the request may run: the count today, so
	// that a change adding queries must say so here. The cases run one
	// after the other on one server, as a client's requests do: after the
	// first, credentials are checked inside the operation's transaction,
	// and write transactions find the actor's rows in the writer's cache.
	max int64
}

// caseHosts are the Host of the cases that name one other than the
// organization's.
var caseHosts = map[string]string{"me, by the server's IP address": "127.0.0.1:9991"}

// warmCases run once before their counted run. Register reads its state
// blocks at the same time, and they race to fill the store's user and
// channel caches: how many miss them depends on timing, so it is counted
// once they are filled. The organization's description is rendered once
// by a process and kept (server settings, register).
var warmCases = map[string]bool{"register": true, "me, by the server's IP address": true, "server settings": true}

// TestQueriesPerRequest runs each operation over SQLite twice: in the
// fixture's organization, and again after 40 more users joined its
// channels. The statement count must not grow with the users (no query
// per row), and must stay within the pinned bound.
func TestQueriesPerRequest(t *testing.T) {
	owner := func(e *env) *account { return &e.owner }
	member := func(e *env) *account { return &e.member }
	none := func(*env) []string { return nil }
	cases := []queryCase{
		{"server settings", http.MethodGet, "/server_settings", func(*env) *account { return nil }, none, 2},
		{"users", http.MethodGet, "/users", member, none, 5},
		{"users with profile data", http.MethodGet, "/users", member,
			func(*env) []string { return []string{"include_custom_profile_fields", "true"} }, 3},
		{"user by ID", http.MethodGet, "/users/1", member, none, 2},
		{"user by email", http.MethodGet, "/users/owner@example.com", member, none, 2},
		{"me", http.MethodGet, "/users/me", member, none, 2},
		// The organization by the single-organization fallback: its
		// resolution is read again in the request's transaction, instead
		// of a transaction of its own checking the credentials afresh.
		{"me, by the server's IP address", http.MethodGet, "/users/me", member, none, 4},
		{"subscriptions", http.MethodGet, "/users/me/subscriptions", member,
			func(*env) []string { return []string{"include_subscribers", "true"} }, 5},
		{"streams", http.MethodGet, "/streams", member, none, 6}, // the channel list's version, which spares reading the list once cached
		{"user groups", http.MethodGet, "/user_groups", member, none, 3},
		{"subscribe", http.MethodPost, "/users/me/subscriptions", member,
			// The access policy is checked in the operation's own
			// transaction; only a failed request asks it apart.
			func(*env) []string { return []string{"subscriptions", `[{"name":"general"},{"name":"fresh"}]`} }, 21}, // the notices read the alert words
		{"mute a topic", http.MethodPatch, "/users/me/subscriptions/muted_topics", member,
			func(*env) []string { return []string{"stream", "general", "topic", "lunch", "op", "add"} }, 7},
		{"set status", http.MethodPost, "/users/me/status", member,
			// the realm's users_version, read once the user list is
			// cached, so that the write moves the cached list along
			func(*env) []string { return []string{"status_text", "busy"} }, 3},
		{"send a message", http.MethodPost, "/messages", member,
			// the delivery reuses the sender, organization, channel and
			// linkifiers that the send read, and reads no reactions of a
			// new message; on SQLite its list of recipients is one
			// statement (storage/sqlite/recipients.go)
			func(*env) []string {
				return []string{"type", "stream", "to", "general", "topic", "lunch", "content", "hello"}
			}, 10},
		{"send another message", http.MethodPost, "/messages", member,
			// the channel's subscribers, read by the first, from the
			// writer's cache; the outgoing-webhook bots are read only for
			// a message that mentions someone
			func(*env) []string {
				return []string{"type", "stream", "to", "general", "topic", "lunch", "content", "hello again"}
			}, 9},
		{"send a message that mentions someone", http.MethodPost, "/messages", member,
			// the mentioned user by name, and the bots
			func(e *env) []string {
				return []string{"type", "stream", "to", "general", "topic", "lunch", "content", "hello @**Olivia Owner**"}
			}, 11},
		{"send a message with code", http.MethodPost, "/messages", member,
			// rendered before the write, in a read transaction of its own,
			// with the organization the actor check read (for its default
			// code language)
			func(e *env) []string {
				return []string{"type", "stream", "to", "general", "topic", "lunch", "content", "```python\nx = 1\n```"}
			}, 11},
		// A reaction reads who received the message, which says both
		// whether the actor did and whom the event goes to ({last}: the
		// message sent last).
		{"react", http.MethodPost, "/messages/{last}/reactions", member,
			func(*env) []string { return []string{"emoji_name", "octopus"} }, 6},
		{"take a reaction back", http.MethodDelete, "/messages/{last}/reactions", member,
			func(*env) []string { return []string{"emoji_name", "octopus"} }, 3},
		{"realm settings", http.MethodPatch, "/realm", owner,
			func(*env) []string { return []string{"name", "Renamed Org"} }, 1},
		// Each of register's reads of users' rows also reads whether rows of
		// big channels' messages are pending (storage/sqlite/fanout.go).
		{"register", http.MethodPost, "/register", member, none, 58}, // every state block: unread, starred, user settings (with the stored ones), custom emoji, presence, alert words, muted users, bots and the realm's group settings included
	}

	// count runs every case once on a fresh environment with extra more
	// users in the channel "general", and returns the statements each ran.
	count := func(t *testing.T, extra int) map[string]int64 {
		store, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
		if err != nil {
			t.Fatal(err)
		}
		// As chatd serves: with outgoing-webhook bots on.
		e := newEnvWith(t, store, func(c *chat.Config) { c.OutgoingWebhookClient = &http.Client{} })
		ctx := context.Background()
		if res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form(
			"subscriptions", `[{"name":"general"}]`, "principals", fmt.Sprintf("[%d,%d]", e.owner.id, e.member.id))); res.status != http.StatusOK {
			t.Fatalf("subscribe: %s", res.raw)
		}
		var ids []string
		for i := range extra {
			u, err := e.svc.ProvisionUser(ctx, 1, chat.NewUser{Email: fmt.Sprintf("extra%d@example.com", i), FullName: "Extra User"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, itoa(u.UserID))
		}
		if len(ids) > 0 {
			principals := "[" + strings.Join(ids, ",") + "]"
			if res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form(
				"subscriptions", `[{"name":"general"}]`, "principals", principals)); res.status != http.StatusOK {
				t.Fatalf("subscribe extras: %s", res.raw)
			}
		}
		out := map[string]int64{}
		last := ""
		for _, c := range cases {
			call := func() response {
				r := e.request(c.method, strings.ReplaceAll(c.path, "{last}", last), c.as(e), form(c.form(e)...))
				if h, ok := caseHosts[c.name]; ok {
					r.Host = h
				}
				return e.do(r)
			}
			if warmCases[c.name] {
				call()
			}
			before := store.QueryCount()
			res := call()
			if res.status != http.StatusOK {
				t.Fatalf("%s: %s", c.name, res.raw)
			}
			out[c.name] = store.QueryCount() - before
			if id, sent := res.body["id"].(float64); sent && c.path == "/messages" {
				last = ftoa(id)
			}
		}
		return out
	}
	small := count(t, 0)
	large := count(t, 40)
	for _, c := range cases {
		if small[c.name] != large[c.name] {
			t.Errorf("%s: %d statements with the fixture, %d with 40 more users: a query per user?",
				c.name, small[c.name], large[c.name])
		}
		if small[c.name] > c.max {
			t.Errorf("%s: %d statements, more than the pinned %d", c.name, small[c.name], c.max)
		}
		t.Logf("%-24s %3d statements", c.name, small[c.name])
	}
}
