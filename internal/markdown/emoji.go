package markdown

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// emojiParser renders :name: for a Unicode emoji name or alias as the
// reference does: a span of class "emoji emoji-{code}" titled with the
// name as written (underscores as spaces) that keeps the :name: text.
// Unknown names stay text. Custom emoji stay text too: this server keeps
// no images for them.
type emojiParser struct{}

func (emojiParser) Trigger() []byte { return []byte{':'} }

func (emojiParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	r := stateOf(pc)
	if r == nil || r.env.Emoji == nil {
		return nil
	}
	line, _ := block.PeekLine()
	end := 1
	for end < len(line) && emojiNameByte(line[end]) {
		end++
	}
	if end == 1 || end >= len(line) || line[end] != ':' {
		return nil
	}
	name := string(line[1:end])
	code, ok := r.env.Emoji(name)
	if !ok {
		return nil
	}
	block.Advance(end + 1)
	return &referenceNode{html: emojiSpan(name, code)}
}

// emojiNameByte reports whether c may be part of an emoji name in :name:
// syntax: ASCII letters and digits, "_", "-" and "+".
func emojiNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '+'
}

// emojiSpan is the HTML of a Unicode emoji written as :name:.
func emojiSpan(name, code string) string {
	title := escapeAttr(strings.ReplaceAll(name, "_", " "))
	return `<span aria-label="` + title + `" class="emoji emoji-` + code + `" role="img" title="` + title + `">:` +
		escapeText(name) + `:</span>`
}

// unicodeEmojiTransformer renders an emoji typed as such (💩, 👁‍🗨, ⬆️)
// as the reference does: the span of its canonical :name:, in text
// outside code. An emoji is a character with its variation selector,
// modifier or keycap, joined to more by zero-width joiners; one that has
// no name (a newer sequence, a skin tone) stays text whole, none of its
// parts taken apart. It works on the parsed text rather than as an inline
// parser: goldmark tries those only after spaces and punctuation.
type unicodeEmojiTransformer struct{}

func (unicodeEmojiTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil || r.env.EmojiName == nil {
		return
	}
	source := reader.Source()
	for _, t := range textsOutsideCode(doc) {
		r.emojifyText(t, source)
	}
}

// textsOutsideCode returns the texts of doc that are not code, nor inside
// code or a rendered reference, in document order: those that emoji and
// emoticons may stand in.
func textsOutsideCode(doc *ast.Document) []*ast.Text {
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *referenceNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if entering && !n.IsRaw() {
				texts = append(texts, n)
			}
		}
		return ast.WalkContinue, nil
	})
	return texts
}

// emojifyText replaces the named emoji in t with their spans.
func (r *render) emojifyText(t *ast.Text, source []byte) {
	seg := t.Segment
	value := seg.Value(source)
	parent := t.Parent()
	pos, done := 0, 0 // the scan, and the text already moved before t
	for pos < len(value) {
		n, code := emojiSequence(value[pos:])
		if n == 0 {
			_, size := utf8.DecodeRune(value[pos:])
			pos += size
			continue
		}
		name, ok := r.env.EmojiName(code)
		if !ok {
			pos += n
			continue
		}
		if pos > done {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+done, seg.Start+pos)))
		}
		parent.InsertBefore(parent, t, &referenceNode{html: emojiSpan(name, code)})
		pos += n
		done = pos
	}
	if done == 0 {
		return
	}
	// What is left of t keeps its line break.
	t.Segment = text.NewSegment(seg.Start+done, seg.Stop)
}

// emojiSequence reads the emoji at the start of b: its length in bytes and
// its code (code points in hex, at least four digits, joined by "-",
// without variation selectors); 0 when b does not start with one.
func emojiSequence(b []byte) (int, string) {
	first, size := utf8.DecodeRune(b)
	if first < utf8.RuneSelf {
		// A keycap: the character, its variation selector, U+20E3.
		rest := strings.TrimPrefix(string(b[1:]), "\uFE0F")
		if !strings.HasPrefix(rest, "\u20E3") {
			return 0, ""
		}
		n := len(b) - len(rest) + len("\u20E3")
		return n, fmt.Sprintf("%04x-20e3", first)
	}
	if !emojiStart(first) {
		return 0, ""
	}
	var parts []string
	n := 0
	add := func(r rune, size int) {
		n += size
		if r != 0xFE0F {
			parts = append(parts, fmt.Sprintf("%04x", r))
		}
	}
	add(first, size)
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		switch {
		case r == 0xFE0F, r == 0x20E3, r >= 0x1F3FB && r <= 0x1F3FF, r >= 0xE0020 && r <= 0xE007F:
			add(r, size) // variation selector, keycap, skin tone, tag
		case r >= 0x1F1E6 && r <= 0x1F1FF && first >= 0x1F1E6 && first <= 0x1F1FF && len(parts) == 1:
			add(r, size) // a flag's second regional indicator
		case r == 0x200D:
			next, nsize := utf8.DecodeRune(b[n+size:])
			if !emojiStart(next) {
				return n, strings.Join(parts, "-")
			}
			add(r, size)
			add(next, nsize)
		default:
			return n, strings.Join(parts, "-")
		}
	}
	return n, strings.Join(parts, "-")
}

// emojiStart reports whether r may begin an emoji.
func emojiStart(r rune) bool {
	return r == 0xA9 || r == 0xAE || r >= 0x2000 && r <= 0x2FFF || r >= 0x3030 && r <= 0x3299 || r >= 0x1F000 && r <= 0x1FAFF
}
