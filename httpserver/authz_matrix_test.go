package httpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang-jwt/jwt/v5"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
)

// messagePath is the path of the fixture's message, with suffix.
func messagePath(suffix string) func(*matrixFixture) string {
	return func(f *matrixFixture) string { return "/messages/" + itoa(f.message) + suffix }
}

// matrixRow is one route of the matrix: how to call it with minimal valid
// parameters, and what each authenticated identity gets.
type matrixRow struct {
	path  func(f *matrixFixture) string
	form  func(f *matrixFixture, as *account) url.Values
	roles [asBot + 1]outcome
	// public routes answer every caller alike, including the ones without
	// a usable key.
	public bool
	// request, when set, builds the whole request in place of path and
	// form: for the routes outside the API's conventions.
	request func(f *matrixFixture, as *account) *http.Request
}

func fixed(path string) func(*matrixFixture) string {
	return func(*matrixFixture) string { return path }
}

func params(kv ...string) func(*matrixFixture, *account) url.Values {
	return func(*matrixFixture, *account) url.Values { return form(kv...) }
}

// matrix has one row per registered route, keyed "METHOD /pattern".
var matrix = map[string]matrixRow{
	"GET /api/v1/server_settings": {path: fixed("/server_settings"), roles: roles(ok), public: true},
	"POST /api/v1/fetch_api_key": {path: fixed("/fetch_api_key"), public: true, roles: roles(ok),
		form: params("username", "member@example.com", "password", "member-password")},
	"POST /api/v1/jwt/fetch_api_key": {path: fixed("/jwt/fetch_api_key"), public: true, roles: roles(ok),
		form: func(*matrixFixture, *account) url.Values {
			token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": "member@example.com"}).SignedString(matrixSecret)
			return form("token", token)
		}},

	"GET /api/v1/users":    {path: fixed("/users"), roles: roles(ok)},
	"POST /api/v1/users":   {path: fixed("/users"), roles: roles(ok, ok, needAdmin), form: params("email", "new@example.com", "password", "a-long-password", "full_name", "New One")},
	"GET /api/v1/users/me": {path: fixed("/users/me"), roles: roles(ok)},
	"GET /api/v1/users/{user}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"PATCH /api/v1/users/{user}": {roles: roles(ok, ok, insufficient), form: params("full_name", "Renamed"),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"DELETE /api/v1/users/{user}": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) }},
	"POST /api/v1/users/{user_id}/reactivate": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.deactivated.id) + "/reactivate" }},

	"GET /api/v1/realm/profile_fields":  {path: fixed("/realm/profile_fields"), roles: roles(ok)},
	"POST /api/v1/realm/profile_fields": {path: fixed("/realm/profile_fields"), roles: roles(ok, ok, needAdmin), form: params("name", "Pronouns", "field_type", "1")},
	"POST /api/v1/users/me/status":      {path: fixed("/users/me/status"), roles: with(roles(ok), asBot, noBots), form: params("status_text", "busy")},
	"PATCH /api/v1/users/me/profile_data": {path: fixed("/users/me/profile_data"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("data", fmt.Sprintf(`[{"id":%d,"value":"12345"}]`, f.field))
		}},
	"PATCH /api/v1/settings":                     {path: fixed("/settings"), roles: with(roles(ok), asBot, noBots), form: params("presence_enabled", "false")},
	"PATCH /api/v1/settings/notifications":       {path: fixed("/settings/notifications"), roles: with(roles(ok), asBot, noBots), form: params("enable_sounds", "false")},
	"PATCH /api/v1/settings/display":             {path: fixed("/settings/display"), roles: with(roles(ok), asBot, noBots), form: params("emojiset", "text")},
	"PATCH /api/v1/realm/user_settings_defaults": {path: fixed("/realm/user_settings_defaults"), roles: roles(ok, ok, needAdmin), form: params("email_address_visibility", "1")},

	"POST /api/v1/register": {path: fixed("/register"), roles: roles(ok)},
	"GET /api/v1/events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("queue_id", f.queue(as), "last_event_id", "-1", "dont_block", "true")
		}},
	"DELETE /api/v1/events": {path: fixed("/events"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("queue_id", f.queue(as)) }},
	"POST /api/v1/typing": {path: fixed("/typing"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("op", "start", "to", "["+itoa(f.target.id)+"]")
		}},

	"GET /api/v1/users/me/subscriptions":  {path: fixed("/users/me/subscriptions"), roles: roles(ok)},
	"POST /api/v1/users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: with(roles(ok), asGuest, noGuests), form: params("subscriptions", `[{"name":"brand new"}]`)},
	"DELETE /api/v1/users/me/subscriptions": {path: fixed("/users/me/subscriptions"), roles: roles(ok),
		form: params("subscriptions", `["matrix"]`)},
	"POST /api/v1/users/me/subscriptions/properties": {path: fixed("/users/me/subscriptions/properties"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("subscription_data", fmt.Sprintf(`[{"stream_id":%d,"property":"is_muted","value":true}]`, f.channel))
		}},
	"PATCH /api/v1/users/me/subscriptions/muted_topics": {path: fixed("/users/me/subscriptions/muted_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "op", "add")
		}},
	"PATCH /api/v1/users/me/subscriptions/{stream_id}": {roles: roles(ok), form: params("property", "pin_to_top", "value", "true"),
		path: func(f *matrixFixture) string { return "/users/me/subscriptions/" + itoa(f.channel) }},
	"POST /api/v1/user_topics": {path: fixed("/user_topics"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic", "lunch", "visibility_policy", "1")
		}},
	"GET /api/v1/streams": {path: fixed("/streams"), roles: roles(ok)},
	"GET /api/v1/streams/{stream_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) }},
	"POST /api/v1/messages/flags": {path: fixed("/messages/flags"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("messages", "["+itoa(f.message)+"]", "op", "add", "flag", "starred")
		}},
	"POST /api/v1/messages/flags/narrow": {path: fixed("/messages/flags/narrow"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("anchor", "newest", "num_before", "1", "num_after", "0", "narrow", "[]", "op", "add", "flag", "starred")
		}},
	"POST /api/v1/mark_all_as_read": {path: fixed("/mark_all_as_read"), roles: roles(ok)},
	"POST /api/v1/mark_stream_as_read": {path: fixed("/mark_stream_as_read"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("stream_id", itoa(f.channel)) }},
	"POST /api/v1/mark_topic_as_read": {path: fixed("/mark_topic_as_read"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			return form("stream_id", itoa(f.channel), "topic_name", "files")
		}},
	"GET /api/v1/users/me/{stream_id}/topics": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/me/" + itoa(f.channel) + "/topics" }},
	"POST /api/v1/users/me/presence": {path: fixed("/users/me/presence"), roles: roles(ok), form: params("status", "active")},
	"GET /api/v1/realm/presence":     {path: fixed("/realm/presence"), roles: roles(ok)},
	"GET /api/v1/users/{user}/presence": {roles: roles(outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest,
		msg: "No presence data for target@example.com"}),
		path: func(f *matrixFixture) string { return "/users/" + itoa(f.target.id) + "/presence" }},
	"GET /api/v1/attachments": {path: fixed("/attachments"), roles: roles(ok)},
	"DELETE /api/v1/attachments/{attachment_id}": {roles: roles(ok), request: func(f *matrixFixture, as *account) *http.Request {
		return f.request(http.MethodDelete, "/attachments/"+itoa(f.attachmentOf(as)), as, nil)
	}},
	"GET /api/v1/bot_storage":    {path: fixed("/bot_storage"), roles: roles(ok)},
	"PUT /api/v1/bot_storage":    {path: fixed("/bot_storage"), roles: roles(ok), form: params("storage", `{"k":"v"}`)},
	"DELETE /api/v1/bot_storage": {path: fixed("/bot_storage"), roles: roles(ok)},
	"GET /api/v1/get_stream_id": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/get_stream_id?stream=matrix" }},
	"GET /api/v1/streams/{stream_id}/members": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/members" }},
	"GET /api/v1/users/{user_id}/subscriptions/{stream_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string {
			return "/users/" + itoa(f.target.id) + "/subscriptions/" + itoa(f.channel)
		}},
	"POST /api/v1/streams/{stream_id}/delete_topic": {roles: roles(ok, ok, needAdmin), form: params("topic_name", "lunch"),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/delete_topic" }},
	// The channel's creator (the owner) administers it, as the
	// organization's administrators do.
	"PATCH /api/v1/streams/{stream_id}": {roles: roles(ok, ok, channelAdmin), form: params("description", "New"),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) }},
	"POST /api/v1/default_streams": {path: fixed("/default_streams"), roles: roles(ok, ok, needAdmin),
		form: func(f *matrixFixture, _ *account) url.Values { return form("stream_id", itoa(f.channel)) }},
	"DELETE /api/v1/default_streams": {path: fixed("/default_streams"), roles: roles(ok, ok, needAdmin),
		form: func(f *matrixFixture, _ *account) url.Values { return form("stream_id", itoa(f.channel)) }},
	"GET /api/v1/streams/{stream_id}/email_address": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) + "/email_address" }},
	"DELETE /api/v1/streams/{stream_id}": {roles: roles(ok, ok, channelAdmin),
		path: func(f *matrixFixture) string { return "/streams/" + itoa(f.channel) }},
	"GET /api/v1/channel_folders":         {path: fixed("/channel_folders"), roles: roles(ok)},
	"POST /api/v1/channel_folders/create": {path: fixed("/channel_folders/create"), roles: roles(ok, ok, needAdmin), form: params("name", "Another", "description", "")},
	"PATCH /api/v1/channel_folders/{channel_folder_id}": {roles: roles(ok, ok, needAdmin), form: params("name", "Renamed"),
		path: func(f *matrixFixture) string { return "/channel_folders/" + itoa(f.folder) }},
	"GET /api/v1/user_groups": {path: fixed("/user_groups"), roles: roles(ok)},
	"GET /api/v1/bots":        {path: fixed("/bots"), roles: each(ok, ok, ok, ok, noGuests, ok)},
	"PATCH /api/v1/realm/profile_fields": {path: fixed("/realm/profile_fields"), roles: roles(ok, ok, needAdmin),
		form: func(f *matrixFixture, _ *account) url.Values { return form("order", "["+itoa(f.field)+"]") }},
	"PATCH /api/v1/realm/profile_fields/{field_id}": {roles: roles(ok, ok, needAdmin), form: params("hint", "Work phone"),
		path: func(f *matrixFixture) string { return "/realm/profile_fields/" + itoa(f.field) }},
	"DELETE /api/v1/realm/profile_fields/{field_id}": {roles: roles(ok, ok, needAdmin),
		path: func(f *matrixFixture) string { return "/realm/profile_fields/" + itoa(f.field) }},
	"GET /api/v1/users/me/alert_words":    {path: fixed("/users/me/alert_words"), roles: roles(ok)},
	"POST /api/v1/users/me/alert_words":   {path: fixed("/users/me/alert_words"), roles: roles(ok), form: params("alert_words", `["deploy"]`)},
	"DELETE /api/v1/users/me/alert_words": {path: fixed("/users/me/alert_words"), roles: roles(ok), form: params("alert_words", `["deploy"]`)},
	"POST /api/v1/users/me/muted_users/{muted_user_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/users/me/muted_users/" + itoa(f.target.id) }},
	"DELETE /api/v1/users/me/muted_users/{muted_user_id}": {roles: roles(outcome{status: http.StatusBadRequest, code: chat.CodeBadRequest, msg: "User is not muted"}),
		path: func(f *matrixFixture) string { return "/users/me/muted_users/" + itoa(f.target.id) }},
	"POST /api/v1/bots": {path: fixed("/bots"), roles: each(ok, ok, ok, ok, noGuests, ok),
		form: params("full_name", "Matrix Bot", "short_name", "matrix")},
	// The owner owns the bot; administrators may change any.
	"PATCH /api/v1/bots/{bot_id}": {roles: each(ok, ok, insufficient, insufficient, noGuests, insufficient),
		form: params("full_name", "Renamed Bot"), path: func(f *matrixFixture) string { return "/bots/" + itoa(f.ownBot) }},
	"DELETE /api/v1/bots/{bot_id}": {roles: each(ok, ok, insufficient, insufficient, noGuests, insufficient),
		path: func(f *matrixFixture) string { return "/bots/" + itoa(f.ownBot) }},
	"POST /api/v1/bots/{bot_id}/api_key/regenerate": {roles: each(ok, ok, insufficient, insufficient, noGuests, insufficient),
		path: func(f *matrixFixture) string { return "/bots/" + itoa(f.ownBot) + "/api_key/regenerate" }},
	// The owner created the group and manages it, as administrators do.
	"POST /api/v1/user_groups/create": {path: fixed("/user_groups/create"), roles: each(ok, ok, ok, ok, noGuests, ok),
		form: params("name", "Another", "description", "", "members", "[]")},
	"PATCH /api/v1/user_groups/{user_group_id}": {roles: roles(ok, ok, insufficient), form: params("name", "Renamed"),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) }},
	"POST /api/v1/user_groups/{user_group_id}/deactivate": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) + "/deactivate" }},
	"GET /api/v1/user_groups/{user_group_id}/members": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) + "/members" }},
	"POST /api/v1/user_groups/{user_group_id}/members": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) + "/members" },
		form: func(f *matrixFixture, _ *account) url.Values { return form("add", "["+itoa(f.target.id)+"]") }},
	"GET /api/v1/user_groups/{user_group_id}/members/{user_id}": {roles: roles(ok),
		path: func(f *matrixFixture) string {
			return "/user_groups/" + itoa(f.group) + "/members/" + itoa(f.target.id)
		}},
	"GET /api/v1/user_groups/{user_group_id}/subgroups": {roles: roles(ok),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) + "/subgroups" }},
	"POST /api/v1/user_groups/{user_group_id}/subgroups": {roles: roles(ok, ok, insufficient),
		path: func(f *matrixFixture) string { return "/user_groups/" + itoa(f.group) + "/subgroups" },
		form: func(f *matrixFixture, _ *account) url.Values { return form("add", "["+itoa(f.subgroup)+"]") }},

	"PATCH /api/v1/realm":          {path: fixed("/realm"), roles: roles(ok, ok, needAdmin), form: params("name", "Renamed Org")},
	"GET /api/v1/realm/linkifiers": {path: fixed("/realm/linkifiers"), roles: roles(ok)},
	"GET /api/v1/realm/filters":    {path: fixed("/realm/filters"), roles: roles(ok)},
	"POST /api/v1/realm/filters":   {path: fixed("/realm/filters"), roles: roles(ok, ok, needAdmin), form: params("pattern", `T(?P<id>[0-9]+)`, "url_template", "https://example.org/t/{id}")},
	"PATCH /api/v1/realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin), form: params("pattern", `U(?P<id>[0-9]+)`, "url_template", "https://example.org/u/{id}"),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"DELETE /api/v1/realm/filters/{filter_id}": {roles: roles(ok, ok, needAdmin),
		path: func(f *matrixFixture) string { return "/realm/filters/" + itoa(f.linkifier) }},
	"GET /api/v1/realm/domains":  {path: fixed("/realm/domains"), roles: roles(ok)},
	"GET /api/v1/realm/emoji":    {path: fixed("/realm/emoji"), roles: roles(ok)},
	"POST /api/v1/realm/domains": {path: fixed("/realm/domains"), roles: roles(ok, needOwner), form: params("domain", "example.com", "allow_subdomains", "false")},
	"PATCH /api/v1/realm/domains/{domain}": {roles: roles(ok, needOwner), form: params("allow_subdomains", "true"),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"DELETE /api/v1/realm/domains/{domain}": {roles: roles(ok, needOwner),
		path: func(f *matrixFixture) string { return "/realm/domains/" + f.domain }},
	"POST /api/v1/calls/videocall/create": {path: fixed("/calls/videocall/create"), roles: roles(ok)},

	"POST /api/v1/users/me/ios_device_token": {path: fixed("/users/me/ios_device_token"), roles: with(roles(ok), asBot, noBots),
		form: params("token", "abcd12ef", "appid", "org.example.app")},
	"POST /api/v1/users/me/apns_device_token": {path: fixed("/users/me/apns_device_token"), roles: with(roles(ok), asBot, noBots),
		form: params("token", "abcd12ef", "appid", "org.example.app")},
	"POST /api/v1/register_client_device": {path: fixed("/register_client_device"), roles: roles(ok)},
	"POST /api/v1/remove_client_device": {path: fixed("/remove_client_device"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values { return form("device_id", f.device(as)) }},
	"POST /api/v1/mobile_push/register": {path: fixed("/mobile_push/register"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, as *account) url.Values {
			// A rotation of the device's key: a new registration of its own.
			return registrationForm(f.device(as), pushKey(0x40))
		}},
	"POST /api/v1/mobile_push/e2ee/test_notification": {path: fixed("/mobile_push/e2ee/test_notification"), roles: with(roles(ok), asBot, noBots),
		form: func(f *matrixFixture, as *account) url.Values { return form("device_id", f.device(as)) }},

	"POST /api/v1/messages": {path: fixed("/messages"), roles: roles(ok),
		form: params("type", "channel", "to", "matrix", "topic", "lunch", "content", "hello")},
	"GET /api/v1/messages": {path: fixed("/messages"), roles: roles(ok),
		form: params("anchor", "newest", "num_before", "5", "num_after", "0", "narrow", `[["channel","matrix"]]`)},
	"GET /api/v1/messages/{message_id}/history": {path: messagePath("/history"), roles: roles(ok)},
	"POST /api/v1/messages/render": {path: fixed("/messages/render"), roles: roles(ok),
		form: params("content", "**hi** #**matrix**")},
	"GET /api/v1/messages/matches_narrow": {path: fixed("/messages/matches_narrow"), roles: roles(ok),
		form: func(f *matrixFixture, _ *account) url.Values {
			return form("msg_ids", "["+itoa(f.message)+"]", "narrow", `[["topic","files"]]`)
		}},
	"GET /api/v1/messages/{message_id}":    {path: messagePath(""), roles: roles(ok)},
	"PATCH /api/v1/messages/{message_id}":  {path: messagePath(""), roles: each(cannotEdit, cannotEdit, cannotEdit, ok, cannotEdit, cannotEdit), form: params("content", "edited")},
	"DELETE /api/v1/messages/{message_id}": {path: messagePath(""), roles: each(ok, ok, cannotDelete, ok, cannotDelete, cannotDelete)},
	"POST /api/v1/messages/{message_id}/reactions": {path: messagePath("/reactions"), roles: roles(ok),
		form: params("emoji_name", "octopus")},
	"DELETE /api/v1/messages/{message_id}/reactions": {path: messagePath("/reactions"), roles: roles(ok),
		form: func(f *matrixFixture, as *account) url.Values {
			if as != nil && as.id != 0 {
				// The caller's own reaction to remove; refused callers fail
				// before this matters.
				f.svc.AddReaction(context.Background(), chat.AsUser(as.id), f.message, chat.ReactionRequest{Name: "octopus"})
			}
			return form("emoji_name", "octopus")
		}},
	"POST /api/v1/messages/{message_id}/report": {path: messagePath("/report"), roles: roles(ok),
		form: params("report_type", "spam")},
	"POST /api/v1/messages/{message_id}/typing": {path: messagePath("/typing"), roles: each(cannotEdit, cannotEdit, cannotEdit, ok, cannotEdit, cannotEdit),
		form: params("op", "start")},

	"GET /api/v1/user_uploads/{realm_id}/{path...}": {roles: roles(ok),
		request: func(f *matrixFixture, as *account) *http.Request {
			return f.request(http.MethodGet, "/user_uploads/"+f.upload(as), as, nil)
		}},
	"POST /api/v1/user_uploads": {roles: roles(ok),
		request: func(_ *matrixFixture, as *account) *http.Request {
			body := &strings.Builder{}
			w := multipart.NewWriter(body)
			part, _ := w.CreateFormFile("file", "report.txt")
			io.WriteString(part, "a report")
			w.Close()
			return rawRequest(http.MethodPost, httpserver.Prefix+"/user_uploads", as, strings.NewReader(body.String()), "Content-Type", w.FormDataContentType())
		}},
	"POST /api/v1/realm/emoji/{emoji_name}": {roles: each(ok, ok, ok, ok, noGuests, ok),
		request: func(_ *matrixFixture, as *account) *http.Request {
			body := &bytes.Buffer{}
			w := multipart.NewWriter(body)
			part, _ := w.CreateFormFile("file", "smile.png")
			part.Write(tinyPNG())
			w.Close()
			return rawRequest(http.MethodPost, httpserver.Prefix+"/realm/emoji/smiley", as, bytes.NewReader(body.Bytes()), "Content-Type", w.FormDataContentType())
		}},
	// The owner added "matrix": administrators and its author may remove it.
	"DELETE /api/v1/realm/emoji/{emoji_name}": {roles: roles(ok, ok, emojiAuthor),
		request: func(_ *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodDelete, httpserver.Prefix+"/realm/emoji/matrix", as, nil)
		}},
	"GET /user_avatars/{realm_id}/emoji/images/{file}": {public: true, roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, f.emojiImage, as, nil)
		}},
	"GET /user_uploads/{realm_id}/{path...}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, "/user_uploads/"+f.upload(as), as, nil)
		}},
	"GET /user_uploads/download/{realm_id}/{path...}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, "/user_uploads/download/"+f.upload(as), as, nil)
		}},
	"GET /user_uploads/temporary/{token}/{filename}": {public: true, roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return rawRequest(http.MethodGet, f.temporary, as, nil)
		}},
	"POST /api/v1/tus": {roles: roles(created),
		request: func(_ *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPost, httpserver.Prefix+"/tus", as)
		}},
	"POST /api/v1/tus/{$}": {roles: roles(created),
		request: func(_ *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPost, httpserver.Prefix+"/tus/", as)
		}},
	"HEAD /api/v1/tus/{id}": {roles: roles(served),
		request: func(f *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodHead, httpserver.Prefix+"/tus/"+f.tusUpload(as), as)
		}},
	"PATCH /api/v1/tus/{id}": {roles: roles(patched),
		request: func(f *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodPatch, httpserver.Prefix+"/tus/"+f.tusUpload(as), as)
		}},
	"DELETE /api/v1/tus/{id}": {roles: roles(patched),
		request: func(f *matrixFixture, as *account) *http.Request {
			return tusRequest(http.MethodDelete, httpserver.Prefix+"/tus/"+f.tusUpload(as), as)
		}},
}
