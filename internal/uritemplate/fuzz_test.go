package uritemplate

import (
	"errors"
	"strings"
	"testing"
)

// FuzzTemplate parses arbitrary templates and expands what parses with
// arbitrary values: Parse fails only with ErrSyntax, and every expansion
// is a URI reference made of unreserved and reserved characters and
// percent-encoded triplets only, whatever the values hold.
func FuzzTemplate(f *testing.F) {
	for _, s := range [][2]string{
		{"https://example.org/{id}", "42"},
		{"https://x/{+path}/{#frag}{?q,r}{&s}", "a b/ü%zz"},
		{"{.dom}{/seg}{;p}{var:3}{var*}", "ÿ\x00\xff"},
		{"https://ünï.example/%E2%82%AC/{x}", ""},
		{"{", ""}, {"{}", ""}, {"{=x}", ""}, {"{x:0}", ""}, {"{x:10000}", "v"}, {"a%2", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, template, value string) {
		tmpl, err := Parse(template)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): %v is not ErrSyntax", template, err)
			}
			return
		}
		values := map[string]string{}
		for _, name := range tmpl.Varnames() {
			values[name] = value
		}
		for _, vals := range []map[string]string{values, nil} {
			out := tmpl.Expand(vals)
			for i := 0; i < len(out); i++ {
				c := out[i]
				switch {
				case isUnreserved(c), isReserved(c):
				case c == '%' && i+2 < len(out) && isHex(out[i+1]) && isHex(out[i+2]):
				default:
					t.Fatalf("Parse(%q).Expand(%q) = %q: byte %q at %d", template, value, out, c, i)
				}
			}
			if strings.Contains(out, "{") {
				t.Fatalf("Parse(%q).Expand = %q keeps a brace", template, out)
			}
		}
	})
}
