package httpserver_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/nacl/secretbox"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/pushrelay"
	"github.com/teamchat/chat/storage/memory"
)

// relay is a push relay on loopback whose answer the test chooses.
type relay struct {
	srv *httptest.Server
	mu  sync.Mutex
	// mode is "ok", a status code such as "401", or "close" (drop the
	// connection without answering).
	mode string
	got  []chat.PushNotification
	auth []string
}

func newRelay(t *testing.T) *relay {
	rl := &relay{mode: "ok"}
	rl.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rl.mu.Lock()
		defer rl.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/relay/notify" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "unexpected request "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		var n chat.PushNotification
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &n); err != nil {
			http.Error(w, err.Error(), http.StatusTeapot)
			return
		}
		user, pass, _ := r.BasicAuth()
		rl.auth = append(rl.auth, user+":"+pass)
		switch rl.mode {
		case "ok":
			rl.got = append(rl.got, n)
			w.Write([]byte(`{"result":"success"}`))
		case "close":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			code := 0
			for _, c := range rl.mode {
				code = code*10 + int(c-'0')
			}
			http.Error(w, "relay says no", code)
		}
	}))
	t.Cleanup(rl.srv.Close)
	return rl
}

func (rl *relay) set(mode string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.mode = mode
}

func newPushEnv(t *testing.T) (*env, *relay) {
	t.Helper()
	rl := newRelay(t)
	client, err := pushrelay.New(strings.Replace(rl.srv.URL, "http://", "http://server:s3cret@", 1)+"/relay/", nil)
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, memory.New(), func(c *chat.Config) { c.PushRelay = client }), rl
}

// pushKey is a device's push key: 0x31 then 32 key bytes.
func pushKey(fill byte) []byte {
	k := make([]byte, 33)
	k[0] = 0x31
	for i := 1; i < len(k); i++ {
		k[i] = fill + byte(i)
	}
	return k
}

func registrationForm(deviceID string, key []byte) url.Values {
	return form("device_id", deviceID,
		"push_key", base64.StdEncoding.EncodeToString(key), "push_key_id", "7",
		"token_kind", "fcm", "token_id", "AAECAwQFBgc=",
		"bouncer_public_key", "bouncer-key", "encrypted_push_registration", "sealed-registration")
}

func TestIOSDeviceToken(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/users/me/ios_device_token", "/users/me/apns_device_token"} {
		e.expect(e.call(http.MethodPost, path, &e.member, form("token", "AbCd 12ef", "appid", "org.example.app")),
			http.StatusOK, success())
		// Again: silent success.
		e.expect(e.call(http.MethodPost, path, &e.member, form("token", "abcd12EF", "appid", "org.example.app")),
			http.StatusOK, success())
	}
	cases := []struct {
		as   *account
		form map[string][]string
		code chat.Code
		msg  string
	}{
		{&e.bot, form("token", "ab", "appid", "x"), chat.CodeBadRequest, "This endpoint does not accept bot requests."},
		{&e.bot, nil, chat.CodeBadRequest, "This endpoint does not accept bot requests."},
		{&e.member, form("appid", "x"), chat.CodeRequestVariableMissing, "Missing 'token' argument"},
		{&e.member, form("token", "ab"), chat.CodeRequestVariableMissing, "Missing 'appid' argument"},
		{&e.member, form("token", "ab", "appid", "org/example"), chat.CodeBadRequest, "appid has invalid format"},
		{&e.member, form("token", "", "appid", "x"), chat.CodeBadRequest, "Empty or invalid length token"},
		{&e.member, form("token", strings.Repeat("a", 4098), "appid", "x"), chat.CodeBadRequest, "Empty or invalid length token"},
		{&e.member, form("token", "abc", "appid", "x"), chat.CodeBadRequest, "Invalid push token"},
		{&e.member, form("token", "zz", "appid", "x"), chat.CodeBadRequest, "Invalid push token"},
		{&e.member, form("token", "a b", "appid", "x"), chat.CodeBadRequest, "Invalid push token"},
	}
	for _, c := range cases {
		res := e.call(http.MethodPost, "/users/me/ios_device_token", c.as, c.form)
		if c.code == chat.CodeRequestVariableMissing {
			name := strings.Split(c.msg, "'")[1]
			e.expectError(res, http.StatusBadRequest, c.code, c.msg, "var_name", name)
			continue
		}
		e.expectError(res, http.StatusBadRequest, c.code, c.msg)
	}
	// 4096 characters is the longest token.
	e.expect(e.call(http.MethodPost, "/users/me/ios_device_token", &e.member,
		form("token", strings.Repeat("ab", 2048), "appid", "x")), http.StatusOK, success())
}

