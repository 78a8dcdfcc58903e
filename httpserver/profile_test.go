package httpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

const bad = http.StatusBadRequest

func (e *env) createField(kv ...string) int64 {
	e.t.Helper()
	res := e.call(http.MethodPost, "/realm/profile_fields", &e.admin, form(kv...))
	if res.status != http.StatusOK {
		e.t.Fatalf("creating a field: %s", res.raw)
	}
	return int64(res.body["id"].(float64))
}

func TestProfileFieldsCreateAndList(t *testing.T) {
	e := newEnv(t)
	e.expect(e.call(http.MethodGet, "/realm/profile_fields", &e.guest, nil), http.StatusOK, success("custom_fields", []any{}))
	e.expect(e.call(http.MethodPost, "/realm/profile_fields", &e.admin, form("name", " Phone ", "field_type", "1", "hint", "Work phone")),
		http.StatusOK, success("id", float64(1)))
	e.expect(e.call(http.MethodPost, "/realm/profile_fields", &e.owner, form("name", "Editor", "field_type", "3",
		"field_data", `{"0":{"text":"Vim","order":"1"},"1":{"text":"Emacs","order":"2"}}`,
		"display_in_profile_summary", "true", "required", "true", "editable_by_user", "false")),
		http.StatusOK, success("id", float64(2)))
	e.expect(e.call(http.MethodPost, "/realm/profile_fields", &e.admin, form("field_type", "7", "field_data", `{"subtype":"github"}`)),
		http.StatusOK, success("id", float64(3)))
	e.expect(e.call(http.MethodPost, "/realm/profile_fields", &e.admin, form("name", "Blog", "field_type", "5", "use_for_user_matching", "false")),
		http.StatusOK, success("id", float64(4)))
	e.expect(e.call(http.MethodGet, "/realm/profile_fields", &e.member, nil), http.StatusOK, success("custom_fields", []any{
		map[string]any{"id": float64(1), "name": "Phone", "type": float64(1), "hint": "Work phone", "field_data": "",
			"order": float64(1), "required": false, "editable_by_user": true},
		map[string]any{"id": float64(2), "name": "Editor", "type": float64(3), "hint": "",
			"field_data": `{"0":{"order":"1","text":"Vim"},"1":{"order":"2","text":"Emacs"}}`,
			"order":      float64(2), "required": true, "editable_by_user": false, "display_in_profile_summary": true},
		map[string]any{"id": float64(3), "name": "GitHub username", "type": float64(7), "hint": "",
			"field_data": `{"subtype":"github"}`, "order": float64(3), "required": false, "editable_by_user": true},
		map[string]any{"id": float64(4), "name": "Blog", "type": float64(5), "hint": "", "field_data": "",
			"order": float64(4), "required": false, "editable_by_user": true},
	}))
}

