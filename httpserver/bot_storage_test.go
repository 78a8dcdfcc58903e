package httpserver_test

import (
	"net/http"
	"testing"

	"github.com/teamchat/chat"
)

// TestBotStorageRoutes checks the whole answers of PUT, GET and DELETE
// /bot_storage, and their parameter errors.
func TestBotStorageRoutes(t *testing.T) {
	e := newEnv(t)
	e.expect(e.call(http.MethodPut, "/bot_storage", &e.bot, form("storage", `{"state":"{\"n\": 1}","other":"x"}`)), 200, success())
	e.expect(e.call(http.MethodGet, "/bot_storage", &e.bot, nil), 200,
		success("storage", map[string]any{"state": `{"n": 1}`, "other": "x"}))
	e.expect(e.call(http.MethodGet, "/bot_storage", &e.bot, form("keys", `["other"]`)), 200,
		success("storage", map[string]any{"other": "x"}))
	e.expectError(e.call(http.MethodGet, "/bot_storage", &e.bot, form("keys", `["other","gone"]`)), 400,
		chat.CodeBadRequest, "Key does not exist.")
	e.expectError(e.call(http.MethodPut, "/bot_storage", &e.bot, form("storage", `{"a":"b","c":1}`)), 400,
		chat.CodeBadRequest, `storage["c"] is not a string`)
	e.expectError(e.call(http.MethodPut, "/bot_storage", &e.bot, form("storage", `["a"]`)), 400,
		chat.CodeBadRequest, "storage is not a dict")
	e.expectError(e.call(http.MethodPut, "/bot_storage", &e.bot, nil), 400,
		chat.CodeRequestVariableMissing, "Missing 'storage' argument", "var_name", "storage")
	e.expectError(e.call(http.MethodDelete, "/bot_storage", &e.bot, form("keys", `"state"`)), 400,
		chat.CodeBadRequest, "keys is not a list")
	e.expect(e.call(http.MethodDelete, "/bot_storage", &e.bot, form("keys", `["state"]`)), 200, success())
	e.expect(e.call(http.MethodGet, "/bot_storage", &e.bot, nil), 200, success("storage", map[string]any{"other": "x"}))
	e.expect(e.call(http.MethodDelete, "/bot_storage", &e.bot, nil), 200, success())
	e.expect(e.call(http.MethodGet, "/bot_storage", &e.bot, nil), 200, success("storage", map[string]any{}))
	// Another user's storage is apart.
	e.expect(e.call(http.MethodGet, "/bot_storage", &e.member, nil), 200, success("storage", map[string]any{}))
}
