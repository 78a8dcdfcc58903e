package httpserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

func TestUnknownRouteAnswersJSON404(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/api/v1/no/such/route", "/api/v1/users/1/nothing", "/elsewhere"} {
		res := e.do(httptest.NewRequest(http.MethodGet, "http://"+host+path, nil))
		e.expectError(res, http.StatusNotFound, chat.CodeNotFound, "Not Found")
	}
}

func TestWrongMethodAnswersJSON405(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPut, "/users", &e.owner, nil)
	e.expect(res, http.StatusMethodNotAllowed, map[string]any{
		"result": "error", "msg": "Method Not Allowed",
		"allowed_methods": []any{"GET", "HEAD", "POST"},
	})
	if got := res.header.Get("Allow"); got != "GET, HEAD, POST" {
		t.Errorf("Allow = %q", got)
	}
	res = e.call(http.MethodPost, "/server_settings", nil, nil)
	e.expect(res, http.StatusMethodNotAllowed, map[string]any{
		"result": "error", "msg": "Method Not Allowed", "allowed_methods": []any{"GET", "HEAD"},
	})
}

func TestOptionsListsMethods(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodOptions, "/users/me", nil, nil)
	if res.status != http.StatusNoContent || res.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("OPTIONS: status %d, Allow %q", res.status, res.header.Get("Allow"))
	}
}

func TestHeadServesGet(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	res, err := http.Head(srv.URL + "/api/v1/server_settings")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(body) != 0 || res.ContentLength <= 0 {
		t.Errorf("HEAD: status %d, Content-Length %d, body %q", res.StatusCode, res.ContentLength, body)
	}
}

func TestAuthenticationErrors(t *testing.T) {
	e := newEnv(t)
	const unauthorized = http.StatusUnauthorized
	cases := []struct {
		name   string
		header string
		status int
		code   chat.Code
		msg    string
	}{
		{"no header", "", unauthorized, chat.CodeUnauthorized, "Not logged in: API authentication or user session required"},
		{"not basic", "Bearer " + e.owner.key, http.StatusBadRequest, chat.CodeBadRequest, "This endpoint requires HTTP basic authentication."},
		{"bad base64", "Basic !!!not-base64", unauthorized, chat.CodeUnauthorized, "Invalid authorization header for basic auth"},
		{"no colon", "Basic " + "b3duZXJAZXhhbXBsZS5jb20=", unauthorized, chat.CodeUnauthorized, "Invalid authorization header for basic auth"},
		{"two colons", basic(e.owner.email, e.owner.key+":x"), unauthorized, chat.CodeUnauthorized, "Invalid authorization header for basic auth"},
		{"short key", basic(e.owner.email, "abc"), unauthorized, chat.CodeUnauthorized, "Malformed API key"},
		{"bad key characters", basic(e.owner.email, strings.Repeat("-", 32)), unauthorized, chat.CodeUnauthorized, "Malformed API key"},
		{"unknown key", basic(e.owner.email, strings.Repeat("a", 32)), unauthorized, chat.CodeUnauthorized, "Invalid API key"},
		{"another user's key", basic(e.owner.email, e.member.key), unauthorized, chat.CodeUnauthorized, "Invalid API key"},
		{"webhook bot", basic(e.webhook.email, e.webhook.key), unauthorized, chat.CodeUnauthorized, "This API is not available to incoming webhook bots."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			r := e.request(http.MethodGet, "/users/me", nil, nil)
			if c.header != "" {
				r.Header.Set("Authorization", c.header)
			}
			res := e.do(r)
			e.expectError(res, c.status, c.code, c.msg)
			wantChallenge := ""
			if c.status == unauthorized {
				wantChallenge = `Basic realm="zulip"`
			}
			if got := res.header.Get("WWW-Authenticate"); got != wantChallenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, wantChallenge)
			}
		})
	}
}

