package httpserver_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

func TestLinkifierPermissions(t *testing.T) {
	e := newEnv(t)
	for _, as := range []account{e.moderator, e.member, e.guest} {
		e.expectError(e.call(http.MethodPost, "/realm/filters", &as, form("pattern", "(")),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
		e.expectError(e.call(http.MethodPatch, "/realm/filters/1", &as, nil),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
		e.expectError(e.call(http.MethodDelete, "/realm/filters/1", &as, nil),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	}
}

func TestLinkifierValidation(t *testing.T) {
	e := newEnv(t)
	errs := func(field, msg string) map[string]any { return map[string]any{field: []any{msg}} }
	for _, c := range []struct {
		name  string
		form  []string
		msg   string
		field string
	}{
		{"blank pattern", []string{"pattern", "  ", "url_template", "https://x/"}, "This field cannot be blank.", "pattern"},
		{"missing paren", []string{"pattern", "(foo", "url_template", "https://x/"}, "Bad regular expression: missing ): (foo", "pattern"},
		{"bad repetition", []string{"pattern", "a**", "url_template", "https://x/"}, "Bad regular expression: bad repetition operator: **", "pattern"},
		{"look-ahead", []string{"pattern", "a(?=b)", "url_template", "https://x/"}, "Bad regular expression: invalid perl operator: (?=", "pattern"},
		{"back-reference", []string{"pattern", `(a)\1`, "url_template", "https://x/"}, `Bad regular expression: invalid escape sequence: \1`, "pattern"},
		{"blank template", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", ""}, "This field cannot be blank.", "url_template"},
		{"invalid template", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id"}, "Invalid URL template.", "url_template"},
		{"variable not in pattern", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}/{zeta}/{hello}"},
			"Group 'hello' in URL template is not present in linkifier pattern.", "__all__"},
		{"group not in template", []string{"pattern", "#(?P<id>[0-9]+)(?P<b>x)?", "url_template", "https://x/"},
			"Group 'b' in linkifier pattern is not present in URL template.", "__all__"},
		{"invalid alternative", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "alternative_url_templates", `["https://y/{id"]`},
			"Invalid URL template.", "alternative_url_templates"},
		{"long template", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}/" + strings.Repeat("é", 2035)},
			"Ensure this value has at most 2048 characters (it has 2050).", "url_template"},
		{"long alternative", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}",
			"alternative_url_templates", `["https://y/{id}", "https://y/{id}/` + strings.Repeat("a", 2040) + `"]`},
			"Ensure this value has at most 2048 characters (it has 2055).", "alternative_url_templates"},
		{"example does not match", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "example_input", "#abc"},
			"Example input does not match the linkifier pattern.", "__all__"},
		{"reverse without example", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "reverse_template", "#{id}"},
			"Example text is required with an auto-conversion field.", "__all__"},
		{"reverse mismatch", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "example_input", "#12", "reverse_template", "##{id}"},
			"Example text does not match auto-conversion field.", "__all__"},
		{"reverse unclosed", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "example_input", "#12", "reverse_template", "#{id"},
			"Invalid auto-conversion field: missing '}' character.", "__all__"},
		{"reverse empty field", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "example_input", "#12", "reverse_template", "#{}"},
			"Invalid auto-conversion field: empty field name.", "__all__"},
		{"reverse unknown group", []string{"pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}", "example_input", "#12", "reverse_template", "#{x}"},
			"Group 'x' in auto-conversion field is not present in linkifier pattern.", "__all__"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.expectError(e.call(http.MethodPost, "/realm/filters", &e.admin, form(c.form...)),
				http.StatusBadRequest, chat.CodeBadRequest, c.msg, "errors", errs(c.field, c.msg))
		})
	}
	t.Run("several fields", func(t *testing.T) {
		e.t = t
		e.expectError(e.call(http.MethodPost, "/realm/filters", &e.admin, form("pattern", "", "url_template", "{x")),
			http.StatusBadRequest, chat.CodeBadRequest, "This field cannot be blank.", "errors", map[string]any{
				"pattern": []any{"This field cannot be blank."}, "url_template": []any{"Invalid URL template."}})
	})
	t.Run("parameters", func(t *testing.T) {
		e.t = t
		e.expectError(e.call(http.MethodPost, "/realm/filters", &e.admin, form("url_template", "https://x/")),
			http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'pattern' argument", "var_name", "pattern")
		e.expectError(e.call(http.MethodPost, "/realm/filters", &e.admin, form("pattern", "a", "url_template", "https://x/", "alternative_url_templates", `[1]`)),
			http.StatusBadRequest, chat.CodeBadRequest, "alternative_url_templates[0] is not a string")
	})
}

