package httpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/storage/memory"
)

// members is the expected members list as a viewer of the role sees it,
// with client_gravatar on.
func (e *env) members(viewer chat.Role) []any {
	// visible reports whether the viewer may see an address of visibility v.
	visible := func(v chat.EmailVisibility) bool {
		switch v {
		case chat.EmailVisibleMembers:
			return viewer != chat.RoleGuest
		case chat.EmailVisibleModerators:
			return viewer.IsModerator()
		case chat.EmailVisibleAdmins:
			return viewer.IsAdmin()
		}
		return false
	}
	hidden := func(a account, v chat.EmailVisibility) []userOpt {
		if visible(v) {
			return []userOpt{placeholderOnly(a.id)}
		}
		return []userOpt{hiddenEmail(a.id), withAvatar(a.email)}
	}
	return []any{
		userJSON(e.owner, "Olivia Owner", chat.RoleOwner),
		userJSON(e.admin, "Adam Admin", chat.RoleAdmin),
		userJSON(e.moderator, "Mona Moderator", chat.RoleModerator),
		userJSON(e.member, "Mel Member", chat.RoleMember, set("timezone", "Europe/Berlin")),
		userJSON(e.guest, "Gus Guest", chat.RoleGuest),
		botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id)),
		botJSON(e.webhook, "Hook Bot", chat.BotIncomingWebhook, nil),
		userJSON(e.membersOnly, "Members Only", chat.RoleMember, hidden(e.membersOnly, chat.EmailVisibleMembers)...),
		userJSON(e.adminsOnly, "Admins Only", chat.RoleMember, hidden(e.adminsOnly, chat.EmailVisibleAdmins)...),
		userJSON(e.modsOnly, "Mods Only", chat.RoleMember, hidden(e.modsOnly, chat.EmailVisibleModerators)...),
		userJSON(e.nobody, "No Body", chat.RoleMember, hidden(e.nobody, chat.EmailVisibleNobody)...),
	}
}

func TestGetUsersEachRoleView(t *testing.T) {
	e := newEnv(t)
	for _, v := range []struct {
		name string
		as   account
		role chat.Role
	}{
		{"owner", e.owner, chat.RoleOwner},
		{"administrator", e.admin, chat.RoleAdmin},
		{"moderator", e.moderator, chat.RoleModerator},
		{"member", e.member, chat.RoleMember},
		{"guest", e.guest, chat.RoleGuest},
	} {
		t.Run(v.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodGet, "/users", &v.as, nil)
			e.expect(res, http.StatusOK, success("members", e.members(v.role)))
		})
	}
}

func TestGetUsersOwnHiddenAddressIsVisible(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users", &e.nobody, form("user_ids", "["+itoa(e.nobody.id)+"]"))
	e.expect(res, http.StatusOK, success("members", []any{
		userJSON(e.nobody, "No Body", chat.RoleMember, placeholderOnly(e.nobody.id)),
	}))
}

func TestGetUsersOptions(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users", &e.member, form(
		"client_gravatar", "false",
		"include_custom_profile_fields", "true",
		"user_ids", "["+itoa(e.bot.id)+","+itoa(e.owner.id)+",9999,"+itoa(e.owner.id)+"]",
	))
	e.expect(res, http.StatusOK, success("members", []any{
		userJSON(e.owner, "Olivia Owner", chat.RoleOwner, withAvatar(e.owner.email), withProfileData()),
		botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id), withAvatar(e.bot.email)),
	}))
}

func TestGetUserByID(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users/"+itoa(e.adminsOnly.id), &e.member, nil)
	e.expect(res, http.StatusOK, success("user",
		userJSON(e.adminsOnly, "Admins Only", chat.RoleMember, hiddenEmail(e.adminsOnly.id), withAvatar(e.adminsOnly.email))))

	res = e.call(http.MethodGet, "/users/"+itoa(e.adminsOnly.id), &e.admin, form("client_gravatar", "false"))
	e.expect(res, http.StatusOK, success("user",
		userJSON(e.adminsOnly, "Admins Only", chat.RoleMember, placeholderOnly(e.adminsOnly.id), withAvatar(e.adminsOnly.email))))

	for _, id := range []string{"9999", "0"} {
		res = e.call(http.MethodGet, "/users/"+id, &e.member, nil)
		e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "No such user")
	}
}

