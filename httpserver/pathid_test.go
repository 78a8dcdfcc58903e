package httpserver_test

import (
	"net/http"
	"testing"
)

// TestPathIDs checks the one rule by which every route reads an ID from its
// path: one or more ASCII digits naming a positive 64-bit integer; any other
// segment names nothing and gets the route's own "not found" answer.
func TestPathIDs(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		path, segment string
		status        int
		msg           string
	}{
		{"/streams/", "0", 400, "Invalid channel ID"},
		{"/streams/", "-1", 400, "Invalid channel ID"},
		{"/streams/", "+1", 400, "Invalid channel ID"},
		{"/streams/", "1e3", 400, "Invalid channel ID"},
		{"/streams/", "99999999999999999999", 400, "Invalid channel ID"},
		{"/messages/", "0", 400, "Invalid message(s)"},
		{"/messages/", "%201", 400, "Invalid message(s)"},
		{"/users/", "0", 400, "No such user"},
		{"/users/", "99999999999999999999", 400, "No such user"},
	} {
		res := e.call(http.MethodGet, tc.path+tc.segment, &e.owner, nil)
		if res.status != tc.status || res.body["msg"] != tc.msg {
			t.Errorf("GET %s%s = %d %v, want %d %q", tc.path, tc.segment, res.status, res.body["msg"], tc.status, tc.msg)
		}
	}
	// Leading zeros are digits like any other.
	if res := e.call(http.MethodGet, "/users/000"+itoa(e.member.id), &e.owner, nil); res.status != http.StatusOK {
		t.Errorf("GET /users/000%d = %d %s, want 200", e.member.id, res.status, res.raw)
	}
}
