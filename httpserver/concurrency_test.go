package httpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/sqlite"
)

// Concurrent requests to the same rows, over HTTP on both backends, with
// the invariants checked once they are all answered. Run with -race.

// forBothStores runs fn with an env over the memory store and one over
// SQLite, and the IDs of extra members.
func forBothStores(t *testing.T, members int, fn func(t *testing.T, e *env, extra []account)) {
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			var store storage.Store = memory.New()
			if name == "sqlite" {
				s, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				store = s
			}
			e := newEnvWithStore(t, store)
			ctx := context.Background()
			orgs, err := e.svc.Orgs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var extra []account
			for i := range members {
				res, err := e.svc.ProvisionUser(ctx, orgs[0].ID, chat.NewUser{Email: fmt.Sprintf("racer%d@example.com", i), FullName: fmt.Sprintf("Racer %d", i)})
				if err != nil {
					t.Fatal(err)
				}
				extra = append(extra, account{res.UserID, res.Email, res.APIKey})
			}
			fn(t, e, extra)
		})
	}
}

// serveAsync serves one request from any goroutine: it never stops the test,
// and returns the status and decoded body.
func serveAsync(e *env, method, path string, as *account, values url.Values) (int, map[string]any) {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, e.request(method, path, as, values))
	var body map[string]any
	json.Unmarshal(w.Body.Bytes(), &body)
	return w.Code, body
}

// roleOf reads a user's role as the owner sees it.
func roleOf(t *testing.T, e *env, id int64) chat.Role {
	t.Helper()
	status, body := serveAsync(e, http.MethodGet, "/users/"+itoa(id), &e.owner, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /users/%d: %d %v", id, status, body)
	}
	return chat.Role(body["user"].(map[string]any)["role"].(float64))
}

// TestConcurrentOwnerDemotion has two owners demote each other at the same
// moment, round after round: one of the two may win, never both, so the
// organization always keeps an owner.
func TestConcurrentOwnerDemotion(t *testing.T) {
	forBothStores(t, 0, func(t *testing.T, e *env, _ []account) {
		a, b := e.owner, e.admin
		if status, body := serveAsync(e, http.MethodPatch, "/users/"+itoa(b.id), &a, form("role", "100")); status != http.StatusOK {
			t.Fatalf("promoting: %d %v", status, body)
		}
		wins := 0
		for round := range 20 {
			var wg sync.WaitGroup
			statuses := make([]int, 2)
			for i, pair := range [][2]account{{a, b}, {b, a}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i], _ = serveAsync(e, http.MethodPatch, "/users/"+itoa(pair[1].id), &pair[0], form("role", "200"))
				}()
			}
			wg.Wait()
			owners := 0
			for _, u := range []account{a, b} {
				if roleOf(t, e, u.id) == chat.RoleOwner {
					owners++
				}
			}
			ok := 0
			for _, s := range statuses {
				if s == http.StatusOK {
					ok++
				}
			}
			if owners != 1 || ok != 1 {
				t.Fatalf("round %d: %d owners left after %d successful demotions (%v)", round, owners, ok, statuses)
			}
			wins++
			// The one left an owner promotes the other again.
			if roleOf(t, e, a.id) != chat.RoleOwner {
				a, b = b, a
			}
			if status, body := serveAsync(e, http.MethodPatch, "/users/"+itoa(b.id), &a, form("role", "100")); status != http.StatusOK {
				t.Fatalf("round %d: promoting again: %d %v", round, status, body)
			}
		}
		t.Logf("%d rounds, one owner left after each", wins)
	})
}

// TestConcurrentRoleChanges has two administrators set the roles of the
// same members at once; each member ends with a role one of them set.
func TestConcurrentRoleChanges(t *testing.T) {
	forBothStores(t, 8, func(t *testing.T, e *env, members []account) {
		roles := map[*account]string{&e.owner: "400", &e.admin: "300"}
		var wg sync.WaitGroup
		for as, role := range roles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					for _, m := range members {
						if status, body := serveAsync(e, http.MethodPatch, "/users/"+itoa(m.id), as, form("role", role)); status != http.StatusOK {
							t.Errorf("PATCH role of %d: %d %v", m.id, status, body)
						}
					}
				}
			}()
		}
		wg.Wait()
		for _, m := range members {
			if r := roleOf(t, e, m.id); r != chat.RoleMember && r != chat.RoleModerator {
				t.Errorf("user %d has role %d", m.id, r)
			}
		}
	})
}

