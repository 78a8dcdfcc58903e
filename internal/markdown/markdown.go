// Package markdown renders the Markdown that users write, messages and
// descriptions alike as the reference does (RenderMessage): mentions,
// channel links, :emoji: names, linkifiers, and the reference's quote and
// spoiler fences, code blocks and <time:…> moments. It knows nothing of
// storage: a render resolves names through the Env its caller gives.
package markdown

import (
	"reflect"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// referenceHTML writes the nodes whose HTML the reference writes otherwise
// than goldmark: code blocks and spans (blocks.go), links (escape.go), list
// items' text and table cells (structure.go). Raw HTML is not Markdown in
// the reference: its parsers are left out, so "<b>" is the text "<b>",
// escaped, and html.WithUnsafe stays off as a second line of defence.
type referenceHTML struct{}

func (referenceHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderCode)
	reg.Register(ast.KindCodeBlock, renderCode)
	reg.Register(ast.KindCodeSpan, renderCodeSpan)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindTextBlock, renderTextBlock)
	reg.Register(extast.KindTableCell, renderTableCell)
}

// without returns the parsers of list whose type is not that of drop.
func without(list []util.PrioritizedValue, drop any) []util.PrioritizedValue {
	out := make([]util.PrioritizedValue, 0, len(list))
	for _, p := range list {
		if reflect.TypeOf(p.Value) != reflect.TypeOf(drop) {
			out = append(out, p)
		}
	}
	return out
}

// starEmphasis is goldmark's emphasis with stars only: the reference
// leaves _underscores_ and __double underscores__ as typed, so that names
// and identifiers written with them survive.
type starEmphasis struct{}

var emphasis = parser.NewEmphasisParser()

func (starEmphasis) Trigger() []byte { return []byte{'*'} }

func (starEmphasis) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, _ := block.PeekLine()
	node := emphasis.Parse(parent, block, pc)
	// The reference's **strong** is any text between two pairs of stars
	// on a line, spaces around it included ("** note **"), where
	// CommonMark's flanking rules see no strong. A pair may open when
	// text follows it and close when text precedes it; it gets no more
	// than it needs, so that CommonMark's rule for runs that could do
	// both keeps "**x*" as "*<em>x</em>", as in the reference.
	if d, ok := node.(*parser.Delimiter); ok && d.OriginalLength == 2 {
		after := len(line) > 2 && line[2] != '\n' && line[2] != '\r'
		d.CanOpen = d.CanOpen || after
		d.CanClose = d.CanClose || before != '\n'
	}
	return node
}

// inlineParsers are goldmark's inline parsers without raw HTML or images,
// backslashes read as text, code spans as the reference reads them, and
// emphasis by stars only.
func inlineParsers() []util.PrioritizedValue {
	list := without(without(without(parser.DefaultInlineParsers(), parser.NewRawHTMLParser()), emphasis), parser.NewCodeSpanParser())
	return append(list, util.Prioritized(referenceCodeSpans{}, 100), util.Prioritized(starEmphasis{}, 500), util.Prioritized(noImages{}, 100), util.Prioritized(referenceStrike{}, 500), util.Prioritized(backslashText{}, 100))
}

// referenceEmphasis makes emphasis the reference's: its *emphasis*,
// **strong** and ~~strikethrough~~ end on the line they start on, so
// across lines their marks stay as typed; *emphasis* holds no star or
// caret of its own text ("*a ** b*" and "*x^2*" stay as typed: its
// pattern excludes both); and ***both*** is strong outside, emphasis
// inside.
type referenceEmphasis struct{}

func (referenceEmphasis) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	type span struct {
		n     ast.Node
		marks string
	}
	var spanning []span
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch e := n.(type) {
		case *extast.Strikethrough:
			if spansLines(e) {
				spanning = append(spanning, span{e, "~~"})
			}
		case *ast.Emphasis:
			if spansLines(e) || e.Level == 1 && !isEmphasis(e.FirstChild()) && hasTextByte(e, reader.Source(), "*^") {
				spanning = append(spanning, span{e, "**"[:e.Level]})
			} else if inner, ok := e.FirstChild().(*ast.Emphasis); ok && e.Level == 1 && inner.Level == 2 && inner.NextSibling() == nil {
				e.Level, inner.Level = 2, 1
			}
		}
		return ast.WalkContinue, nil
	})
	for _, s := range spanning {
		e, parent := s.n, s.n.Parent()
		parent.InsertBefore(parent, e, ast.NewString([]byte(s.marks)))
		for c := e.FirstChild(); c != nil; c = e.FirstChild() {
			parent.InsertBefore(parent, e, c)
		}
		parent.ReplaceChild(parent, e, ast.NewString([]byte(s.marks)))
	}
}

// referenceStrike reads strikethrough as the reference does: two tildes
// only ("~5 min" and "~~~" are text), and with spaces inside allowed
// ("~~ like this ~~"), which CommonMark's flanking rules refuse.
type referenceStrike struct{}

func (referenceStrike) Trigger() []byte { return []byte{'~'} }

func (referenceStrike) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	n := 0
	for n < len(line) && line[n] == '~' {
		n++
	}
	if n != 2 || before == '~' {
		block.Advance(n)
		return ast.NewTextSegment(seg.WithStop(seg.Start + n))
	}
	node := strike.Parse(parent, block, pc)
	if d, ok := node.(*parser.Delimiter); ok {
		d.CanOpen, d.CanClose = true, true
	}
	return node
}

var strike = extension.NewStrikethroughParser()

// spansLines reports whether a line break falls inside n.
func spansLines(n ast.Node) bool {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok && (t.SoftLineBreak() || t.HardLineBreak()) || spansLines(c) {
			return true
		}
	}
	return false
}

func isEmphasis(n ast.Node) bool {
	_, ok := n.(*ast.Emphasis)
	return ok
}

// hasTextByte reports whether the text right inside n holds any of the
// bytes in chars. Links, code spans, mentions and the like inside n are
// not its text: the reference matches them before emphasis, which sees
// each as a placeholder.
func hasTextByte(n ast.Node, src []byte, chars string) bool {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			if strings.ContainsAny(string(c.Segment.Value(src)), chars) {
				return true
			}
		case *ast.String:
			if strings.ContainsAny(string(c.Value), chars) {
				return true
			}
		}
	}
	return false
}