func TestAuthenticationAcceptsCaseAndSpaceVariants(t *testing.T) {
	e := newEnv(t)
	r := e.request(http.MethodGet, "/users/me", nil, nil)
	r.Header.Set("Authorization", "basic "+strings.TrimPrefix(basic(" OWNER@Example.com ", e.owner.key+" "), "Basic "))
	res := e.do(r)
	if res.status != http.StatusOK || res.body["user_id"] != float64(e.owner.id) {
		t.Errorf("status %d, body %s", res.status, res.raw)
	}
}

func TestDeactivatedAccountAndOrganization(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.admin.id), e.member.id); err != nil {
		t.Fatal(err)
	}
	res := e.call(http.MethodGet, "/users/me", &e.member, nil)
	e.expectError(res, http.StatusUnauthorized, chat.CodeUnauthorized, "Account is deactivated")

	if err := e.svc.DeactivateOrg(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	res = e.call(http.MethodGet, "/users/me", &e.owner, nil)
	e.expectError(res, http.StatusUnauthorized, chat.CodeUnauthorized, "This organization has been deactivated")
}

func TestKeyOfAnotherOrganization(t *testing.T) {
	e := newEnv(t)
	other, err := e.svc.CreateOrg(context.Background(), chat.NewOrg{
		Name: "Other", Host: "other.example.com", OwnerEmail: "boss@other.example.com", OwnerName: "Other Boss",
	})
	if err != nil {
		t.Fatal(err)
	}
	res := e.call(http.MethodGet, "/users/me", &account{other.UserID, other.Email, other.APIKey}, nil)
	e.expectError(res, http.StatusUnauthorized, chat.CodeUnauthorized, "Account is not associated with this subdomain")

	r := e.request(http.MethodGet, "/users/me", &account{other.UserID, other.Email, other.APIKey}, nil)
	r.Host = "other.example.com"
	if res := e.do(r); res.status != http.StatusOK || res.body["email"] != other.Email {
		t.Errorf("own host: status %d, body %s", res.status, res.raw)
	}
}

func TestJSONParameterDecoding(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, key, value, msg string
	}{
		{"python bool", "client_gravatar", "True", "client_gravatar is not valid JSON"},
		{"empty bool", "client_gravatar", "", "client_gravatar is not valid JSON"},
		{"number as bool", "client_gravatar", "1", "client_gravatar is not a boolean"},
		{"string as bool", "include_custom_profile_fields", `"true"`, "include_custom_profile_fields is not a boolean"},
		{"trailing data", "client_gravatar", "true false", "client_gravatar is not valid JSON"},
		{"object as list", "user_ids", "{}", "user_ids is not a list"},
		{"string in list", "user_ids", `[1,"2"]`, "user_ids[1] is not an integer"},
		{"float in list", "user_ids", `[1.0]`, "user_ids[0] is not an integer"},
		{"bool in list", "user_ids", `[true]`, "user_ids[0] is not an integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			res := e.call(http.MethodGet, "/users", &e.owner, form(c.key, c.value))
			e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, c.msg)
		})
	}
}

func TestOnlyTheFirstParameterErrorIsReported(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users", &e.owner, form("client_gravatar", "1", "user_ids", "x"))
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "client_gravatar is not a boolean")
}