// TestConcurrentSubscribeToNewChannel has many users create the same
// channel at once: one channel results, with every one of them in it.
func TestConcurrentSubscribeToNewChannel(t *testing.T) {
	forBothStores(t, 16, func(t *testing.T, e *env, members []account) {
		var wg sync.WaitGroup
		for _, m := range members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, body := serveAsync(e, http.MethodPost, "/users/me/subscriptions", &m, form("subscriptions", `[{"name":"stampede"}]`))
				if status != http.StatusOK {
					t.Errorf("subscribing %s: %d %v", m.email, status, body)
				}
			}()
		}
		wg.Wait()
		status, body := serveAsync(e, http.MethodGet, "/streams", &e.owner, form("include_all", "true"))
		if status != http.StatusOK {
			t.Fatalf("GET /streams: %d %v", status, body)
		}
		var ids []int64
		for _, s := range body["streams"].([]any) {
			if s := s.(map[string]any); s["name"] == "stampede" {
				ids = append(ids, int64(s["stream_id"].(float64)))
			}
		}
		if len(ids) != 1 {
			t.Fatalf("%d channels named stampede: %v", len(ids), ids)
		}
		for _, m := range members {
			_, body := serveAsync(e, http.MethodGet, "/users/me/subscriptions", &m, form("include_subscribers", "true"))
			var found bool
			for _, s := range body["subscriptions"].([]any) {
				s := s.(map[string]any)
				if int64(s["stream_id"].(float64)) == ids[0] {
					found = true
					if n := len(s["subscribers"].([]any)); n != len(members) {
						t.Errorf("%s sees %d subscribers, want %d", m.email, n, len(members))
					}
				}
			}
			if !found {
				t.Errorf("%s is not subscribed to the channel", m.email)
			}
		}
	})
}

// TestConcurrentMuting has every subscriber of one channel mute and unmute
// it many times at once; each ends with the value of its last request.
func TestConcurrentMuting(t *testing.T) {
	forBothStores(t, 12, func(t *testing.T, e *env, members []account) {
		ids := make([]string, len(members))
		for i, m := range members {
			ids[i] = itoa(m.id)
		}
		status, body := serveAsync(e, http.MethodPost, "/users/me/subscriptions", &e.owner, form("subscriptions", `[{"name":"noisy"}]`,
			"principals", "["+joinStrings(ids)+"]"))
		if status != http.StatusOK {
			t.Fatalf("subscribing: %d %v", status, body)
		}
		channel := channelID(t, e, "noisy")
		last := make([]bool, len(members))
		var wg sync.WaitGroup
		for i, m := range members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 6 + i%3 {
					muted := j%2 == 0
					status, body := serveAsync(e, http.MethodPatch, "/users/me/subscriptions/"+itoa(channel), &m,
						form("property", "is_muted", "value", fmt.Sprint(muted)))
					if status != http.StatusOK {
						t.Errorf("muting: %d %v", status, body)
						return
					}
					last[i] = muted
				}
			}()
		}
		wg.Wait()
		for i, m := range members {
			_, body := serveAsync(e, http.MethodGet, "/users/me/subscriptions", &m, nil)
			for _, s := range body["subscriptions"].([]any) {
				s := s.(map[string]any)
				if int64(s["stream_id"].(float64)) == channel && s["is_muted"] != last[i] {
					t.Errorf("%s: is_muted %v, last set %v", m.email, s["is_muted"], last[i])
				}
			}
		}
	})
}

// TestConcurrentRealmUpdates has administrators rename the organization at
// once; every request succeeds and the name is one of those sent.
func TestConcurrentRealmUpdates(t *testing.T) {
	forBothStores(t, 0, func(t *testing.T, e *env, _ []account) {
		var names []string
		var wg sync.WaitGroup
		for i, as := range []*account{&e.owner, &e.admin, &e.owner, &e.admin} {
			name := fmt.Sprintf("Org %d", i)
			names = append(names, name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					if status, body := serveAsync(e, http.MethodPatch, "/realm", as, form("name", name, "description", name+" description")); status != http.StatusOK {
						t.Errorf("PATCH /realm: %d %v", status, body)
					}
				}
			}()
		}
		wg.Wait()
		_, body := serveAsync(e, http.MethodPost, "/register", &e.member, form("fetch_event_types", `["realm"]`))
		name, _ := body["realm_name"].(string)
		if !slices.Contains(names, name) || body["realm_description"] != "<p>"+name+" description</p>" {
			t.Errorf("realm_name %q with description %q: not one request's pair", name, body["realm_description"])
		}
	})
}