func TestProfileFieldsCreateErrors(t *testing.T) {
	e := newEnv(t)
	e.expectError(e.call(http.MethodPost, "/realm/profile_fields", &e.moderator, form("name", "x", "field_type", "nope")),
		bad, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	e.createField("name", "Taken", "field_type", "1", "display_in_profile_summary", "true")
	e.createField("name", "Second", "field_type", "2", "display_in_profile_summary", "true")
	for _, c := range []struct {
		name string
		kv   []string
		code chat.Code
		msg  string
	}{
		{"missing type", []string{"name", "A"}, chat.CodeRequestVariableMissing, "Missing 'field_type' argument"},
		{"type not JSON", []string{"name", "A", "field_type", "one"}, chat.CodeBadRequest, "field_type is not valid JSON"},
		{"type not int", []string{"name", "A", "field_type", `"1"`}, chat.CodeBadRequest, "field_type is not an integer"},
		{"name too long", []string{"name", strings.Repeat("é", 41), "field_type", "1"}, chat.CodeBadRequest, "name is too long (limit: 40 characters)"},
		{"hint too long", []string{"name", "A", "hint", strings.Repeat("h", 81), "field_type", "1"}, chat.CodeBadRequest, "hint is too long (limit: 80 characters)"},
		{"invalid type", []string{"name", "A", "field_type", "9"}, chat.CodeBadRequest, "Invalid field type."},
		{"field_data not object", []string{"name", "A", "field_type", "3", "field_data", "[]"}, chat.CodeBadRequest, "field_data is not a dict"},
		{"no choices", []string{"name", "A", "field_type", "3"}, chat.CodeBadRequest, "Field must have at least one choice."},
		{"blank choice key", []string{"name", "A", "field_type", "3", "field_data", `{" ":{"text":"a","order":"1"}}`}, chat.CodeBadRequest, "'value' cannot be blank."},
		{"order missing", []string{"name", "A", "field_type", "3", "field_data", `{"a":{"text":"a"}}`}, chat.CodeBadRequest, "order key is missing from field_data"},
		{"duplicate choices", []string{"name", "A", "field_type", "3", "field_data", `{"a":{"text":"x","order":"1"},"b":{"text":"x","order":"2"}}`}, chat.CodeBadRequest, "Field must not have duplicate choices."},
		{"no subtype", []string{"name", "A", "field_type", "7", "field_data", `{}`}, chat.CodeBadRequest, "subtype key is missing from field_data"},
		{"bad subtype", []string{"name", "A", "field_type", "7", "field_data", `{"subtype":"myspace"}`}, chat.CodeBadRequest, "Invalid external account type"},
		{"custom without pattern", []string{"name", "A", "field_type", "7", "field_data", `{"subtype":"custom"}`}, chat.CodeBadRequest, "Custom external account must define URL pattern"},
		{"pattern without username", []string{"name", "A", "field_type", "7", "field_data", `{"subtype":"custom","url_pattern":"https://x.example/"}`}, chat.CodeBadRequest, "URL pattern must contain '%(username)s'."},
		{"blank label", []string{"name", "  ", "field_type", "1"}, chat.CodeBadRequest, "Label cannot be blank."},
		{"summary type", []string{"name", "A", "field_type", "6", "display_in_profile_summary", "true"}, chat.CodeBadRequest, "Field type not supported for display in profile summary."},
		{"summary limit", []string{"name", "A", "field_type", "1", "display_in_profile_summary", "true"}, chat.CodeBadRequest, "Only 2 custom profile fields can be displayed in the profile summary."},
		{"matching type", []string{"name", "A", "field_type", "4", "use_for_user_matching", "true"}, chat.CodeBadRequest, "Field type not supported for user matching."},
		{"label taken", []string{"name", "Taken", "field_type", "2"}, chat.CodeBadRequest, "A field with that label already exists."},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodPost, "/realm/profile_fields", &e.admin, form(c.kv...))
			if c.code == chat.CodeRequestVariableMissing {
				e.expectError(res, bad, c.code, c.msg, "var_name", "field_type")
				return
			}
			e.expectError(res, bad, c.code, c.msg)
		})
	}
}

// profileEnv is an env with one field of each type.
type profileEnv struct {
	*env
	short, long, choice, date, link, users, pronouns, github int64
}

func newProfileEnv(t *testing.T) *profileEnv {
	e := &profileEnv{env: newEnv(t)}
	e.short = e.createField("name", "Phone", "field_type", "1")
	e.long = e.createField("name", "Bio", "field_type", "2")
	e.choice = e.createField("name", "Editor", "field_type", "3", "field_data", `{"vim":{"text":"Vim","order":"1"}}`, "editable_by_user", "false")
	e.date = e.createField("name", "Birthday", "field_type", "4")
	e.link = e.createField("name", "Blog", "field_type", "5")
	e.users = e.createField("name", "Mentor", "field_type", "6")
	e.pronouns = e.createField("name", "Pronouns", "field_type", "8")
	e.github = e.createField("field_type", "7", "field_data", `{"subtype":"github"}`)
	return e
}