func TestGetUserByEmail(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name  string
		as    account
		email string
		want  map[string]any
	}{
		{"real address", e.guest, "member@example.com",
			userJSON(e.member, "Mel Member", chat.RoleMember, set("timezone", "Europe/Berlin"))},
		{"real address in another case", e.guest, "MEMBER@EXAMPLE.COM",
			userJSON(e.member, "Mel Member", chat.RoleMember, set("timezone", "Europe/Berlin"))},
		{"address visible to members", e.member, "members.only@example.com",
			userJSON(e.membersOnly, "Members Only", chat.RoleMember, placeholderOnly(e.membersOnly.id))},
		{"placeholder of a hidden address", e.guest, "user" + itoa(e.nobody.id) + "@localhost",
			userJSON(e.nobody, "No Body", chat.RoleMember, hiddenEmail(e.nobody.id), withAvatar(e.nobody.email))},
		{"own hidden address", e.nobody, "nobody@example.com",
			userJSON(e.nobody, "No Body", chat.RoleMember, placeholderOnly(e.nobody.id))},
		{"bot", e.guest, "helper-bot@example.com",
			botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodGet, "/users/"+c.email, &c.as, nil)
			e.expect(res, http.StatusOK, success("user", c.want))
		})
	}

	for _, c := range []struct {
		name  string
		as    account
		email string
	}{
		{"address hidden from guests", e.guest, "members.only@example.com"},
		{"address hidden from everyone", e.owner, "nobody@example.com"},
		{"unknown address", e.owner, "ghost@example.com"},
		{"placeholder of an unknown user", e.owner, "user9999@localhost"},
		{"placeholder of another domain", e.owner, "user" + itoa(e.nobody.id) + "@example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodGet, "/users/"+c.email, &c.as, nil)
			e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "No such user")
		})
	}
}

func TestGetMe(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users/me", &e.nobody, nil)
	want := userJSON(e.nobody, "No Body", chat.RoleMember, placeholderOnly(e.nobody.id), withAvatar(e.nobody.email), withProfileData())
	for k, v := range success() {
		want[k] = v
	}
	e.expect(res, http.StatusOK, want)

	res = e.call(http.MethodGet, "/users/me", &e.bot, nil)
	want = botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id), withAvatar(e.bot.email))
	for k, v := range success() {
		want[k] = v
	}
	e.expect(res, http.StatusOK, want)
}

func TestCreateUser(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/users", &e.admin, form(
		"email", "new@example.com", "password", "new-password", "full_name", "  New Person ", "short_name", "np"))
	e.expect(res, http.StatusOK, success("user_id", float64(e.nobody.id+1), "ignored_parameters_unsupported", []any{"short_name"}))

	created := account{e.nobody.id + 1, "new@example.com", ""}
	res = e.call(http.MethodGet, "/users/"+itoa(created.id), &e.owner, nil)
	e.expect(res, http.StatusOK, success("user", userJSON(created, "New Person", chat.RoleMember)))

	res = e.call(http.MethodPost, "/fetch_api_key", nil, form("username", "new@example.com", "password", "new-password"))
	if res.status != http.StatusOK {
		t.Fatalf("new user cannot log in: %s", res.raw)
	}
}