func TestMissingParameter(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/users", &e.admin, form("email", "new@example.com"))
	e.expectError(res, http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'password' argument", "var_name", "password")
}

func TestParameterSources(t *testing.T) {
	e := newEnv(t)
	ids := func(res response) []any {
		t.Helper()
		var out []any
		for _, m := range res.body["members"].([]any) {
			out = append(out, m.(map[string]any)["user_id"])
		}
		return out
	}

	t.Run("body wins over query", func(t *testing.T) {
		e.t = t
		r := e.request(http.MethodPost, "/fetch_api_key?username=nobody@example.com", nil, form("username", e.owner.email, "password", "owner-password"))
		e.expect(e.do(r), http.StatusOK, success("api_key", e.owner.key, "email", e.owner.email, "user_id", float64(e.owner.id)))
	})
	t.Run("last repeated value wins", func(t *testing.T) {
		e.t = t
		res := e.call(http.MethodGet, "/users", &e.owner, form("user_ids", "[3]", "user_ids", "[2]"))
		if diff := cmp.Diff([]any{float64(2)}, ids(res)); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("multipart body", func(t *testing.T) {
		e.t = t
		ct, body := multipartBody(t, "username", e.owner.email, "password", "owner-password")
		r := httptest.NewRequest(http.MethodPost, "http://"+host+"/api/v1/fetch_api_key", body)
		r.Header.Set("Content-Type", ct)
		e.expect(e.do(r), http.StatusOK, success("api_key", e.owner.key, "email", e.owner.email, "user_id", float64(e.owner.id)))
	})
	t.Run("empty multipart body means no parameters", func(t *testing.T) {
		e.t = t
		r := httptest.NewRequest(http.MethodPost, "http://"+host+"/api/v1/fetch_api_key", strings.NewReader(""))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=xyz")
		e.expectError(e.do(r), http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'username' argument", "var_name", "username")
	})
	t.Run("JSON body is not read", func(t *testing.T) {
		e.t = t
		r := httptest.NewRequest(http.MethodPost, "http://"+host+"/api/v1/fetch_api_key", strings.NewReader(`{"username":"x"}`))
		r.Header.Set("Content-Type", "application/json")
		e.expectError(e.do(r), http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'username' argument", "var_name", "username")
	})
	t.Run("DELETE body is read", func(t *testing.T) {
		e.t = t
		res := e.call(http.MethodDelete, "/users/"+itoa(e.guest.id), &e.admin, form("unknown_b", "1", "unknown_a", "2"))
		e.expect(res, http.StatusOK, success("ignored_parameters_unsupported", []any{"unknown_a", "unknown_b"}))
	})
	t.Run("query string on POST", func(t *testing.T) {
		e.t = t
		r := e.request(http.MethodPost, "/fetch_api_key?username=owner@example.com&password=owner-password", nil, nil)
		e.expect(e.do(r), http.StatusOK, success("api_key", e.owner.key, "email", e.owner.email, "user_id", float64(e.owner.id)))
	})
}

func TestIgnoredParametersUnsupported(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodGet, "/users/me", &e.guest, form("zeta", "1", "alpha", "2", "client_gravatar", "false"))
	if diff := cmp.Diff([]any{"alpha", "client_gravatar", "zeta"}, res.body["ignored_parameters_unsupported"]); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	// Parameters that are read, even with their default value, are not listed.
	res = e.call(http.MethodGet, "/users/"+itoa(e.guest.id), &e.guest, form("client_gravatar", "true"))
	if _, ok := res.body["ignored_parameters_unsupported"]; ok {
		t.Errorf("read parameter listed as ignored: %s", res.raw)
	}
	// Error answers never carry the list.
	res = e.call(http.MethodGet, "/users/999", &e.guest, form("bogus", "1"))
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "No such user")
}

func TestAdminCheckComesBeforeParameters(t *testing.T) {
	e := newEnv(t)
	res := e.call(http.MethodPost, "/users", &e.member, nil)
	e.expectError(res, http.StatusBadRequest, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
}

// failingStore fails every transaction with an error whose text must never
// reach a client.
type failingStore struct{ storage.Store }

var errSecret = errors.New("disk on fire: SELECT secret FROM users")

func (failingStore) View(context.Context, func(storage.Tx) error) error   { return errSecret }
func (failingStore) Update(context.Context, func(storage.Tx) error) error { return errSecret }

func TestInternalErrorsAreGeneric(t *testing.T) {
	e := newEnv(t)
	e.h = httpserverNew(t, failingStore{memory.New()}, e)
	res := e.call(http.MethodGet, "/server_settings", nil, nil)
	e.expectError(res, http.StatusInternalServerError, chat.CodeInternalServerError, "Internal server error")
	if !strings.Contains(e.log.String(), "disk on fire") {
		t.Errorf("cause not logged; log:\n%s", e.log.String())
	}
	if strings.Contains(res.raw, "disk") || strings.Contains(res.raw, "SELECT") {
		t.Errorf("cause leaked to the client: %s", res.raw)
	}
}