func TestClientDevices(t *testing.T) {
	e, _ := newPushEnv(t)
	e.expect(e.call(http.MethodPost, "/register_client_device", &e.member, nil), http.StatusOK, success("device_id", float64(1)))
	e.expect(e.call(http.MethodPost, "/register_client_device", &e.admin, form("extra", "1")), http.StatusOK,
		success("device_id", float64(2), "ignored_parameters_unsupported", []any{"extra"}))
	e.expectError(e.call(http.MethodPost, "/remove_client_device", &e.member, form("device_id", "2")),
		http.StatusBadRequest, chat.CodeBadRequest, "Invalid `device_id`")
	e.expectError(e.call(http.MethodPost, "/remove_client_device", &e.member, nil),
		http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'device_id' argument", "var_name", "device_id")
	e.expect(e.call(http.MethodPost, "/remove_client_device", &e.member, form("device_id", "1")), http.StatusOK, success())
	e.expectError(e.call(http.MethodPost, "/remove_client_device", &e.member, form("device_id", "1")),
		http.StatusBadRequest, chat.CodeBadRequest, "Invalid `device_id`")
}

func TestPushRegistration(t *testing.T) {
	e, _ := newPushEnv(t)
	e.call(http.MethodPost, "/register_client_device", &e.member, nil) // device 1
	e.call(http.MethodPost, "/register_client_device", &e.admin, nil)  // device 2
	key := base64.StdEncoding.EncodeToString(pushKey(1))
	badKey := append(pushKey(1), 0)
	wrongMarker := pushKey(1)
	wrongMarker[0] = 0x32
	cases := []struct {
		form map[string][]string
		msg  string
	}{
		{form("device_id", "1"), "Missing parameters: must provide either all push key fields, all token fields, or both."},
		{form("device_id", "1", "push_key", key), "Missing parameters: must provide either all push key fields, all token fields, or both."},
		{form("device_id", "1", "push_key", key, "push_key_id", "1"), "No push registration exists to rotate key for."},
		{form("device_id", "1", "token_kind", "fcm", "token_id", "AAEC", "bouncer_public_key", "b",
			"encrypted_push_registration", "e"), "No push registration exists to rotate token for."},
		{form("device_id", "2", "push_key", key, "push_key_id", "1"), "Invalid `device_id`"},
		{form("device_id", "99", "push_key", key, "push_key_id", "1"), "Invalid `device_id`"},
		{form("device_id", "1", "push_key", base64.StdEncoding.EncodeToString(badKey), "push_key_id", "1"), "Invalid `push_key`"},
		{form("device_id", "1", "push_key", base64.StdEncoding.EncodeToString(wrongMarker), "push_key_id", "1"), "Invalid `push_key`"},
		{form("device_id", "1", "push_key", "not base64!", "push_key_id", "1"), "Invalid `push_key`"},
		{form("device_id", "1", "push_key_id", "4294967296"), "push_key_id is too large"},
		{form("device_id", "1", "push_key_id", "-1"), "push_key_id is too small"},
		{form("device_id", "1", "token_kind", "sms"), "Invalid token_kind"},
		{form("device_id", "1", "token_id", "!!"), "`token_id` is not Base64 encoded"},
	}
	for _, c := range cases {
		e.expectError(e.call(http.MethodPost, "/mobile_push/register", &e.member, c.form),
			http.StatusBadRequest, chat.CodeBadRequest, c.msg)
	}
	e.expectError(e.call(http.MethodPost, "/mobile_push/register", &e.bot, registrationForm("1", pushKey(1))),
		http.StatusBadRequest, chat.CodeBadRequest, "This endpoint does not accept bot requests.")
	e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.member, registrationForm("1", pushKey(1))),
		http.StatusOK, success())
	// Identical repeat, then each group rotated on its own.
	e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.member, registrationForm("1", pushKey(1))),
		http.StatusOK, success())
	e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.member,
		form("device_id", "1", "push_key", base64.StdEncoding.EncodeToString(pushKey(9)), "push_key_id", "8")),
		http.StatusOK, success())
	e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.member, form("device_id", "1", "token_kind", "apns",
		"token_id", "AAECAwQFBgc=", "bouncer_public_key", "b2", "encrypted_push_registration", "e2")), http.StatusOK, success())

	// Without a relay, push registration is refused.
	plain := newEnv(t)
	plain.call(http.MethodPost, "/register_client_device", &plain.member, nil)
	plain.expectError(plain.call(http.MethodPost, "/mobile_push/register", &plain.member, registrationForm("1", pushKey(1))),
		http.StatusBadRequest, chat.CodePushServiceNotConfigured, "Server is not configured to use push notification service.")
	res := plain.call(http.MethodGet, "/server_settings", nil, nil)
	if res.body["push_notifications_enabled"] != false {
		t.Errorf("push_notifications_enabled without a relay: %v", res.body["push_notifications_enabled"])
	}
	res = e.call(http.MethodGet, "/server_settings", nil, nil)
	if res.body["push_notifications_enabled"] != true {
		t.Errorf("push_notifications_enabled with a relay: %v", res.body["push_notifications_enabled"])
	}
}