func TestProfileDataUpdateAndRead(t *testing.T) {
	e := newProfileEnv(t)
	data := `[{"id":` + itoa(e.short) + `,"value":"**+1** <b>555</b>"},{"id":` + itoa(e.long) + `,"value":"[x](javascript:alert(1)) [y](https://example.com)"},` +
		`{"id":` + itoa(e.date) + `,"value":"2000-02-29"},{"id":` + itoa(e.link) + `,"value":"https://blog.example.com/me"},` +
		`{"id":` + itoa(e.users) + `,"value":[` + itoa(e.admin.id) + `,` + itoa(e.owner.id) + `]},{"id":` + itoa(e.pronouns) + `,"value":"they/them"},` +
		`{"id":` + itoa(e.github) + `,"value":"mel"}]`
	e.expect(e.call(http.MethodPatch, "/users/me/profile_data", &e.member, form("data", data)), http.StatusOK, success())
	want := map[string]any{
		itoa(e.short):    map[string]any{"value": "**+1** <b>555</b>", "rendered_value": "<p><strong>+1</strong> &lt;b&gt;555&lt;/b&gt;</p>"},
		itoa(e.long):     map[string]any{"value": "[x](javascript:alert(1)) [y](https://example.com)", "rendered_value": `<p>[x](javascript:alert(1)) <a href="https://example.com">y</a></p>`}, // a link the reference does not make stays text
		itoa(e.date):     map[string]any{"value": "2000-02-29"},
		itoa(e.link):     map[string]any{"value": "https://blog.example.com/me"},
		itoa(e.users):    map[string]any{"value": "[" + itoa(e.admin.id) + "," + itoa(e.owner.id) + "]"},
		itoa(e.pronouns): map[string]any{"value": "they/them"},
		itoa(e.github):   map[string]any{"value": "mel"},
	}
	res := e.call(http.MethodGet, "/users/"+itoa(e.member.id), &e.guest, form("include_custom_profile_fields", "true"))
	e.expect(res, http.StatusOK, success("user", userJSON(e.member, "Mel Member", chat.RoleMember,
		set("timezone", "Europe/Berlin"), set("profile_data", want))))
	// GET /users and /users/me carry the same values; others have none.
	res = e.call(http.MethodGet, "/users", &e.owner, form("include_custom_profile_fields", "true",
		"user_ids", "["+itoa(e.member.id)+","+itoa(e.admin.id)+","+itoa(e.bot.id)+"]"))
	e.expect(res, http.StatusOK, success("members", []any{
		userJSON(e.admin, "Adam Admin", chat.RoleAdmin, withProfileData()),
		userJSON(e.member, "Mel Member", chat.RoleMember, set("timezone", "Europe/Berlin"), set("profile_data", want)),
		botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id)),
	}))
	me := e.call(http.MethodGet, "/users/me", &e.member, nil)
	if got := me.body["profile_data"]; len(got.(map[string]any)) != len(want) {
		t.Errorf("GET /users/me profile_data = %v", got)
	}
	// null, "" and [] remove values; unchanged values are accepted.
	e.expect(e.call(http.MethodPatch, "/users/me/profile_data", &e.member, form("data",
		`[{"id":`+itoa(e.short)+`,"value":null},{"id":`+itoa(e.long)+`,"value":""},{"id":`+itoa(e.users)+`,"value":[]},{"id":`+itoa(e.date)+`,"value":"2000-02-29"}]`)),
		http.StatusOK, success())
	delete(want, itoa(e.short))
	delete(want, itoa(e.long))
	delete(want, itoa(e.users))
	res = e.call(http.MethodGet, "/users/"+itoa(e.member.id), &e.member, form("include_custom_profile_fields", "true"))
	e.expect(res, http.StatusOK, success("user", userJSON(e.member, "Mel Member", chat.RoleMember,
		set("timezone", "Europe/Berlin"), set("profile_data", want))))
}

