// Package uritemplate parses and expands URI templates (RFC 6570, every
// level) whose variables hold strings, as linkifiers need: the values are
// the text of regular-expression groups. Non-ASCII characters are
// percent-encoded as UTF-8, in values and in literals alike.
package uritemplate

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Template is a parsed URI template.
type Template struct {
	parts []part
}

// part is literal text (already encoded) or an expression.
type part struct {
	literal string
	op      *operator
	vars    []varspec
}

type varspec struct {
	name string
	// prefix is the :N modifier (0 for none); explode is ignored for
	// strings, as RFC 6570 section 3.2.1 says.
	prefix int
}

// operator is one row of the table of RFC 6570 appendix A.
type operator struct {
	first, sep string
	named      bool
	ifemp      string
	// reserved allows reserved characters and pct-encoded triplets.
	reserved bool
}

var operators = map[byte]*operator{
	0:   {first: "", sep: ","},
	'+': {first: "", sep: ",", reserved: true},
	'.': {first: ".", sep: "."},
	'/': {first: "/", sep: "/"},
	';': {first: ";", sep: ";", named: true},
	'?': {first: "?", sep: "&", named: true, ifemp: "="},
	'&': {first: "&", sep: "&", named: true, ifemp: "="},
	'#': {first: "#", sep: ",", reserved: true},
}

// ErrSyntax reports a malformed template.
var ErrSyntax = errors.New("uritemplate: invalid template")

// Parse parses a template, failing with ErrSyntax on anything RFC 6570
// does not allow: unbalanced braces, reserved operators (= , ! @ |), bad
// variable names or modifiers, and literal characters outside the
// grammar.
func Parse(s string) (*Template, error) {
	t := &Template{}
	var lit strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, ErrSyntax
			}
			p, err := parseExpression(s[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{literal: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, p)
			i += end + 1
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return nil, ErrSyntax
			}
			lit.WriteString(s[i : i+3])
			i += 3
		case c < utf8.RuneSelf:
			if c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\^`|}", c) >= 0 {
				return nil, ErrSyntax
			}
			if isUnreserved(c) || isReserved(c) {
				lit.WriteByte(c)
			} else {
				pctEncode(&lit, s[i:i+1])
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError {
				return nil, ErrSyntax
			}
			pctEncode(&lit, s[i:i+size])
			i += size
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, part{literal: lit.String()})
	}
	return t, nil
}

func parseExpression(e string) (part, error) {
	if e == "" {
		return part{}, ErrSyntax
	}
	op := operators[0]
	if o, ok := operators[e[0]]; ok && e[0] != 0 {
		op = o
		e = e[1:]
	} else if strings.IndexByte("=,!@|", e[0]) >= 0 {
		return part{}, ErrSyntax // reserved for future extensions
	}
	p := part{op: op}
	for _, spec := range strings.Split(e, ",") {
		v, err := parseVarspec(spec)
		if err != nil {
			return part{}, err
		}
		p.vars = append(p.vars, v)
	}
	return p, nil
}

func parseVarspec(s string) (varspec, error) {
	var v varspec
	name, mod := s, ""
	if i := strings.IndexAny(s, ":*"); i >= 0 {
		name, mod = s[:i], s[i:]
	}
	if !validVarname(name) {
		return v, ErrSyntax
	}
	v.name = name
	switch {
	case mod == "" || mod == "*":
	case mod[0] == ':':
		digits := mod[1:]
		if len(digits) < 1 || len(digits) > 4 || digits[0] == '0' {
			return v, ErrSyntax
		}
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return v, ErrSyntax
			}
			v.prefix = v.prefix*10 + int(digits[i]-'0')
		}
	default:
		return v, ErrSyntax
	}
	return v, nil
}

// validVarname checks varname = varchar *( ["."] varchar ), varchar =
// ALPHA / DIGIT / "_" / pct-encoded.
func validVarname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if s[i-1] == '.' {
				return false
			}
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'):
			return false
		}
	}
	return true
}

// Varnames returns the distinct variable names in order of appearance.
func (t *Template) Varnames() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		for _, v := range p.vars {
			if !seen[v.name] {
				seen[v.name] = true
				out = append(out, v.name)
			}
		}
	}
	return out
}

// Expand expands the template; variables missing from values are
// undefined and left out, as RFC 6570 says.
func (t *Template) Expand(values map[string]string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.op == nil {
			b.WriteString(p.literal)
			continue
		}
		first := true
		for _, v := range p.vars {
			val, ok := values[v.name]
			if !ok {
				continue
			}
			if first {
				b.WriteString(p.op.first)
				first = false
			} else {
				b.WriteString(p.op.sep)
			}
			if v.prefix > 0 {
				val = prefix(val, v.prefix)
			}
			if p.op.named {
				b.WriteString(v.name)
				if val == "" {
					b.WriteString(p.op.ifemp)
					continue
				}
				b.WriteByte('=')
			}
			encode(&b, val, p.op.reserved)
		}
	}
	return b.String()
}

// prefix returns the first n characters (code points) of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// encode writes s, percent-encoding (as UTF-8) every byte that is not
// unreserved, or with reserved also not reserved nor part of a
// pct-encoded triplet.
func encode(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUnreserved(c):
			b.WriteByte(c)
		case reserved && isReserved(c):
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			pctEncode(b, s[i:i+1])
		}
	}
}

const upperHex = "0123456789ABCDEF"

func pctEncode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(upperHex[s[i]>>4])
		b.WriteByte(upperHex[s[i]&0xF])
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isReserved(c byte) bool { return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