func TestCreateUserErrors(t *testing.T) {
	e := newEnv(t)
	valid := map[string]string{"email": "new@example.com", "password": "long-enough", "full_name": "New Person"}
	cases := []struct {
		name     string
		as       account
		override []string
		code     chat.Code
		msg      string
	}{
		{"moderator", e.moderator, nil, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator"},
		{"guest", e.guest, nil, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator"},
		{"name too long", e.owner, []string{"full_name", strings.Repeat("n", 101)}, chat.CodeBadRequest, "Name too long!"},
		{"name too short", e.owner, []string{"full_name", " x "}, chat.CodeBadRequest, "Name too short!"},
		{"name with @", e.owner, []string{"full_name", "at@home"}, chat.CodeBadRequest, "Invalid characters in name!"},
		{"name like a mention", e.owner, []string{"full_name", "Someone|12"}, chat.CodeBadRequest, "Invalid format!"},
		{"bad address", e.owner, []string{"email", "not an address"}, chat.CodeBadRequest, "Bad name or username"},
		{"address in use", e.owner, []string{"email", "MEMBER@example.com"}, chat.CodeBadRequest, "Email is already in use."},
		{"weak password", e.owner, []string{"password", "12345"}, chat.CodeBadRequest, "The password is too weak."},
		{"empty password", e.owner, []string{"password", ""}, chat.CodeBadRequest, "The password is too weak."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			f := form()
			for k, v := range valid {
				f.Set(k, v)
			}
			for i := 0; i+1 < len(c.override); i += 2 {
				f.Set(c.override[i], c.override[i+1])
			}
			res := e.call(http.MethodPost, "/users", &c.as, f)
			e.expectError(res, http.StatusBadRequest, c.code, c.msg)
		})
	}
	// Nothing was created by the failed requests.
	res := e.call(http.MethodGet, "/users", &e.owner, nil)
	if n := len(res.body["members"].([]any)); n != 11 {
		t.Errorf("%d users after failed creations, want 11", n)
	}
}

func TestDeactivateUser(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodDelete, "/users/"+itoa(e.member.id), &e.admin, nil)
	e.expect(res, http.StatusOK, success())

	// The member's bot went with them, and both show as inactive.
	res = e.call(http.MethodGet, "/users", &e.owner, form("user_ids", "["+itoa(e.member.id)+","+itoa(e.bot.id)+"]"))
	e.expect(res, http.StatusOK, success("members", []any{
		userJSON(e.member, "Mel Member", chat.RoleMember, set("timezone", "Europe/Berlin"), set("is_active", false)),
		botJSON(e.bot, "Helper Bot", chat.BotGeneric, float64(e.member.id), set("is_active", false)),
	}))
	res = e.call(http.MethodGet, "/users/me", &e.bot, nil)
	e.expectError(res, http.StatusUnauthorized, chat.CodeUnauthorized, "Account is deactivated")

	res = e.call(http.MethodPost, "/users/"+itoa(e.member.id)+"/reactivate", &e.admin, nil)
	e.expect(res, http.StatusOK, success())
	res = e.call(http.MethodGet, "/users/me", &e.member, nil)
	if res.status != http.StatusOK {
		t.Errorf("reactivated user: %s", res.raw)
	}
	// Reactivating an active user is accepted as it is.
	res = e.call(http.MethodPost, "/users/"+itoa(e.member.id)+"/reactivate", &e.admin, nil)
	e.expect(res, http.StatusOK, success())
}

func TestDeactivateUserErrors(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.owner.id), e.guest.id); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		as     account
		target string
		code   chat.Code
		msg    string
	}{
		{"unknown user", e.admin, "9999", chat.CodeBadRequest, "No such user"},
		{"not an ID", e.admin, "member@example.com", chat.CodeBadRequest, "No such user"},
		{"bot", e.admin, itoa(e.bot.id), chat.CodeBadRequest, "No such user"},
		{"already deactivated", e.member, itoa(e.guest.id), chat.CodeBadRequest, "User is deactivated"},
		{"not an administrator", e.moderator, itoa(e.member.id), chat.CodeBadRequest, "Insufficient permission"},
		{"owner by an administrator", e.admin, itoa(e.owner.id), chat.CodeUnauthorizedPrincipal, "Must be an organization owner"},
		{"only owner", e.owner, itoa(e.owner.id), chat.CodeBadRequest, "Cannot deactivate the only organization owner"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodDelete, "/users/"+c.target, &c.as, nil)
			e.expectError(res, http.StatusBadRequest, c.code, c.msg)
		})
	}
}

func TestReactivateUserErrors(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.svc.DeactivateUser(ctx, chat.AsUser(e.owner.id), e.moderator.id); err != nil {
		t.Fatal(err)
	}
	res := e.call(http.MethodPost, "/users/9999/reactivate", &e.admin, nil)
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "No such user")
	res = e.call(http.MethodPost, "/users/"+itoa(e.moderator.id)+"/reactivate", &e.member, nil)
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "Insufficient permission")
}