func TestLinkifierLifecycle(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/realm/filters", &e.admin, form(
		"pattern", " #(?P<id>[0-9]+) ", "url_template", "https://github.com/zulip/zulip/issues/{id}",
		"example_input", "#123", "reverse_template", "#{id}", "alternative_url_templates", `["https://gh.example/{id}"]`))
	e.expect(res, http.StatusOK, success("id", float64(1)))
	e.expectError(e.call(http.MethodPost, "/realm/filters", &e.owner, form("pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}")),
		http.StatusBadRequest, chat.CodeBadRequest, "Realm filter with this Realm and Pattern already exists.",
		"errors", map[string]any{"__all__": []any{"Realm filter with this Realm and Pattern already exists."}})
	e.expect(e.call(http.MethodPost, "/realm/filters", &e.owner, form("pattern", "T(?P<n>[0-9]+)", "url_template", "https://t/{n}", "example_input", "")),
		http.StatusOK, success("id", float64(2)))
	first := map[string]any{"id": float64(1), "pattern": "#(?P<id>[0-9]+)", "url_template": "https://github.com/zulip/zulip/issues/{id}",
		"example_input": "#123", "reverse_template": "#{id}", "alternative_url_templates": []any{"https://gh.example/{id}"}}
	second := map[string]any{"id": float64(2), "pattern": "T(?P<n>[0-9]+)", "url_template": "https://t/{n}",
		"example_input": nil, "reverse_template": nil, "alternative_url_templates": []any{}}
	for _, path := range []string{"/realm/linkifiers", "/realm/filters"} {
		e.expect(e.call(http.MethodGet, path, &e.guest, nil), http.StatusOK, success("linkifiers", []any{first, second}))
	}
	e.expect(e.call(http.MethodPatch, "/realm/filters/2", &e.admin, form("pattern", "T-(?P<n>[0-9]+)", "url_template", "https://t/{n}", "extra", "1")),
		http.StatusOK, success("ignored_parameters_unsupported", []any{"extra"}))
	second["pattern"] = "T-(?P<n>[0-9]+)"
	e.expect(e.call(http.MethodGet, "/realm/linkifiers", &e.member, nil), http.StatusOK, success("linkifiers", []any{first, second}))
	e.expectError(e.call(http.MethodPatch, "/realm/filters/2", &e.admin, form("pattern", "#(?P<id>[0-9]+)", "url_template", "https://x/{id}")),
		http.StatusBadRequest, chat.CodeBadRequest, "Realm filter with this Realm and Pattern already exists.",
		"errors", map[string]any{"__all__": []any{"Realm filter with this Realm and Pattern already exists."}})
	for _, id := range []string{"99", "abc"} {
		e.expectError(e.call(http.MethodPatch, "/realm/filters/"+id, &e.admin, form("pattern", "x", "url_template", "https://x/")),
			http.StatusBadRequest, chat.CodeBadRequest, "Linkifier not found.")
		e.expectError(e.call(http.MethodDelete, "/realm/filters/"+id, &e.admin, nil),
			http.StatusBadRequest, chat.CodeBadRequest, "Linkifier not found.")
	}
	e.expect(e.call(http.MethodDelete, "/realm/filters/1", &e.admin, nil), http.StatusOK, success())
	e.expect(e.call(http.MethodGet, "/realm/linkifiers", &e.member, nil), http.StatusOK, success("linkifiers", []any{second}))
}

