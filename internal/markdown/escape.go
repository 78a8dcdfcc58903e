package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The reference's serializer escapes text and attribute values differently
// from goldmark's: text escapes only &, < and > (quotes stay as typed), and
// a character reference the author typed (&copy;, &#169;) is kept as
// written rather than decoded. Clients see the same characters either way;
// these make the bytes the same too.

// textEscaper escapes text outside attribute values.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// attrEscaper escapes an attribute value written between double quotes.
var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// escapeText returns s escaped as text.
func escapeText(s string) string { return textEscaper.Replace(s) }

// escapeAttr returns s escaped for a double-quoted attribute value.
func escapeAttr(s string) string { return attrEscaper.Replace(s) }

// referenceWriter is the goldmark writer of text as the reference writes it.
// goldmark uses its Write for link titles too, which are attribute values:
// renderLink writes those itself.
type referenceWriter struct{}

// Write writes Markdown text: the reference's backslash escapes resolved,
// character references kept as typed when the reference's pattern matches
// them, &, < and > escaped otherwise.
func (referenceWriter) Write(w util.BufWriter, src []byte) { writeText(w, src, false) }

// RawWrite writes raw text as it is, escaping &, < and >.
func (referenceWriter) RawWrite(w util.BufWriter, src []byte) { writeRaw(w, src, false) }

// writeRaw writes src escaped as text, or as an attribute value when attr
// is set; NUL becomes U+FFFD, as goldmark writes it.
func writeRaw(w util.BufWriter, src []byte, attr bool) {
	start := 0
	for i, c := range src {
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case 0:
			esc = "\uFFFD"
		case '"':
			if !attr {
				continue
			}
			esc = "&quot;"
		default:
			continue
		}
		_, _ = w.Write(src[start:i])
		_, _ = w.WriteString(esc)
		start = i + 1
	}
	_, _ = w.Write(src[start:])
}

// SecureWrite is goldmark's: it serves raw HTML, which neither renderer
// parses.
func (referenceWriter) SecureWrite(w util.BufWriter, src []byte) {
	html.DefaultWriter.SecureWrite(w, src)
}

// writeText writes Markdown text src, or a link title (an attribute value,
// whose syntax is goldmark's: every escape is resolved) when attr is set.
// A backslash in text is text (backslashText): the reference has no
// backslash escapes.
func writeText(w util.BufWriter, src []byte, attr bool) {
	start := 0
	flush := func(i int) { writeRaw(w, src[start:i], attr) }
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case attr && c == '\\' && i+1 < len(src) && util.IsPunct(src[i+1]):
			flush(i)
			start = i + 1 // the escaped character is written as text
			i++
		case c == '&':
			if n := referenceLen(src[i:]); n > 0 {
				flush(i)
				_, _ = w.Write(src[i : i+n])
				start = i + n
				i += n - 1
			}
		}
	}
	flush(len(src))
}

// backslashText reads backslashes as text, as the reference does: its
// Markdown leaves backslash escapes out, so "\\*a\\*" is a backslash, "a"
// in emphasis and a backslash, and "\\# x" a paragraph. goldmark would take
// the character after a backslash as escaped; as an inline parser of its
// own, a backslash never reaches goldmark's escape handling. Before a
// backtick, the reference's code span pattern reads a run of backslashes:
// an even run is half as many backslashes, and the backtick may open a
// span ("\\\\`x`" is a backslash and the code "x"); after an odd run the
// backtick is text, as its code spans do not start after a backslash.
type backslashText struct{}

func (backslashText) Trigger() []byte { return []byte{'\\'} }

func (backslashText) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	n := 0
	for n < len(line) && line[n] == '\\' {
		n++
	}
	switch {
	case n == len(line) || line[n] != '`':
		block.Advance(n)
		return ast.NewTextSegment(seg.WithStop(seg.Start + n))
	case n%2 == 0:
		block.Advance(n)
		return ast.NewTextSegment(seg.WithStop(seg.Start + n/2))
	default:
		block.Advance(n + 1)
		return ast.NewTextSegment(seg.WithStop(seg.Start + n + 1))
	}
}

// referenceLen returns the length of the character reference that s
// starts with, as the reference's pattern matches one (&name;, &#123; or
// &#x1f;, any name or number), or 0.
func referenceLen(s []byte) int {
	i := 1
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	hex := func(c byte) bool { return digit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	alnum := func(c byte) bool { return digit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	ok := alnum
	if i < len(s) && s[i] == '#' {
		i++
		ok = digit
		if i < len(s) && s[i] == 'x' {
			i++
			ok = hex
		}
	}
	from := i
	for i < len(s) && ok(s[i]) {
		i++
	}
	if i == from || i >= len(s) || s[i] != ';' {
		return 0
	}
	return i + 1
}

// renderLink writes a link with its target limited to the schemes a
// client may follow (others are emptied) and its title escaped as an
// attribute value.
func renderLink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Link)
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(href(n.Destination, true))
	_ = w.WriteByte('"')
	if n.Title != nil {
		_, _ = w.WriteString(` title="`)
		writeText(w, n.Title, true)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	return ast.WalkContinue, nil
}

// renderAutoLink writes the <url> and bare web links of descriptions.
func renderAutoLink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url := n.URL(src)
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(string(url)), "mailto:") {
		url = append([]byte("mailto:"), url...)
	}
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(href(url, false))
	_, _ = w.WriteString(`">`)
	writeRaw(w, n.Label(src), false)
	_, _ = w.WriteString(`</a>`)
	return ast.WalkContinue, nil
}

// href returns dest as a link's target, escaped for the attribute; nothing
// when its scheme is not one a chat client may follow (javascript:, data:,
// file: and the like). The scheme is judged after character references
// are resolved, as a browser resolves them: "javascript&#58;x" is
// javascript.
func href(dest []byte, resolveReferences bool) []byte {
	u := util.URLEscape(dest, resolveReferences)
	if scheme, _, ok := splitScheme(string(u)); ok && !allowedSchemes[scheme] {
		return nil
	}
	return util.EscapeHTML(u)
}

// noImages makes "![" text, as the reference has no image syntax: what
// follows is read as text, its URL as a web link.
type noImages struct{}

func (noImages) Trigger() []byte { return []byte{'!'} }

func (noImages) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	if len(line) < 2 || line[1] != '[' {
		return nil
	}
	block.Advance(2)
	return ast.NewTextSegment(seg.WithStop(seg.Start + 2))
}