func TestFetchAPIKey(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/fetch_api_key", nil, form("username", "MEMBER@example.com", "password", "member-password"))
	e.expect(res, http.StatusOK, success("api_key", e.member.key, "email", e.member.email, "user_id", float64(e.member.id)))

	cases := []struct {
		name, username, password string
		status                   int
		code                     chat.Code
		msg                      string
	}{
		{"wrong password", e.member.email, "nope", http.StatusUnauthorized, chat.CodeAuthenticationFailed, "Your username or password is incorrect"},
		{"unknown user", "ghost@example.com", "whatever", http.StatusUnauthorized, chat.CodeAuthenticationFailed, "Your username or password is incorrect"},
		{"no password set", e.moderator.email, "", http.StatusUnauthorized, chat.CodeAuthenticationFailed, "Your username or password is incorrect"},
		{"not an address", "member", "member-password", http.StatusBadRequest, chat.CodeBadRequest, "Enter a valid email address."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodPost, "/fetch_api_key", nil, form("username", c.username, "password", c.password))
			e.expectError(res, c.status, c.code, c.msg)
			if res.header.Get("WWW-Authenticate") != "" {
				t.Errorf("login failure carries a WWW-Authenticate challenge")
			}
		})
	}

	e.t = t
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.owner.id), e.member.id); err != nil {
		t.Fatal(err)
	}
	res = e.call(http.MethodPost, "/fetch_api_key", nil, form("username", e.member.email, "password", "member-password"))
	e.expectError(res, http.StatusUnauthorized, chat.CodeUserDeactivated, "Account is deactivated")
	if err := e.svc.DeactivateOrg(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	res = e.call(http.MethodPost, "/fetch_api_key", nil, form("username", e.owner.email, "password", "owner-password"))
	e.expectError(res, http.StatusUnauthorized, chat.CodeRealmDeactivated, "This organization has been deactivated")
}

