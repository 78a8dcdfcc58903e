package chat

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// stdJSONString is what encoding/json writes for s with HTML escaping off.
func stdJSONString(t testing.TB, s string) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

var jsonStringSeeds = []string{
	"",
	"plain ASCII text",
	`"quoted"`,
	`back\slash`,
	`\"`,
	"<script>alert('x')</script> & more",
	"tab\there, newline\nthere, return\r, feed\f, backspace\b",
	"\x00\x01\x02\x03\x04\x05\x06\x07\x0b\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f",
	"\x7f delete is not escaped",
	"line\u2028separator and paragraph\u2029separator",
	"\u2027\u202a neighbours of the separators",
	"invalid \xff byte",
	"truncated \xe2\x82 sequence",
	"\xc0\xaf overlong slash",
	"\xed\xa0\x80 surrogate half",
	"\xf4\x90\x80\x80 beyond U+10FFFF",
	"\xff",
	"emoji 🎉👩‍👩‍👧 and flags 🇩🇪",
	"日本語のテキスト",
	"e\u0301 combining, \ufeff BOM, \u200b zero width",
	"\U0010FFFF last code point",
	"\ufffd literal replacement character",
	"mixed \x00\"\\<>&\u2028\xff🎉",
	strings.Repeat("long string ", 200),
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonStringSeeds {
		want := stdJSONString(t, s)
		if got := string(appendJSONString(nil, s)); got != want {
			t.Errorf("appendJSONString(%q)\n got %s\nwant %s", s, got, want)
		}
	}
	// Every single byte value, alone and in context.
	for c := 0; c < 256; c++ {
		for _, s := range []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "b"} {
			if got, want := string(appendJSONString(nil, s)), stdJSONString(t, s); got != want {
				t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
			}
		}
	}
	// Appending keeps what is already there.
	if got := string(appendJSONString([]byte("prefix:"), "x\ny")); got != `prefix:"x\ny"` {
		t.Errorf("append to prefix = %s", got)
	}
	// A few literal expectations, in case encoding/json changed.
	for s, want := range map[string]string{
		"a\"b":       `"a\"b"`,
		"\x01":       `"\u0001"`,
		"\b\f\n\r\t": `"\b\f\n\r\t"`,
		"<&>":        `"<&>"`,
		"\u2028":     `"\u2028"`,
		"\u2029":     `"\u2029"`,
		"\xff":       `"\ufffd"`,
		"🎉":          `"🎉"`,
	} {
		if got := string(appendJSONString(nil, s)); got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendJSONString(nil, s)
		if want := stdJSONString(t, s); string(got) != want {
			t.Fatalf("appendJSONString(%q)\n got %s\nwant %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("output %s is not a JSON string: %v", got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
	})
}

