package httpserver_test

import (
	"net/http"
	"testing"
)

// TestPresenceRoutes checks POST /users/me/presence, GET /realm/presence
// and GET /users/{user}/presence: their whole answers in the slim and the
// legacy forms, ping_only, and the errors.
func TestPresenceRoutes(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/users/me/presence", &e.member, form("status", "active", "slim_presence", "true"))
	now, _ := res.body["server_timestamp"].(float64)
	ts := float64(int64(now))
	e.expect(res, 200, success("presences", map[string]any{
		itoa(e.member.id): map[string]any{"active_timestamp": ts, "idle_timestamp": ts},
	}, "presence_last_update_id", res.body["presence_last_update_id"], "server_timestamp", now, "zephyr_mirror_active", false))
	if id, _ := res.body["presence_last_update_id"].(float64); id <= 0 {
		t.Errorf("presence_last_update_id %v, want positive", res.body["presence_last_update_id"])
	}
	e.expect(e.call(http.MethodPost, "/users/me/presence", &e.owner, form("status", "idle", "ping_only", "true")), 200, success())

	website := func(status string) map[string]any {
		return map[string]any{"client": "website", "status": status, "timestamp": ts, "pushable": false}
	}
	legacy := func(status string) map[string]any {
		return map[string]any{"website": website(status), "aggregated": map[string]any{"client": "website", "status": status, "timestamp": ts}}
	}
	res = e.call(http.MethodGet, "/realm/presence", &e.guest, nil)
	e.expect(res, 200, success("presences", map[string]any{e.member.email: legacy("active"), e.owner.email: legacy("idle")},
		"server_timestamp", res.body["server_timestamp"]))
	e.expect(e.call(http.MethodGet, "/users/"+itoa(e.member.id)+"/presence", &e.owner, nil), 200,
		success("presence", legacy("active")))
	e.expect(e.call(http.MethodGet, "/users/"+e.owner.email+"/presence", &e.member, nil), 200,
		success("presence", legacy("idle")))
	e.expectError(e.call(http.MethodGet, "/users/"+itoa(e.admin.id)+"/presence", &e.owner, nil), 400,
		"BAD_REQUEST", "No presence data for "+e.admin.email)
	e.expectError(e.call(http.MethodGet, "/users/999999/presence", &e.owner, nil), 400, "BAD_REQUEST", "No such user")
	e.expectError(e.call(http.MethodPost, "/users/me/presence", &e.member, form("status", "away")), 400,
		"BAD_REQUEST", "Invalid status: away")

	// Turning presence off hides the user.
	e.expect(e.call(http.MethodPatch, "/settings", &e.member, form("presence_enabled", "false")), 200, success())
	res = e.call(http.MethodGet, "/realm/presence", &e.owner, nil)
	e.expect(res, 200, success("presences", map[string]any{e.owner.email: legacy("idle")}, "server_timestamp", res.body["server_timestamp"]))
	e.expectError(e.call(http.MethodGet, "/users/"+itoa(e.member.id)+"/presence", &e.owner, nil), 400,
		"BAD_REQUEST", "No presence data for "+e.member.email)
}