func TestFetchAPIKeyFirstLoginSetsDateJoined(t *testing.T) {
	now := joined
	store := memory.New()
	svc := chat.New(store, chat.Config{Now: func() time.Time { return now }, PasswordCost: bcrypt.MinCost})
	org, err := svc.CreateOrg(context.Background(), chat.NewOrg{
		Name: "Org", Host: host, OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner", OwnerPassword: "owner-password",
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, svc: svc, h: validated(t, httpserver.New(svc, httpserver.Options{}))}
	owner := account{org.UserID, org.Email, org.APIKey}

	now = joined.Add(48 * time.Hour)
	e.call(http.MethodPost, "/fetch_api_key", nil, form("username", owner.email, "password", "owner-password"))
	now = joined.Add(96 * time.Hour)
	e.call(http.MethodPost, "/fetch_api_key", nil, form("username", owner.email, "password", "owner-password"))

	res := e.call(http.MethodGet, "/users/me", &owner, nil)
	if got := res.body["date_joined"]; got != "2025-04-01T12:34+00:00" {
		t.Errorf("date_joined = %v, want the first login's time", got)
	}
}

func TestFetchAPIKeyUnknownHostWithSeveralOrganizations(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.CreateOrg(context.Background(), chat.NewOrg{
		Name: "Other", Host: "other.example.com", OwnerEmail: "boss@other.example.com", OwnerName: "Other Boss",
	}); err != nil {
		t.Fatal(err)
	}
	r := e.request(http.MethodPost, "/fetch_api_key", nil, form("username", e.owner.email, "password", "owner-password"))
	r.Host = "unknown.example.com"
	e.expectError(e.do(r), http.StatusNotFound, chat.CodeNonexistentSubdomain, "Invalid subdomain")

	r = e.request(http.MethodGet, "/server_settings", nil, nil)
	r.Host = "unknown.example.com"
	e.expectError(e.do(r), http.StatusBadRequest, chat.CodeBadRequest, "Invalid subdomain")
}

func TestServerSettings(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/server_settings", nil, form("extra", "1"))
	e.expect(res, http.StatusOK, success(
		"authentication_methods", map[string]any{
			"password": true, "dev": false, "email": true, "ldap": false, "remoteuser": false,
			"code_host_a": false, "directory_idp": false, "code_host_b": false, "device_vendor_idp": false,
			"search_vendor_idp": false, "saml": false, "openid connect": false, "chat_vendor_idp": false,
		},
		"external_authentication_methods", []any{},
		"service_feature_level", float64(chat.FeatureLevel),
		"service_version", chat.ServiceVersion,
		"service_merge_base", chat.ServiceVersion,
		"zulip_feature_level", float64(chat.FeatureLevel),
		"zulip_version", chat.ServiceVersion,
		"zulip_merge_base", chat.ServiceVersion,
		"push_notifications_enabled", false,
		"is_incompatible", false,
		"email_auth_enabled", true,
		"require_email_format_usernames", true,
		"realm_uri", "http://localhost:9991",
		"realm_url", "http://localhost:9991",
		"realm_name", "Test Org",
		"realm_icon", "https://secure.gravatar.com/avatar/82bf828208f549032b875ded9decfbea?d=identicon",
		"realm_description", "",
		"realm_web_public_access_enabled", false,
		"ignored_parameters_unsupported", []any{"extra"},
	))
}

// TestUsersEnvelopeBytes checks the answer byte for byte: key order,
// no spaces, the trailing newline.
func TestUsersEnvelopeBytes(t *testing.T) {
	e := newEnv(t)
	users, err := e.svc.Users(context.Background(), chat.AsUser(e.owner.id), chat.UserQuery{ClientGravatar: true})
	if err != nil {
		t.Fatal(err)
	}
	res := e.call(http.MethodGet, "/users", &e.owner, nil)
	want := `{"result":"success","msg":"","members":` + string(users.AppendJSON(nil)) + "}\n"
	if diff := cmp.Diff(want, res.raw); diff != "" {
		t.Errorf("raw body (-want +got):\n%s", diff)
	}
}

// TestAlertWordsAndMutedUsersRoutes: the routes read the reference's
// parameters and answer its shapes.
func TestAlertWordsAndMutedUsersRoutes(t *testing.T) {
	e := newEnv(t)
	e.expect(e.call(http.MethodPost, "/users/me/alert_words", &e.member, form("alert_words", `["Deploy", "oncall"]`)),
		http.StatusOK, success("alert_words", []any{"Deploy", "oncall"}))
	e.expect(e.call(http.MethodDelete, "/users/me/alert_words", &e.member, form("alert_words", `["deploy"]`)),
		http.StatusOK, success("alert_words", []any{"oncall"}))
	e.expect(e.call(http.MethodGet, "/users/me/alert_words", &e.member, nil), http.StatusOK, success("alert_words", []any{"oncall"}))
	e.expectError(e.call(http.MethodPost, "/users/me/alert_words", &e.member, nil),
		http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'alert_words' argument", "var_name", "alert_words")
	e.expectError(e.call(http.MethodPost, "/users/me/alert_words", &e.member, form("alert_words", `[1]`)),
		http.StatusBadRequest, chat.CodeBadRequest, "alert_words[0] is not a string")
	path := "/users/me/muted_users/" + itoa(e.admin.id)
	e.expect(e.call(http.MethodPost, path, &e.member, nil), http.StatusOK, success())
	e.expectError(e.call(http.MethodPost, path, &e.member, nil), http.StatusBadRequest, chat.CodeBadRequest, "User already muted")
	e.expect(e.call(http.MethodDelete, path, &e.member, nil), http.StatusOK, success())
	e.expectError(e.call(http.MethodPost, "/users/me/muted_users/x", &e.member, nil), http.StatusBadRequest, chat.CodeBadRequest, "No such user")
}

// TestPersonalSettingsRoutes: PATCH /settings (and its older routes) keeps
// display and notification settings, strings sent plain and the rest as
// JSON; register shows them.
func TestPersonalSettingsRoutes(t *testing.T) {
	e := newEnv(t)
	e.expect(e.call(http.MethodPatch, "/settings", &e.member, form("enter_sends", "true", "emojiset", "text", "color_scheme", "2")),
		http.StatusOK, success())
	e.expect(e.call(http.MethodPatch, "/settings/notifications", &e.member, form("enable_stream_push_notifications", "true")),
		http.StatusOK, success())
	for _, c := range []struct{ key, value, msg string }{
		{"color_scheme", "9", "Invalid color_scheme"},
		{"enter_sends", "1", "enter_sends is not a boolean"},
		{"emojiset", "comic", "Invalid emojiset"},
		{"web_font_size_px", "-3", "web_font_size_px is not an integer"},
	} {
		e.expectError(e.call(http.MethodPatch, "/settings/display", &e.member, form(c.key, c.value)), http.StatusBadRequest, chat.CodeBadRequest, c.msg)
	}
	res := e.call(http.MethodPost, "/register", &e.member, form("fetch_event_types", `["user_settings"]`,
		"client_capabilities", `{"user_settings_object": true}`))
	got := res.body["user_settings"].(map[string]any)
	for k, want := range map[string]any{"enter_sends": true, "emojiset": "text", "color_scheme": float64(2),
		"enable_stream_push_notifications": true, "enable_sounds": true} {
		if got[k] != want {
			t.Errorf("user_settings[%s] = %#v, want %#v", k, got[k], want)
		}
	}
}