func TestProfileDataErrors(t *testing.T) {
	e := newProfileEnv(t)
	entry := func(id int64, value string) string { return `[{"id":` + itoa(id) + `,"value":` + value + `}]` }
	e.expectError(e.call(http.MethodPatch, "/users/me/profile_data", &e.member, nil), bad,
		chat.CodeRequestVariableMissing, "Missing 'data' argument", "var_name", "data")
	e.expectError(e.call(http.MethodPatch, "/users/me/profile_data", &e.bot, form("data", "[]")), bad,
		chat.CodeBadRequest, "This endpoint does not accept bot requests.")
	if _, err := e.svc.ProvisionUser(context.Background(), 1, chat.NewUser{Email: "gone@example.com", FullName: "Gone User"}); err != nil {
		t.Fatal(err)
	}
	gone := e.call(http.MethodGet, "/users/gone@example.com", &e.owner, nil).body["user"].(map[string]any)["user_id"].(float64)
	goneID := int64(gone)
	e.expect(e.call(http.MethodDelete, "/users/"+itoa(goneID), &e.owner, nil), http.StatusOK, success())
	for _, c := range []struct{ name, data, msg string }{
		{"not JSON", "[", "data is not valid JSON"},
		{"not a list", "{}", "data is not a list"},
		{"not a dict", "[1]", "data[0] is not a dict"},
		{"id missing", `[{"value":"x"}]`, `data[0]["id"] field is missing: Field required`},
		{"value missing", `[{"id":1}]`, `data[0]["value"] field is missing: Field required`},
		{"unexpected key", `[{"id":1,"value":"x","extra":1}]`, `Argument "extra" at data[0] is unexpected`},
		{"id not int", `[{"id":"1","value":"x"}]`, `data[0]["id"] is not an integer`},
		{"unknown field", entry(999, `"x"`), "Field id 999 not found."},
		{"not editable", entry(e.choice, `"vim"`), "You are not allowed to change this field. Contact an administrator to update it."},
		{"short too long", entry(e.short, `"`+strings.Repeat("😀", 51)+`"`), "Phone is too long (limit: 50 characters)"},
		{"long too long", entry(e.long, `"`+strings.Repeat("x", 501)+`"`), "Bio is too long (limit: 500 characters)"},
		{"pronouns too long", entry(e.pronouns, `"`+strings.Repeat("x", 51)+`"`), "Pronouns is too long (limit: 50 characters)"},
		{"not a date", entry(e.date, `"2001-02-29"`), "Birthday is not a date"},
		{"not a URL", entry(e.link, `"javascript:alert(1)"`), "Blog is not a URL"},
		{"relative URL", entry(e.link, `"/me"`), "Blog is not a URL"},
		{"text is a list", entry(e.short, `[1]`), "Phone is not a string"},
		{"users not a list", entry(e.users, `"1"`), "Mentor is not a list"},
		{"unknown user", entry(e.users, `[999]`), "Invalid user ID: 999"},
		{"deactivated user", entry(e.users, "["+itoa(goneID)+"]"), "User with ID " + itoa(goneID) + " is deactivated"},
		{"bot user", entry(e.users, "["+itoa(e.bot.id)+"]"), "User with ID " + itoa(e.bot.id) + " is a bot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.expectError(e.call(http.MethodPatch, "/users/me/profile_data", &e.member, form("data", c.data)), bad, chat.CodeBadRequest, c.msg)
		})
	}
	e.t = t
	// Administrators may change fields that users may not; a bad choice.
	e.expectError(e.call(http.MethodPatch, "/users/me/profile_data", &e.admin, form("data", entry(e.choice, `"emacs"`))),
		bad, chat.CodeBadRequest, "'emacs' is not a valid choice for 'Editor'.")
	e.expect(e.call(http.MethodPatch, "/users/me/profile_data", &e.admin, form("data", entry(e.choice, `"vim"`))), http.StatusOK, success())
}