// TestConcurrentReactions has many users react to one message at once,
// each sending the same reaction several times together and one more of
// its own: each reaction is stored once, every duplicate is answered
// REACTION_ALREADY_EXISTS, and the message's reactions are exactly those
// acknowledged.
func TestConcurrentReactions(t *testing.T) {
	forBothStores(t, 16, func(t *testing.T, e *env, members []account) {
		ids := make([]string, len(members))
		for i, m := range members {
			ids[i] = itoa(m.id)
		}
		status, body := serveAsync(e, http.MethodPost, "/users/me/subscriptions", &e.owner, form("subscriptions", `[{"name":"popular"}]`,
			"principals", "["+joinStrings(ids)+"]"))
		if status != http.StatusOK {
			t.Fatalf("subscribing: %d %v", status, body)
		}
		status, body = serveAsync(e, http.MethodPost, "/messages", &e.owner, form("type", "channel", "to", "popular", "topic", "vote", "content", "React!"))
		if status != http.StatusOK {
			t.Fatalf("sending: %d %v", status, body)
		}
		path := "/messages/" + itoa(int64(body["id"].(float64))) + "/reactions"

		const tries = 3 // identical requests per user and emoji, sent together
		emoji := []string{"+1", "octopus", "tada"}
		type key struct {
			user  int64
			emoji string
		}
		var (
			mu         sync.Mutex
			successes  = map[key]int{}
			duplicates = map[key]int{}
			wg         sync.WaitGroup
		)
		for i, m := range members {
			// Everyone votes +1; each also adds one of the others.
			for _, name := range []string{"+1", emoji[1+i%2]} {
				for range tries {
					wg.Add(1)
					go func() {
						defer wg.Done()
						status, body := serveAsync(e, http.MethodPost, path, &m, form("emoji_name", name))
						mu.Lock()
						defer mu.Unlock()
						switch {
						case status == http.StatusOK:
							successes[key{m.id, name}]++
						case status == http.StatusBadRequest && body["code"] == string(chat.CodeReactionAlreadyExists) && body["msg"] == "Reaction already exists.":
							duplicates[key{m.id, name}]++
						default:
							t.Errorf("%s reacting %s: %d %v", m.email, name, status, body)
						}
					}()
				}
			}
		}
		wg.Wait()
		for k, n := range successes {
			if n != 1 || duplicates[k] != tries-1 {
				t.Errorf("user %d, %s: %d acknowledged, %d duplicates; want 1 and %d", k.user, k.emoji, n, duplicates[k], tries-1)
			}
		}
		if len(successes) != 2*len(members) {
			t.Errorf("%d reactions acknowledged, want %d", len(successes), 2*len(members))
		}
		// The stored reactions: the acknowledged ones, once each, as
		// every member and the sender see them.
		counts := map[string]int{}
		for _, as := range append([]account{e.owner}, members...) {
			status, body := serveAsync(e, http.MethodGet, path[:len(path)-len("/reactions")], &as, nil)
			if status != http.StatusOK {
				t.Fatalf("GET the message as %s: %d %v", as.email, status, body)
			}
			seen := map[key]bool{}
			for _, r := range body["message"].(map[string]any)["reactions"].([]any) {
				r := r.(map[string]any)
				k := key{int64(r["user_id"].(float64)), r["emoji_name"].(string)}
				if seen[k] || successes[k] != 1 {
					t.Errorf("as %s: reaction %v stored twice or never acknowledged", as.email, r)
				}
				seen[k] = true
				if as.id == e.owner.id {
					counts[k.emoji]++
				}
			}
			if len(seen) != len(successes) {
				t.Errorf("as %s: %d reactions, %d acknowledged", as.email, len(seen), len(successes))
			}
		}
		want := map[string]int{"+1": len(members), "octopus": (len(members) + 1) / 2, "tada": len(members) / 2}
		for _, name := range emoji {
			if counts[name] != want[name] {
				t.Errorf("%s: %d reactions, want %d", name, counts[name], want[name])
			}
		}
	})
}

func joinStrings(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}

// channelID finds a channel by name as the owner sees it.
func channelID(t *testing.T, e *env, name string) int64 {
	t.Helper()
	_, body := serveAsync(e, http.MethodGet, "/streams", &e.owner, form("include_all", "true"))
	for _, s := range body["streams"].([]any) {
		if s := s.(map[string]any); s["name"] == name {
			return int64(s["stream_id"].(float64))
		}
	}
	t.Fatalf("no channel %s", name)
	return 0
}