func TestRealmDomains(t *testing.T) {
	e := newEnv(t)
	for _, as := range []account{e.admin, e.member} {
		e.expectError(e.call(http.MethodPost, "/realm/domains", &as, nil),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
		e.expectError(e.call(http.MethodPatch, "/realm/domains/example.com", &as, nil),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
		e.expectError(e.call(http.MethodDelete, "/realm/domains/example.com", &as, nil),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
	}
	for _, c := range []struct{ domain, reason string }{
		{"  ", "Domain can't be empty."},
		{"localhost", "Domain must have at least one dot (.)"},
		{"a." + stringsRepeat("b", 254), "Domain is too long"},
		{".example.com", "Domain cannot start or end with a dot (.)"},
		{"example.com.", "Domain cannot start or end with a dot (.)"},
		{"example..com", "Consecutive '.' are not allowed."},
		{"-example.com", "Subdomains cannot start or end with a '-'."},
		{"exa_mple.com", "Domain can only have letters, numbers, '.' and '-'s."},
		{"köln.de", "Domain can only have letters, numbers, '.' and '-'s."},
	} {
		e.expectError(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", c.domain, "allow_subdomains", "false")),
			http.StatusBadRequest, chat.CodeBadRequest, "Invalid domain: "+c.reason)
	}
	e.expectError(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", "example.com")),
		http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'allow_subdomains' argument", "var_name", "allow_subdomains")
	e.expectError(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", "example.com", "allow_subdomains", "1")),
		http.StatusBadRequest, chat.CodeBadRequest, "allow_subdomains is not a boolean")
	e.expect(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", " Example.COM ", "allow_subdomains", "false")),
		http.StatusOK, success("new_domain", []any{float64(1), "example.com"}))
	e.expectError(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", "example.com", "allow_subdomains", "true")),
		http.StatusBadRequest, chat.CodeBadRequest, "The domain example.com is already a part of your organization.")
	e.expect(e.call(http.MethodPost, "/realm/domains", &e.owner, form("domain", "corp.example.org", "allow_subdomains", "true")),
		http.StatusOK, success("new_domain", []any{float64(2), "corp.example.org"}))
	e.expect(e.call(http.MethodGet, "/realm/domains", &e.guest, nil), http.StatusOK, success("domains", []any{
		map[string]any{"domain": "example.com", "allow_subdomains": false},
		map[string]any{"domain": "corp.example.org", "allow_subdomains": true},
	}))
	// The path is matched exactly.
	e.expectError(e.call(http.MethodPatch, "/realm/domains/Example.com", &e.owner, form("allow_subdomains", "true")),
		http.StatusBadRequest, chat.CodeBadRequest, "No entry found for domain Example.com.")
	e.expectError(e.call(http.MethodDelete, "/realm/domains/nope.com", &e.owner, nil),
		http.StatusBadRequest, chat.CodeBadRequest, "No entry found for domain nope.com.")
	e.expect(e.call(http.MethodPatch, "/realm/domains/example.com", &e.owner, form("allow_subdomains", "true")), http.StatusOK, success())

	// Restricting addresses to the domains applies to new users.
	e.expect(e.call(http.MethodPatch, "/realm", &e.owner, form("emails_restricted_to_domains", "true")),
		http.StatusOK, success("emails_restricted_to_domains", true))
	create := func(email string) response {
		return e.call(http.MethodPost, "/users", &e.admin, form("email", email, "password", "secret-pw", "full_name", "New Person"))
	}
	e.expectError(create("new@other.net"), http.StatusBadRequest, chat.CodeBadRequest, "Email 'new@other.net' not allowed in this organization")
	e.expectError(create("new+tag@example.com"), http.StatusBadRequest, chat.CodeBadRequest, "Email addresses containing + are not allowed.")
	e.expectError(create("new@corp.example.orgx"), http.StatusBadRequest, chat.CodeBadRequest, "Email 'new@corp.example.orgx' not allowed in this organization")
	for _, email := range []string{"new1@example.com", "new2@sub.example.com", "new3@DEPT.CORP.example.org"} {
		if res := create(email); res.status != http.StatusOK {
			t.Errorf("creating %s: %s", email, res.raw)
		}
	}
	// Deleting the last domain lifts the restriction.
	e.expect(e.call(http.MethodDelete, "/realm/domains/example.com", &e.owner, nil), http.StatusOK, success())
	e.expect(e.call(http.MethodDelete, "/realm/domains/corp.example.org", &e.owner, nil), http.StatusOK, success())
	e.expect(e.call(http.MethodGet, "/realm/domains", &e.member, nil), http.StatusOK, success("domains", []any{}))
	// Disposable addresses are refused by default once unrestricted.
	e.expectError(create("x@mailinator.com"), http.StatusBadRequest, chat.CodeBadRequest, "Disposable email addresses are not allowed in this organization")
	if res := create("x@other.net"); res.status != http.StatusOK {
		t.Errorf("creating x@other.net after lifting the restriction: %s", res.raw)
	}
}

func stringsRepeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestUpdateRealm(t *testing.T) {
	e := newEnv(t)
	for _, as := range []account{e.moderator, e.member, e.guest} {
		e.expectError(e.call(http.MethodPatch, "/realm", &as, form("name", "x")),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	}
	for _, name := range []string{"emails_restricted_to_domains", "disallow_disposable_email_addresses", "invite_required"} {
		e.expectError(e.call(http.MethodPatch, "/realm", &e.admin, form(name, "true")),
			http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
	}
	e.expectError(e.call(http.MethodPatch, "/realm", &e.admin, form("waiting_period_threshold", "3")),
		http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
	for _, c := range []struct {
		key, value string
		code       chat.Code
		msg        string
	}{
		{"name", " ", chat.CodeBadRequest, "name cannot be blank"},
		{"name", stringsRepeat("n", 41), chat.CodeBadRequest, "name is too long (limit: 40 characters)"},
		{"description", stringsRepeat("d", 1001), chat.CodeBadRequest, "description is too long (limit: 1000 characters)"},
		{"allow_message_editing", "yes", chat.CodeBadRequest, "allow_message_editing is not valid JSON"},
		{"allow_message_editing", "1", chat.CodeBadRequest, "allow_message_editing is not a boolean"},
		{"message_content_edit_limit_seconds", `"forever"`, chat.CodeRequestVariableInvalid, "Bad value for 'message_content_edit_limit_seconds': forever"},
		{"message_content_edit_limit_seconds", "0", chat.CodeRequestVariableInvalid, "Bad value for 'message_content_edit_limit_seconds': 0"},
		{"message_edit_history_visibility_policy", `"some"`, chat.CodeBadRequest, "Invalid message_edit_history_visibility_policy"},
		{"message_content_delete_limit_seconds", "-5", chat.CodeRequestVariableInvalid, "Bad value for 'message_content_delete_limit_seconds': -5"},
		{"message_content_delete_limit_seconds", "true", chat.CodeBadRequest, "Invalid message_content_delete_limit_seconds"},
		{"topics_policy", `"sometimes"`, chat.CodeBadRequest, "Invalid topics_policy"},
		{"topics_policy", `allow_empty_topic`, chat.CodeBadRequest, "topics_policy is not valid JSON"},
		{"default_language", "xx", chat.CodeBadRequest, "Invalid language 'xx'"},
		{"default_code_block_language", stringsRepeat("p", 101), chat.CodeBadRequest, "default_code_block_language is too long (limit: 100 characters)"},
		{"video_chat_provider", "7", chat.CodeBadRequest, "Invalid video_chat_provider 7"},
		{"video_chat_provider", "1", chat.CodeBadRequest, "Invalid video_chat_provider 1"}, // no provider configured
		{"video_chat_provider", `"1"`, chat.CodeBadRequest, "video_chat_provider is not an integer"},
		{"waiting_period_threshold", "-1", chat.CodeBadRequest, "waiting_period_threshold is too small"},
		{"can_move_messages_between_topics_group", `{"old": 1}`, chat.CodeBadRequest, "Invalid can_move_messages_between_topics_group"},
		{"can_move_messages_between_topics_group", `{"new": 999999}`, chat.CodeBadRequest, "Invalid user group ID: 999999"},
	} {
		e.expectError(e.call(http.MethodPatch, "/realm", &e.owner, form(c.key, c.value)), http.StatusBadRequest, c.code, c.msg)
	}
	// Only changed settings are echoed; a failed request changes nothing.
	e.expectError(e.call(http.MethodPatch, "/realm", &e.admin, form("name", "Renamed", "default_language", "xx")),
		http.StatusBadRequest, chat.CodeBadRequest, "Invalid language 'xx'")
	e.expect(e.call(http.MethodPatch, "/realm", &e.admin, form(
		"name", "Renamed", "description", "New **description**", "allow_message_editing", "true",
		"message_content_edit_limit_seconds", `"unlimited"`, "message_content_delete_limit_seconds", "3600",
		"move_messages_within_stream_limit_seconds", `"unlimited"`, "move_messages_between_streams_limit_seconds", "86400",
		"message_edit_history_visibility_policy", `"moves"`, "topics_policy", `"disable_empty_topic"`, "default_language", "de", "video_chat_provider", "0",
		"default_code_block_language", "python",
		"enable_spectator_access", "true", "send_channel_events_messages", "false", "bogus", "1")),
		http.StatusOK, success("name", "Renamed", "description", "New **description**",
			"message_content_edit_limit_seconds", nil, "message_content_delete_limit_seconds", float64(3600),
			"move_messages_within_stream_limit_seconds", nil, "move_messages_between_streams_limit_seconds", float64(86400),
			"message_edit_history_visibility_policy", "moves", "topics_policy", "disable_empty_topic", "default_language", "de", "video_chat_provider", float64(0),
			"default_code_block_language", "python",
			"enable_spectator_access", true, "send_channel_events_messages", false,
			"ignored_parameters_unsupported", []any{"bogus"}))
	e.expect(e.call(http.MethodPatch, "/realm", &e.owner, form("name", "Renamed", "waiting_period_threshold", "0", "invite_required", "false")),
		http.StatusOK, success("invite_required", false))
	e.expect(e.call(http.MethodPatch, "/realm", &e.admin, form("can_move_messages_between_channels_group",
		fmt.Sprintf(`{"new": {"direct_members": [%d], "direct_subgroups": []}}`, e.member.id))),
		http.StatusOK, success("can_move_messages_between_channels_group",
			map[string]any{"direct_members": []any{float64(e.member.id)}, "direct_subgroups": []any{}}))
	res := e.call(http.MethodGet, "/server_settings", nil, nil)
	if res.body["realm_name"] != "Renamed" || res.body["realm_description"] != "<p>New <strong>description</strong></p>" ||
		res.body["realm_web_public_access_enabled"] != false {
		t.Errorf("server settings after the update: %s", res.raw)
	}
}

func TestVideoCallNotConfigured(t *testing.T) {
	e := newEnv(t)
	e.expectError(e.call(http.MethodPost, "/calls/videocall/create", &e.member, nil),
		http.StatusBadRequest, chat.CodeBadRequest, "Video call provider credentials have not been configured")
	e.expectError(e.call(http.MethodPost, "/calls/videocall/create", nil, nil),
		http.StatusUnauthorized, chat.CodeUnauthorized, "Not logged in: API authentication or user session required")
}

func TestVideoCallJitsi(t *testing.T) {
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.VideoCalls = chat.JitsiMeet{ServerURL: "https://meet.example.org/"}
	})
	res := e.call(http.MethodPost, "/calls/videocall/create", &e.member, form("topic", "x"))
	url, _ := res.body["url"].(string)
	if res.status != http.StatusOK || !regexp.MustCompile(`^https://meet\.example\.org/[a-z2-7]{26}$`).MatchString(url) {
		t.Fatalf("status %d, body %s", res.status, res.raw)
	}
	e.expect(res, http.StatusOK, success("url", url, "ignored_parameters_unsupported", []any{"topic"}))
	if again := e.call(http.MethodPost, "/calls/videocall/create", &e.member, nil); again.body["url"] == url {
		t.Errorf("two calls got the same room %s", url)
	}
}
