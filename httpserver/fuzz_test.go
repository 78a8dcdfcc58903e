package httpserver

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// FuzzParams feeds arbitrary bodies and values through the parameter
// decoder: it must never panic, and what it accepts must agree with
// encoding/json.
func FuzzParams(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", "a=true&b=[1,2]&c=x", "b=5")
	f.Add("multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nfalse\r\n--xyz--\r\n", "")
	f.Add("multipart/form-data; boundary=xyz", "", "a=1")
	f.Add("application/json", `{"a":true}`, "a=%ZZ")
	f.Add("application/x-www-form-urlencoded", "a=%zz&b=[1.0]", "c={}")
	f.Add("application/x-www-form-urlencoded", "b=[9223372036854775808]&a=tru", "")
	f.Fuzz(func(t *testing.T, contentType, body, query string) {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", contentType)
		p, err := parseParams(r)
		if err != nil {
			if _, ok := err.(*chat.Error); !ok {
				t.Fatalf("parseParams error %T %v is not a *chat.Error", err, err)
			}
			return
		}
		raw, present := p.peek("a")
		a := p.Bool("a", false)
		if present && p.Err() == nil {
			var want bool
			if json.Unmarshal([]byte(raw), &want) != nil || want != a {
				t.Fatalf("Bool(%q) = %v, accepted but encoding/json says otherwise", raw, a)
			}
		}
		rawB, presentB := p.peek("b")
		list := p.IntList("b")
		if presentB && p.Err() == nil {
			var want []int64
			if err := json.Unmarshal([]byte(rawB), &want); err != nil || len(want) != len(list) {
				t.Fatalf("IntList(%q) = %v, encoding/json: %v %v", rawB, list, want, err)
			}
			for i := range want {
				if want[i] != list[i] {
					t.Fatalf("IntList(%q) = %v, want %v", rawB, list, want)
				}
			}
		}
		p.StringList("c")
		p.PairList("c")
		p.Int("c")
		var caps chat.ClientCapabilities
		p.BoolObject("c", &caps)
		for _, name := range p.Ignored() {
			if name == "a" || name == "b" || name == "c" {
				t.Fatalf("read parameter %q listed as ignored", name)
			}
		}
	})
}

// FuzzBasicAuth sends arbitrary Authorization headers: every answer is a
// JSON 200, 400 or 401, never a 500 or a panic.
func FuzzBasicAuth(f *testing.F) {
	svc := chat.New(memory.New(), chat.Config{})
	org, err := svc.CreateOrg(f.Context(), chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	if err != nil {
		f.Fatal(err)
	}
	h := New(svc, Options{})
	f.Add("Basic " + base64.StdEncoding.EncodeToString([]byte(org.Email+":"+org.APIKey)))
	f.Add("Basic " + base64.StdEncoding.EncodeToString([]byte("a:b:c")))
	f.Add("Basic !!!")
	f.Add("Bearer x")
	f.Add("basic   " + base64.StdEncoding.EncodeToString([]byte(" "+org.Email+" : "+org.APIKey)))
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/users/me", nil)
		r.Header["Authorization"] = []string{header}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized:
		default:
			t.Fatalf("status %d for %q: %s", w.Code, header, w.Body)
		}
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("answer is not JSON: %q", w.Body)
		}
	})
}