func TestUpdateUser(t *testing.T) {
	e := newProfileEnv(t)
	patch := func(as *account, target int64, kv ...string) response {
		return e.call(http.MethodPatch, "/users/"+itoa(target), as, form(kv...))
	}
	e.expectError(patch(&e.member, e.guest.id, "full_name", "New Name"), bad, chat.CodeBadRequest, "Insufficient permission")
	e.expectError(patch(&e.admin, 999, "full_name", "New Name"), bad, chat.CodeBadRequest, "No such user")
	e.expectError(patch(&e.admin, e.guest.id, "role", "500"), bad, chat.CodeBadRequest, "Invalid role: Value error, Not in the list of possible values")
	e.expectError(patch(&e.admin, e.guest.id, "role", "true"), bad, chat.CodeBadRequest, "role is not an integer")
	e.expectError(patch(&e.admin, e.member.id, "role", "100"), bad, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
	e.expectError(patch(&e.admin, e.owner.id, "role", "400"), bad, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
	e.expectError(patch(&e.owner, e.owner.id, "role", "200"), bad, chat.CodeBadRequest, "The owner permission cannot be removed from the only organization owner.")
	e.expectError(patch(&e.admin, e.guest.id, "role", "200"), bad, chat.CodeBadRequest, "Guests cannot be organization administrators")
	e.expectError(patch(&e.owner, e.guest.id, "role", "100"), bad, chat.CodeBadRequest, "Guests cannot be organization administrators")
	e.expectError(patch(&e.admin, e.member.id, "full_name", "X"), bad, chat.CodeBadRequest, "Name too short!")
	e.expectError(patch(&e.admin, e.member.id, "full_name", strings.Repeat("n", 101)), bad, chat.CodeBadRequest, "Name too long!")
	e.expectError(patch(&e.admin, e.member.id, "full_name", "Mel *Member*"), bad, chat.CodeBadRequest, "Invalid characters in name!")
	e.expectError(patch(&e.admin, e.member.id, "full_name", "Mel|12"), bad, chat.CodeBadRequest, "Invalid format!")
	e.expectError(patch(&e.admin, e.member.id, "new_email", "mel@example.org"), bad, chat.CodeBadRequest, "User not authorized to change user emails")
	e.expectError(patch(&e.owner, e.member.id, "new_email", "mel@example.org"), bad, chat.CodeBadRequest, "User not authorized to change user emails")
	e.expectError(patch(&e.admin, e.member.id, "profile_data", `[{"id":999,"value":"x"}]`), bad, chat.CodeBadRequest, "Field id 999 not found.")
	// Nothing of a failed request is applied.
	e.expectError(patch(&e.admin, e.member.id, "full_name", "Renamed Mel", "profile_data", `[{"id":999,"value":"x"}]`),
		bad, chat.CodeBadRequest, "Field id 999 not found.")

	// A guest becomes a member, then an administrator.
	e.expect(patch(&e.admin, e.guest.id, "role", "400"), http.StatusOK, success())
	e.expect(patch(&e.admin, e.guest.id, "role", "200"), http.StatusOK, success())
	// An owner makes another owner, who may then be demoted.
	e.expect(patch(&e.owner, e.admin.id, "role", "100"), http.StatusOK, success())
	e.expect(patch(&e.admin, e.owner.id, "role", "300"), http.StatusOK, success())
	// Blank names are ignored; names are trimmed; profile data of
	// fields users may not edit is open to administrators.
	e.expectError(patch(&e.owner, e.member.id, "full_name", "Mel Renamed"), bad, chat.CodeBadRequest, "Insufficient permission")
	e.expect(patch(&e.admin, e.member.id, "full_name", "   "), http.StatusOK, success())
	e.expect(patch(&e.admin, e.member.id, "full_name", "  Mel Renamed ", "profile_data", `[{"id":`+itoa(e.choice)+`,"value":"vim"}]`,
		"unknown", "1"), http.StatusOK, success("ignored_parameters_unsupported", []any{"unknown"}))
	res := e.call(http.MethodGet, "/users/"+itoa(e.member.id), &e.member, form("include_custom_profile_fields", "true"))
	e.expect(res, http.StatusOK, success("user", userJSON(e.member, "Mel Renamed", chat.RoleMember,
		set("timezone", "Europe/Berlin"), set("profile_data", map[string]any{itoa(e.choice): map[string]any{"value": "vim"}}))))
	res = e.call(http.MethodGet, "/users/"+itoa(e.guest.id), &e.member, nil)
	e.expect(res, http.StatusOK, success("user", userJSON(e.guest, "Gus Guest", chat.RoleAdmin)))
	// By email address too.
	e.expect(e.call(http.MethodPatch, "/users/guest@example.com", &e.admin, form("full_name", "Gus Admin")), http.StatusOK, success())
	if got := e.call(http.MethodGet, "/users/"+itoa(e.guest.id), &e.member, nil).body["user"].(map[string]any)["full_name"]; got != "Gus Admin" {
		t.Errorf("full_name after PATCH by email = %v", got)
	}
}

func TestUpdateUserNewEmail(t *testing.T) {
	e := newEnv(t)
	res, err := e.svc.ProvisionUser(context.Background(), 1, chat.NewUser{Email: "boss@example.com", FullName: "Big Boss",
		Role: chat.RoleOwner, CanChangeUserEmails: true})
	if err != nil {
		t.Fatal(err)
	}
	boss := account{res.UserID, res.Email, res.APIKey}
	patch := func(kv ...string) response {
		return e.call(http.MethodPatch, "/users/"+itoa(e.member.id), &boss, form(kv...))
	}
	e.expectError(patch("new_email", "not an address"), bad, chat.CodeBadRequest, "Invalid new email address.")
	e.expectError(patch("new_email", "ADMIN@example.com"), bad, chat.CodeBadRequest, "New email value error: Email is already in use.")
	e.expect(patch("new_email", " mel@example.org "), http.StatusOK, success())
	old := e.member
	e.member.email = "mel@example.org"
	e.expectError(e.call(http.MethodGet, "/users/me", &old, nil), http.StatusUnauthorized, chat.CodeUnauthorized, "Invalid API key")
	res2 := e.call(http.MethodGet, "/users/"+itoa(e.member.id), &e.member, nil)
	e.expect(res2, http.StatusOK, success("user", userJSON(account{e.member.id, "mel@example.org", ""}, "Mel Member",
		chat.RoleMember, set("timezone", "Europe/Berlin"))))
	// The member now authenticates with the new address.
	if r := e.call(http.MethodGet, "/users/me", &e.member, nil); r.status != http.StatusOK {
		t.Errorf("GET /users/me with the new address: %s", r.raw)
	}
}

func TestUpdateStatus(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	party, err := e.svc.ProvisionRealmEmoji(ctx, 1, "party-parrot", e.admin.id)
	if err != nil {
		t.Fatal(err)
	}
	old, err := e.svc.ProvisionRealmEmoji(ctx, 1, "retired_custom", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetRealmEmojiDeactivated(ctx, 1, old, true); err != nil {
		t.Fatal(err)
	}
	post := func(as *account, kv ...string) response {
		return e.call(http.MethodPost, "/users/me/status", as, form(kv...))
	}
	combining := strings.Repeat("e\u0301", 30) // 60 code points, 30 graphemes
	for _, c := range []struct {
		name string
		kv   []string
		msg  string
	}{
		{"too long", []string{"status_text", strings.Repeat("x", 61)}, "status_text is too long (limit: 60 characters)"},
		{"too long combining", []string{"status_text", combining + "\u0301"}, "status_text is too long (limit: 60 characters)"},
		{"too long emoji", []string{"status_text", strings.Repeat("👍🏽", 30) + "!"}, "status_text is too long (limit: 60 characters)"},
		{"too long astral", []string{"status_text", strings.Repeat("𝔸", 61)}, "status_text is too long (limit: 60 characters)"},
		{"code without name", []string{"emoji_code", "1f44d"}, "Client must pass emoji_name if they pass either emoji_code or reaction_type."},
		{"type without name", []string{"status_text", "hi", "reaction_type", "unicode_emoji"}, "Client must pass emoji_name if they pass either emoji_code or reaction_type."},
		{"nothing", nil, "Client did not pass any new values."},
		{"away not bool", []string{"away", "1"}, "away is not a boolean"},
		{"unknown name", []string{"emoji_name", "no_such_emoji"}, "Emoji 'no_such_emoji' does not exist"},
		{"deactivated custom by name", []string{"emoji_name", "retired_custom"}, "Emoji 'retired_custom' does not exist"},
		{"bad code", []string{"emoji_name", "smile", "emoji_code", "zzzz", "reaction_type", "unicode_emoji"}, "Invalid emoji code"},
		{"name mismatch", []string{"emoji_name", "smile", "emoji_code", "1f44d", "reaction_type", "unicode_emoji"}, "Invalid emoji name."},
		{"bad type", []string{"emoji_name", "smile", "emoji_code", "1f44d", "reaction_type", "sticker"}, "Invalid emoji type."},
		{"custom bad id", []string{"emoji_name", "party-parrot", "emoji_code", "999", "reaction_type", "realm_emoji"}, "Invalid custom emoji."},
		{"custom not a number", []string{"emoji_name", "party-parrot", "emoji_code", "abc", "reaction_type", "realm_emoji"}, "Invalid custom emoji."},
		{"custom name mismatch", []string{"emoji_name", "parrot", "emoji_code", itoa(party), "reaction_type", "realm_emoji"}, "Invalid custom emoji name."},
		{"custom deactivated", []string{"emoji_name", "retired_custom", "emoji_code", itoa(old), "reaction_type", "realm_emoji"}, "This custom emoji has been deactivated."},
		{"extra bad code", []string{"emoji_name", "zulip", "emoji_code", "zulipp", "reaction_type", "service_extra_emoji"}, "Invalid emoji code"},
		{"extra bad name", []string{"emoji_name", "zuli", "emoji_code", "zulip", "reaction_type", "service_extra_emoji"}, "Invalid emoji name."},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.expectError(post(&e.member, c.kv...), bad, chat.CodeBadRequest, c.msg)
		})
	}
	e.t = t
	e.expectError(post(&e.bot, "status_text", "beep"), bad, chat.CodeBadRequest, "This endpoint does not accept bot requests.")

	status := func(as account) chat.StatusView {
		t.Helper()
		st, err := e.svc.UserStatus(ctx, chat.AsUser(e.owner.id), as.id)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	check := func(what string, want chat.StatusView) {
		t.Helper()
		if got := status(e.member); got != want {
			t.Errorf("%s: status %+v, want %+v", what, got, want)
		}
	}
	// Exactly 60 code points pass whatever their bytes or graphemes, after
	// trimming.
	for _, text := range []string{combining, strings.Repeat("👍🏽", 30), strings.Repeat("𝔸", 60), "  " + strings.Repeat("x", 60) + "\n"} {
		e.expect(post(&e.member, "status_text", text), http.StatusOK, success())
		check("text "+text, chat.StatusView{UserStatus: chat.UserStatus{Text: strings.TrimSpace(text)}})
	}
	e.expect(post(&e.member, "status_text", "In a meeting", "emoji_name", "thumbsup"), http.StatusOK, success())
	check("alias", chat.StatusView{UserStatus: chat.UserStatus{Text: "In a meeting", EmojiName: "thumbsup", EmojiCode: "1f44d", ReactionType: chat.UnicodeEmoji}})
	e.expect(post(&e.member, "emoji_name", "party-parrot"), http.StatusOK, success())
	check("custom", chat.StatusView{UserStatus: chat.UserStatus{Text: "In a meeting", EmojiName: "party-parrot", EmojiCode: itoa(party), ReactionType: chat.RealmEmojiType}})
	e.expect(post(&e.member, "emoji_name", "zulip", "away", "true"), http.StatusOK, success())
	check("service", chat.StatusView{UserStatus: chat.UserStatus{Text: "In a meeting", EmojiName: "zulip", EmojiCode: "zulip", ReactionType: chat.ServiceExtraEmoji}, Away: true})
	e.expect(post(&e.member, "emoji_name", "octopus", "emoji_code", "1f419", "reaction_type", "unicode_emoji", "away", "false"), http.StatusOK, success())
	check("full triple", chat.StatusView{UserStatus: chat.UserStatus{Text: "In a meeting", EmojiName: "octopus", EmojiCode: "1f419", ReactionType: chat.UnicodeEmoji}})
	e.expect(post(&e.member, "status_text", "", "emoji_name", "", "emoji_code", "1f419"), http.StatusOK, success())
	check("cleared", chat.StatusView{})
	// away is the inverse of the presence setting.
	e.expect(e.call(http.MethodPatch, "/settings", &e.member, form("presence_enabled", "false")), http.StatusOK, success())
	check("presence off", chat.StatusView{Away: true})
}

func TestSettingsEmailVisibility(t *testing.T) {
	e := newEnv(t)
	e.expectError(e.call(http.MethodPatch, "/settings", &e.member, form("email_address_visibility", "6")), bad, chat.CodeBadRequest,
		"Invalid email_address_visibility: Value error, Not in the list of possible values")
	e.expectError(e.call(http.MethodPatch, "/settings", &e.member, form("presence_enabled", "yes")), bad, chat.CodeBadRequest,
		"presence_enabled is not valid JSON")
	e.expectError(e.call(http.MethodPatch, "/settings", &e.bot, form("presence_enabled", "true")), bad, chat.CodeBadRequest,
		"This endpoint does not accept bot requests.")
	e.expect(e.call(http.MethodPatch, "/settings", &e.member, form("email_address_visibility", "4")), http.StatusOK, success())
	res := e.call(http.MethodGet, "/users/"+itoa(e.member.id), &e.admin, nil)
	e.expect(res, http.StatusOK, success("user", userJSON(e.member, "Mel Member", chat.RoleMember,
		set("timezone", "Europe/Berlin"), hiddenEmail(e.member.id), withAvatar(e.member.email))))

	e.expectError(e.call(http.MethodPatch, "/realm/user_settings_defaults", &e.moderator, form("email_address_visibility", "x")),
		bad, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
	e.expectError(e.call(http.MethodPatch, "/realm/user_settings_defaults", &e.admin, form("email_address_visibility", "0")),
		bad, chat.CodeBadRequest, "Invalid email_address_visibility: Value error, Not in the list of possible values")
	e.expect(e.call(http.MethodPatch, "/realm/user_settings_defaults", &e.admin, form("email_address_visibility", "3")), http.StatusOK, success())
	id := e.call(http.MethodPost, "/users", &e.admin, form("email", "new@example.com", "password", "new-password", "full_name", "New User")).body["user_id"].(float64)
	res = e.call(http.MethodGet, "/users/"+itoa(int64(id)), &e.moderator, nil)
	if got := res.body["user"].(map[string]any)["delivery_email"]; got != nil {
		t.Errorf("new user's address visible to a moderator under the admins-only default: %v", got)
	}
}

func TestJWTFetchAPIKey(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	e := newEnvWith(t, memory.New(), func(c *chat.Config) { c.JWTSecret = secret })
	sign := func(method jwt.SigningMethod, claims jwt.MapClaims) string {
		t.Helper()
		s, err := jwt.NewWithClaims(method, claims).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	post := func(kv ...string) response { return e.call(http.MethodPost, "/jwt/fetch_api_key", nil, form(kv...)) }
	e.expectError(post(), bad, chat.CodeBadRequest, "No JSON web token passed in request")
	e.expectError(post("token", "not.a.jwt"), bad, chat.CodeBadRequest, "Bad JSON web token")
	e.expectError(post("token", sign(jwt.SigningMethodHS384, jwt.MapClaims{"email": e.member.email})), bad, chat.CodeBadRequest, "Bad JSON web token")
	e.expectError(post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"email": e.member.email, "exp": joined.Add(-time.Minute).Unix()})),
		bad, chat.CodeBadRequest, "Bad JSON web token")
	e.expectError(post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "x"})), bad, chat.CodeBadRequest, "No email specified in JSON web token claims")
	e.expectError(post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"email": "nobody-here@example.com"})),
		http.StatusUnauthorized, chat.CodeAuthenticationFailed, "Your username or password is incorrect")
	e.expect(e.call(http.MethodDelete, "/users/"+itoa(e.guest.id), &e.owner, nil), http.StatusOK, success())
	res := post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"email": e.guest.email}))
	e.expectError(res, http.StatusUnauthorized, chat.CodeUserDeactivated, "Account is deactivated")
	if h := res.header.Get("WWW-Authenticate"); h != "" {
		t.Errorf("WWW-Authenticate %q on a JWT login failure", h)
	}
	e.expect(post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"email": "MEMBER@example.com", "exp": joined.Add(time.Minute).Unix()})),
		http.StatusOK, success("api_key", e.member.key, "email", e.member.email))
	e.expect(post("token", sign(jwt.SigningMethodHS256, jwt.MapClaims{"email": e.nobody.email}), "include_profile", "true"),
		http.StatusOK, success("api_key", e.nobody.key, "email", e.nobody.email, "user",
			userJSON(e.nobody, "No Body", chat.RoleMember, placeholderOnly(e.nobody.id), withAvatar(e.nobody.email))))
	r := e.call(http.MethodGet, "/jwt/fetch_api_key", nil, nil)
	if r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /jwt/fetch_api_key: status %d", r.status)
	}

	disabled := newEnv(t)
	disabled.expectError(disabled.call(http.MethodPost, "/jwt/fetch_api_key", nil, form("token", "x")), bad, chat.CodeBadRequest,
		"JWT authentication is not enabled for this organization")
}
