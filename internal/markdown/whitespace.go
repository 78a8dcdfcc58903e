package markdown

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// tabWidth is the reference's tab stop: its Markdown expands tabs to every
// fourth column before it parses anything, code blocks included.
const tabWidth = 4

// normalizeWhitespace does to a text what the reference's Markdown does
// before parsing it: line ends become "\n", and tabs become spaces to the
// next tab stop (columns counted in characters, from each line's start),
// so Go code pasted with tabs reads as the reference shows it, four
// columns a level. (The reference also empties lines of spaces only;
// every block here reads such a line as blank, and code blocks drop
// their lines' trailing spaces.)
func normalizeWhitespace(src string) string {
	if !strings.ContainsAny(src, "\t\r") {
		return src
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		writeExpanded(&b, src[i:end])
		if end < len(src) {
			b.WriteByte('\n')
		}
		i = end + 1
	}
	return b.String()
}

// writeExpanded writes line with its tabs expanded to tabWidth stops.
func writeExpanded(b *strings.Builder, line string) {
	if strings.IndexByte(line, '\t') < 0 {
		b.WriteString(line)
		return
	}
	column := 0
	for len(line) > 0 {
		r, size := utf8.DecodeRuneInString(line)
		if r == '\t' {
			spaces := tabWidth - column%tabWidth
			b.WriteString("    "[:spaces])
			column += spaces
		} else {
			b.WriteString(line[:size])
			column++
		}
		line = line[size:]
	}
}

// lineSpaces keeps the spaces around a paragraph's lines that CommonMark
// trims and the reference keeps: its paragraphs are their lines as typed,
// but for the first line's leading spaces.
//   - Spaces at a line's end stay, before its line break ("a  \nb" is
//     "a  <br>\nb": the reference has no two-space break, each line end is a
//     break) and at the paragraph's end ("opened vs2013 " in a list item).
//   - A continuation line keeps its indentation ("a\n  b" is
//     "a<br>\n  b"), after a quote's ">" and the one space it takes, and in
//     a list item's first paragraph ("* a\n  b": the reference keeps the
//     item's lines as typed). Other paragraphs of list items, and items
//     of nested lists, have their indentation taken by the lists in the
//     reference too, and stay as CommonMark reads them.
type lineSpaces struct{}

func (lineSpaces) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	if !bytes.Contains(src, []byte(" \n")) && !bytes.Contains(src, []byte("\n ")) && !bytes.Contains(src, []byte(">  ")) &&
		!bytes.HasSuffix(src, []byte(" ")) {
		return // no spaces at a line's end, at its start or after ">": nothing to keep
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindParagraph, ast.KindTextBlock:
			keepTrailingSpaces(n, src)
			if keepsIndentation(n) {
				keepIndentation(n, src)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// keepTrailingSpaces extends the text that ends each of block's lines over
// the spaces after it.
func keepTrailingSpaces(block ast.Node, src []byte) {
	lines := block.Lines()
	if lines.Len() == 0 {
		return
	}
	end := lines.At(lines.Len() - 1).Stop
	// spacesAfter returns where the spaces from i end, if a line end
	// follows them.
	spacesAfter := func(i int) (int, bool) {
		stop := i
		for stop < len(src) && src[stop] == ' ' {
			stop++
		}
		return stop, stop > i && (stop == len(src) || src[stop] == '\n')
	}
	for c := block.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok || !(t.SoftLineBreak() || t.HardLineBreak() || (c.NextSibling() == nil && t.Segment.Stop == end)) {
			continue
		}
		if stop, ok := spacesAfter(t.Segment.Stop); ok {
			t.Segment = t.Segment.WithStop(stop)
		}
	}
	// A last line that ends with another inline than text ("`c`  ") has
	// no text after it to extend.
	if last := block.LastChild(); last != nil && last.Kind() != ast.KindText {
		if stop, ok := spacesAfter(end); ok {
			block.AppendChild(block, ast.NewTextSegment(text.NewSegment(end, stop)))
		}
	}
}

// keepsIndentation says whether the reference keeps the indentation of
// block's continuation lines: outside lists, and in the first block of an
// item of a list that no list item holds.
func keepsIndentation(block ast.Node) bool {
	var item ast.Node
	for p := block.Parent(); p != nil; p = p.Parent() {
		if p.Kind() != ast.KindListItem {
			continue
		}
		if item != nil {
			return false // a nested list
		}
		item = p
	}
	return item == nil || item.FirstChild() == block
}

// keepIndentation gives each of block's lines after the first the spaces
// before it in the source, back to the line's start or to a quote's ">"
// and its space.
func keepIndentation(block ast.Node, src []byte) {
	lines := block.Lines()
	starts := make(map[int]int, lines.Len())
	for i := 1; i < lines.Len(); i++ {
		s := lines.At(i).Start
		j := s
		for j > 0 && src[j-1] == ' ' {
			j--
		}
		keep := s - j
		switch {
		case j == 0 || src[j-1] == '\n':
		case src[j-1] == '>':
			keep--
		default:
			keep = 0
		}
		if keep > 0 {
			starts[s] = keep
		}
	}
	if len(starts) == 0 {
		return
	}
	// A text that starts a line, code spans' included (a span may go on
	// across lines), takes the spaces before it.
	_ = ast.Walk(block, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*ast.Text); ok && entering {
			if keep, ok := starts[t.Segment.Start]; ok {
				t.Segment = text.NewSegment(t.Segment.Start-keep, t.Segment.Stop)
				delete(starts, t.Segment.Start+keep)
			}
		}
		return ast.WalkContinue, nil
	})
	if len(starts) == 0 {
		return
	}
	// Another inline that starts a line comes after a line break: the
	// spaces go before it.
	for c := block.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok || !(t.SoftLineBreak() || t.HardLineBreak()) {
			continue
		}
		next := c.NextSibling()
		if next == nil {
			break
		}
		s := lineStart(lines, next)
		keep, ok := starts[s]
		if !ok {
			continue
		}
		block.InsertBefore(block, next, ast.NewTextSegment(text.NewSegment(s-keep, s)))
		delete(starts, s)
	}
}

// lineStart returns the start of the line among lines that holds n's
// first text, or -1 when n holds no text.
func lineStart(lines *text.Segments, n ast.Node) int {
	for n != nil {
		if t, ok := n.(*ast.Text); ok {
			// The lines are in source order: the last that starts at
			// or before the text's start holds it.
			p := t.Segment.Start
			i := sort.Search(lines.Len(), func(i int) bool { return lines.At(i).Start > p }) - 1
			if i < 0 || p > lines.At(i).Stop {
				return -1
			}
			return lines.At(i).Start
		}
		n = n.FirstChild()
	}
	return -1
}