func TestTestNotification(t *testing.T) {
	e, rl := newPushEnv(t)
	const path = "/mobile_push/e2ee/test_notification"
	noDevice := func(as *account, f map[string][]string) {
		t.Helper()
		e.expectError(e.call(http.MethodPost, path, as, f), http.StatusBadRequest, chat.CodeNoActivePushDevice,
			"No active registered push device")
	}
	noDevice(&e.member, nil)
	e.call(http.MethodPost, "/register_client_device", &e.member, nil) // device 1, not registered for push
	noDevice(&e.member, nil)
	e.call(http.MethodPost, "/register_client_device", &e.member, nil) // device 2
	e.call(http.MethodPost, "/register_client_device", &e.member, nil) // device 3
	e.call(http.MethodPost, "/register_client_device", &e.admin, nil)  // device 4
	for id, fill := range map[string]byte{"2": 10, "3": 20} {
		e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.member, registrationForm(id, pushKey(fill))), http.StatusOK, success())
	}
	e.expect(e.call(http.MethodPost, "/mobile_push/register", &e.admin, registrationForm("4", pushKey(30))), http.StatusOK, success())
	noDevice(&e.member, form("device_id", "1"))
	noDevice(&e.member, form("device_id", "4"))
	noDevice(&e.member, form("device_id", "99"))
	e.expectError(e.call(http.MethodPost, path, &e.bot, nil), http.StatusBadRequest, chat.CodeBadRequest,
		"This endpoint does not accept bot requests.")
	e.expectError(e.call(http.MethodPost, path, &e.member, form("device_id", `"2"`)), http.StatusBadRequest,
		chat.CodeBadRequest, "device_id is not an integer")

	// Success: every registered device, each payload sealed with its key.
	e.expect(e.call(http.MethodPost, path, &e.member, nil), http.StatusOK, success())
	e.expect(e.call(http.MethodPost, path, &e.member, form("device_id", "3")), http.StatusOK, success())
	if len(rl.got) != 2 {
		t.Fatalf("relay got %d notifications, want 2", len(rl.got))
	}
	if rl.auth[0] != "server:s3cret" {
		t.Errorf("relay credentials %q", rl.auth[0])
	}
	keys := map[int64][]byte{2: pushKey(10), 3: pushKey(20)}
	wantPayload := map[string]any{"event": "test", "realm_id": float64(1), "realm_name": "Test Org",
		"realm_url": "http://" + host, "user_id": float64(e.member.id), "time": float64(joined.Unix())}
	for i, want := range [][]int64{{2, 3}, {3}} {
		n := rl.got[i]
		if n.UserID != e.member.id || n.RealmURL != "http://"+host || len(n.Devices) != len(want) {
			t.Fatalf("notification %d: %+v", i, n)
		}
		for j, d := range n.Devices {
			if d.DeviceID != want[j] || d.TokenKind != "fcm" || d.TokenID != "AAECAwQFBgc=" || d.PushKeyID != 7 ||
				d.BouncerPublicKey != "bouncer-key" || d.EncryptedPushRegistration != "sealed-registration" {
				t.Errorf("notification %d device %d: %+v", i, j, d)
			}
			sealed, err := base64.StdEncoding.DecodeString(d.EncryptedData)
			if err != nil || len(sealed) < 24 {
				t.Fatalf("encrypted_data %q: %v", d.EncryptedData, err)
			}
			var nonce [24]byte
			var k [32]byte
			copy(nonce[:], sealed)
			copy(k[:], keys[d.DeviceID][1:])
			plain, ok := secretbox.Open(nil, sealed[24:], &nonce, &k)
			if !ok {
				t.Fatalf("device %d: cannot open the payload with its key", d.DeviceID)
			}
			var got map[string]any
			if err := json.Unmarshal(plain, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantPayload, got); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
			// Another device's key does not open it.
			copy(k[:], pushKey(30)[1:])
			if _, ok := secretbox.Open(nil, sealed[24:], &nonce, &k); ok {
				t.Errorf("device %d: payload opens with another key", d.DeviceID)
			}
		}
	}

	// Relay failures.
	for _, c := range []struct {
		mode   string
		status int
		code   chat.Code
		msg    string
	}{
		{"401", http.StatusForbidden, chat.CodeAdminActionRequired, "Push notification configuration issue on server, contact the server administrator or retry later."},
		{"403", http.StatusForbidden, chat.CodeAdminActionRequired, "Push notification configuration issue on server, contact the server administrator or retry later."},
		{"500", http.StatusBadGateway, chat.CodeInternalServerErrorOnBouncer, "Internal server error on the push notification service, retry later."},
		{"503", http.StatusBadGateway, chat.CodeInternalServerErrorOnBouncer, "Internal server error on the push notification service, retry later."},
		{"close", http.StatusBadGateway, chat.CodeFailedToConnectBouncer, "Network error while connecting to the push notification service."},
	} {
		rl.set(c.mode)
		e.expectError(e.call(http.MethodPost, path, &e.member, nil), c.status, c.code, c.msg)
	}
	// A relay that is not there at all.
	rl.srv.Close()
	e.expectError(e.call(http.MethodPost, path, &e.member, nil), http.StatusBadGateway, chat.CodeFailedToConnectBouncer,
		"Network error while connecting to the push notification service.")
}