func TestUserMarshalJSON(t *testing.T) {
	joined := time.Date(2025, 3, 30, 14, 34, 59, 999999999, time.FixedZone("CEST", 2*3600))
	rendered := "<p>hi &amp; <b>bye</b></p>"
	for _, c := range []struct {
		name string
		user User
		want map[string]any
		raw  string // exact bytes, when not empty
	}{
		{
			name: "human with awkward strings",
			user: User{
				UserID: 7, DeliveryEmail: nil, Email: "user7@localhost",
				FullName: "Zoë \"Z\" <Ünïcödé> \\ \u2028 \x01 🎉 \xff", DateJoined: joined, IsActive: true,
				Role: RoleMember, Timezone: "America/New_York", AvatarVersion: 3,
				AvatarURL: ptr("https://secure.gravatar.com/avatar/x?d=identicon&version=3"),
			},
			want: map[string]any{
				"user_id": 7.0, "delivery_email": nil, "email": "user7@localhost",
				"full_name":   "Zoë \"Z\" <Ünïcödé> \\ \u2028 \x01 🎉 \ufffd",
				"date_joined": "2025-03-30T12:34+00:00", "is_active": true, "is_owner": false,
				"is_admin": false, "is_guest": false, "is_bot": false, "bot_type": nil, "role": 400.0,
				"timezone": "America/New_York", "avatar_url": "https://secure.gravatar.com/avatar/x?d=identicon&version=3",
				"avatar_version": 3.0, "is_imported_stub": false,
			},
		},
		{
			name: "owner with profile data, deleted, stub",
			user: User{
				UserID: 1, DeliveryEmail: ptr("boss@example.com"), Email: "boss@example.com", FullName: "Boss",
				DateJoined: time.Date(1999, 12, 31, 23, 59, 0, 0, time.UTC), IsOwner: true, IsAdmin: true,
				Role: RoleOwner, IsImportedStub: true, IsDeleted: true, AvatarVersion: 1,
				ProfileData: map[string]ProfileValue{
					"3":  {Value: "plain"},
					"12": {Value: "**bold** & <i>", RenderedValue: &rendered},
				},
			},
			want: map[string]any{
				"user_id": 1.0, "delivery_email": "boss@example.com", "email": "boss@example.com",
				"full_name": "Boss", "date_joined": "1999-12-31T23:59+00:00", "is_active": false, "is_owner": true,
				"is_admin": true, "is_guest": false, "is_bot": false, "bot_type": nil, "role": 100.0,
				"timezone": "", "avatar_url": nil, "avatar_version": 1.0, "is_imported_stub": true,
				"is_deleted": true,
				"profile_data": map[string]any{
					"3":  map[string]any{"value": "plain"},
					"12": map[string]any{"value": "**bold** & <i>", "rendered_value": rendered},
				},
			},
			raw: `{"user_id":1,"delivery_email":"boss@example.com","email":"boss@example.com","full_name":"Boss",` +
				`"date_joined":"1999-12-31T23:59+00:00","is_active":false,"is_owner":true,"is_admin":true,"is_guest":false,` +
				`"is_bot":false,"bot_type":null,"role":100,"timezone":"","avatar_url":null,"avatar_version":1,` +
				`"is_imported_stub":true,"is_deleted":true,"profile_data":{"12":{"value":"**bold** & <i>",` +
				`"rendered_value":"<p>hi &amp; <b>bye</b></p>"},"3":{"value":"plain"}}}`,
		},
		{
			name: "bot with owner",
			user: User{
				UserID: 9, DeliveryEmail: ptr("bot@example.com"), Email: "bot@example.com", FullName: "Bot",
				DateJoined: joined, IsActive: true, IsBot: true, BotType: BotEmbedded, BotOwnerID: 4,
				Role: RoleMember, AvatarVersion: 1, ProfileData: nil,
			},
			want: map[string]any{
				"user_id": 9.0, "delivery_email": "bot@example.com", "email": "bot@example.com",
				"full_name": "Bot", "date_joined": "2025-03-30T12:34+00:00", "is_active": true, "is_owner": false,
				"is_admin": false, "is_guest": false, "is_bot": true, "bot_type": 4.0, "bot_owner_id": 4.0,
				"role": 400.0, "timezone": "", "avatar_url": nil, "avatar_version": 1.0, "is_imported_stub": false,
			},
		},
		{
			name: "bot without owner, empty profile data",
			user: User{
				UserID: 10, Email: "legacy@example.com", FullName: "Legacy", DateJoined: joined, IsBot: true,
				BotType: BotGeneric, Role: RoleGuest, IsGuest: true, ProfileData: map[string]ProfileValue{},
			},
			want: map[string]any{
				"user_id": 10.0, "delivery_email": nil, "email": "legacy@example.com",
				"full_name": "Legacy", "date_joined": "2025-03-30T12:34+00:00", "is_active": false, "is_owner": false,
				"is_admin": false, "is_guest": true, "is_bot": true, "bot_type": 1.0, "bot_owner_id": nil,
				"role": 600.0, "timezone": "", "avatar_url": nil, "avatar_version": 0.0, "is_imported_stub": false,
				"profile_data": map[string]any{},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.user.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) {
				t.Fatalf("invalid JSON: %s", b)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("decoded JSON mismatch (-want +got):\n%s\n%s", d, b)
			}
			if c.raw != "" && string(b) != c.raw {
				t.Errorf("JSON\n got %s\nwant %s", b, c.raw)
			}
			// AppendJSON appends, and Users writes an array of the same.
			pre := []byte("x")
			if got := c.user.AppendJSON(pre); string(got) != "x"+string(b) {
				t.Errorf("AppendJSON = %s", got)
			}
			arr, err := Users{c.user, c.user}.MarshalJSON()
			if err != nil || string(arr) != "["+string(b)+","+string(b)+"]" {
				t.Errorf("Users.MarshalJSON = %s, %v", arr, err)
			}
			// json.Marshal accepts the output (it compacts and re-escapes).
			if _, err := json.Marshal(c.user); err != nil {
				t.Errorf("json.Marshal: %v", err)
			}
		})
	}
	if b, _ := (Users{}).MarshalJSON(); string(b) != "[]" {
		t.Errorf("empty Users = %s", b)
	}
	if b, _ := Users(nil).MarshalJSON(); string(b) != "[]" {
		t.Errorf("nil Users = %s", b)
	}
}

func ptr[T any](v T) *T { return &v }
