package chat_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// The fuzz targets of the domain's parsers. Each checks that the parser
// never panics, that what it refuses it refuses with a *chat.Error that is
// not an internal error (a client's input is never the server's fault),
// and what it accepts satisfies the parser's own contract. Their seed
// corpora are the f.Add calls and testdata/fuzz.

// clientError fails t unless err is a *chat.Error a client may see.
func clientError(t *testing.T, what string, err error) {
	t.Helper()
	var e *chat.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %T %v is not a *chat.Error", what, err, err)
	}
	if e.Code == chat.CodeInternalServerError || e.Msg == "" {
		t.Fatalf("%s: %+v is not a client error", what, e)
	}
}

func FuzzParseGroupSetting(f *testing.F) {
	for _, s := range []string{`5`, `-1`, `{"direct_members":[1,2,2],"direct_subgroups":[]}`,
		`{"direct_members":[1]}`, `{"direct_members":[],"direct_subgroups":[3],"x":1}`, `"5"`, `5.0`,
		`{"direct_members":[9223372036854775808],"direct_subgroups":[]}`, ` 7 `, `null`, `[]`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := chat.ParseGroupSetting("setting", []byte(text))
		if err != nil {
			clientError(t, text, err)
			return
		}
		// What is accepted survives its own wire form unchanged.
		wire, _ := v.MarshalJSON()
		again, err := chat.ParseGroupSetting("setting", wire)
		if err != nil {
			t.Fatalf("%q parsed to %s, which does not parse: %v", text, wire, err)
		}
		if again2, _ := again.MarshalJSON(); !bytes.Equal(wire, again2) {
			t.Fatalf("%q: %s then %s", text, wire, again2)
		}
	})
}

func FuzzParseProfileData(f *testing.F) {
	for _, s := range []string{`[{"id":1,"value":"x"}]`, `[{"id":1,"value":[1,2]}]`, `[{"id":1}]`,
		`[{"id":"1","value":null}]`, `{}`, `[]`, `[{"id":1,"value":"x","extra":true}]`, `[null]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := chat.ParseProfileData("profile_data", text)
		if err != nil {
			clientError(t, text, err)
			return
		}
		_ = entries
	})
}

// fuzzOrg is an organization on the memory store for fuzz targets that
// need a Service.
func fuzzOrg(f *testing.F, cfg chat.Config) (*chat.Service, chat.NewOrgResult) {
	cfg.PasswordCost = bcrypt.MinCost
	svc := chat.New(memory.New(), cfg)
	f.Cleanup(func() { svc.Close() })
	org, err := svc.CreateOrg(context.Background(), chat.NewOrg{Name: "Org", Host: "chat.example", URL: "http://chat.example",
		OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	if err != nil {
		f.Fatal(err)
	}
	return svc, org
}

func FuzzLinkifier(f *testing.F) {
	svc, org := fuzzOrg(f, chat.Config{})
	ctx := context.Background()
	f.Add(`#(?P<id>[0-9]+)`, "https://example.org/{id}", "#42", "#{id}", "see #42 and #7!")
	f.Add(`(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<n>\d+)`, "https://git.example/{org}/{repo}/issues/{n}", "", "", "a/b#1 c/d#22x")
	f.Add(`(?P<x>.*)`, "https://example.org/{+x}{?x}", "ünïcode", "", "ünïcode text")
	f.Add(`[`, "{", "", "", "")
	f.Add(`(?P<a>a)(?P<a>b)`, "https://x/{a}", "", "", "ab")
	f.Add(`(?P<id>\p{L}+)`, "https://example.org/{id:3}/{#id}", "", "", "Ωmega")
	f.Fuzz(func(t *testing.T, pattern, template, example, reverse, text string) {
		req := chat.LinkifierRequest{Pattern: pattern, URLTemplate: template}
		if example != "" {
			req.ExampleInput = &example
		}
		if reverse != "" {
			req.ReverseTemplate = &reverse
		}
		id, err := svc.AddLinkifier(ctx, chat.AsUser(org.UserID), req)
		if err != nil {
			clientError(t, pattern+" "+template, err)
			return
		}
		defer func() {
			if err := svc.DeleteLinkifier(ctx, chat.AsUser(org.UserID), id); err != nil {
				t.Fatal(err)
			}
		}()
		list, err := svc.Linkifiers(ctx, chat.AsUser(org.UserID))
		if err != nil {
			t.Fatal(err)
		}
		end := 0
		for _, m := range chat.Linkify(text, list) {
			if m.Start < end || m.End <= m.Start || m.End > len(text) {
				t.Fatalf("match %+v out of order or range in %q (previous end %d)", m, text, end)
			}
			if utf8.ValidString(text) && (!utf8.ValidString(text[m.Start:m.End]) || !utf8.ValidString(m.URL)) {
				t.Fatalf("match %+v splits a character of %q", m, text)
			}
			if m.LinkifierID != id {
				t.Fatalf("match %+v from linkifier %d, want %d", m, m.LinkifierID, id)
			}
			end = m.End
		}
	})
}

func FuzzEmojiNames(f *testing.F) {
	for _, s := range []string{"+1", "thumbs_up", "1f44d", "zulip", "", "flag_ch", "1f1e8-1f1ed", "smile\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Names and codes map onto each other: every name's code has a
		// canonical name, whose code is the same.
		if code, ok := chat.UnicodeEmojiCode(s); ok {
			name, ok := chat.UnicodeEmojiName(code)
			if !ok {
				t.Fatalf("%q has code %q, which has no name", s, code)
			}
			if back, _ := chat.UnicodeEmojiCode(name); back != code {
				t.Fatalf("%q: code %q, name %q, whose code is %q", s, code, name, back)
			}
		}
		if name, ok := chat.UnicodeEmojiName(s); ok {
			if code, _ := chat.UnicodeEmojiCode(name); code != s {
				t.Fatalf("code %q has name %q, whose code is %q", s, name, code)
			}
		}
	})
}

