package markdown

import (
	"html"
	"strings"

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
	title := html.EscapeString(strings.ReplaceAll(name, "_", " "))
	return `<span aria-label="` + title + `" class="emoji emoji-` + code + `" role="img" title="` + title + `">:` +
		html.EscapeString(name) + `:</span>`
}