func FuzzFetchAPIKeyJWT(f *testing.F) {
	secret := []byte("fuzz-secret")
	svc, org := fuzzOrg(f, chat.Config{JWTSecret: secret, Now: func() time.Time { return time.Unix(1_700_000_000, 0) }})
	sign := func(method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(key)
		if err != nil {
			f.Fatal(err)
		}
		return s
	}
	f.Add(sign(jwt.SigningMethodHS256, secret, jwt.MapClaims{"email": org.Email}), true)
	f.Add(sign(jwt.SigningMethodHS256, secret, jwt.MapClaims{"email": "OWNER@example.com", "exp": 1}), false)
	f.Add(sign(jwt.SigningMethodHS512, secret, jwt.MapClaims{"email": 5}), false)
	f.Add(sign(jwt.SigningMethodHS256, []byte("other"), jwt.MapClaims{"email": org.Email}), false)
	f.Add(sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, jwt.MapClaims{"email": org.Email}), false)
	f.Add("eyJhbGciOiJIUzI1NiJ9.e30.", false)
	f.Add("a.b.c", true)
	f.Add("", false)
	f.Fuzz(func(t *testing.T, token string, profile bool) {
		res, err := svc.FetchAPIKeyJWT(context.Background(), "chat.example", token, profile)
		if err != nil {
			clientError(t, token, err)
			return
		}
		// Only a token signed with the secret logs in, and only as a user
		// of the organization.
		parsed, perr := jwt.Parse(token, func(*jwt.Token) (any, error) { return secret, nil },
			jwt.WithValidMethods([]string{"HS256", "HS384", "HS512"}), jwt.WithTimeFunc(func() time.Time { return time.Unix(1_700_000_000, 0) }))
		if perr != nil || !parsed.Valid {
			t.Fatalf("token %q logged in as %s but does not verify: %v", token, res.Email, perr)
		}
		if res.APIKey != org.APIKey || !strings.EqualFold(res.Email, org.Email) {
			t.Fatalf("token %q logged in as %s", token, res.Email)
		}
	})
}

func FuzzSanitizeFilename(f *testing.F) {
	for _, s := range []string{"report.pdf", "my  file -- final.tar.gz", "../../etc/passwd", "..", ".", "",
		"C:\\Users\\me\\photo.JPG", "ｆｕｌｌｗｉｄｔｈ.txt", "日本語 ファイル.png", "a\x00b\nc.txt", "%20spaced%2Fname",
		" \t-leading and trailing- \t", strings.Repeat("é", 150) + ".jpeg", strings.Repeat("x", 300) + "." + strings.Repeat("y", 40),
		"emoji 👍🏽 name.gif", "\u1100!\u1161.txt", "\xff\xfe invalid utf8"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, name string, strict bool) {
		out := chat.SanitizeFilename(name, strict)
		switch {
		case out == "" || out == "." || out == "..":
			t.Fatalf("%q (strict %v): %q is no file name", name, strict, out)
		case len(out) > 200:
			t.Fatalf("%q (strict %v): %d bytes", name, strict, len(out))
		case !utf8.ValidString(out):
			t.Fatalf("%q (strict %v): %q is not UTF-8", name, strict, out)
		case strings.Contains(out, "--"):
			t.Fatalf("%q (strict %v): %q keeps a run of dashes", name, strict, out)
		}
		for _, r := range out {
			ok := r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsNumber(r)
			if strict {
				ok = ok && r < utf8.RuneSelf
			}
			if !ok {
				// Separators, whitespace, controls and the like never reach a stored path.
				t.Fatalf("%q (strict %v): %q keeps %q", name, strict, out, r)
			}
		}
	})
}

func FuzzParseNarrow(f *testing.F) {
	for _, s := range []string{`[]`, `[["channel","general"],["topic","lunch"]]`, `[{"operator":"is","operand":"starred","negated":true}]`,
		`[{"operator":"dm","operand":[1,2,3]}]`, `[{"operator":"id","operand":42}]`, `[{"operator":"id","operand":4.5}]`,
		`[{"operator":"sender","operand":9223372036854775808}]`, `[["a"]]`, `[[1,2]]`, `[{"operand":"x"}]`, `[{"operator":"x"}]`,
		`[{"operator":"x","operand":"y","negated":"yes"}]`, `[null]`, `{"operator":"channel"}`, `"x"`, `[`, ``,
		`[{"operator":"search","operand":"a b","operator":"dup"}]`, `[[["nested"]]]`, `[{"operator":"dm","operand":[1,"2"]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		narrow, err := chat.ParseNarrow("narrow", []byte(text))
		if err != nil {
			clientError(t, text, err)
			return
		}
		for i, e := range narrow {
			switch e.Operand.(type) {
			case string, int64, []int64:
			default:
				t.Fatalf("%q: element %d has operand %T %v", text, i, e.Operand, e.Operand)
			}
		}
	})
}
