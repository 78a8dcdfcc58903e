package markdown

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// bulletLists makes one list of bullet lists that follow each other: the
// reference reads "* a\n- b\n+ c" as one list, where CommonMark starts a
// new list at each change of bullet, and joins one to the list before it
// after a blank line too.
type bulletLists struct{}

func (bulletLists) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var lists []*ast.List
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.List); ok && entering && !l.IsOrdered() {
			lists = append(lists, l)
		}
		return ast.WalkContinue, nil
	})
	// Backwards, so that a run of lists folds into its first.
	for i := len(lists) - 1; i >= 0; i-- {
		l := lists[i]
		next, ok := l.NextSibling().(*ast.List)
		if !ok || next.IsOrdered() {
			continue
		}
		if next.HasBlankPreviousLines() {
			// After a blank line the reference joins the lists too, its
			// items around the blank line holding paragraphs.
			l.IsTight = false
			next.FirstChild().SetBlankPreviousLines(true)
		}
		for c := next.FirstChild(); c != nil; c = next.FirstChild() {
			l.AppendChild(l, c)
		}
		l.IsTight = l.IsTight && next.IsTight
		next.Parent().RemoveChild(next.Parent(), next)
	}
}

// looseItems gives paragraphs to the items of a loose list as the
// reference does: only to the items that a blank line separates from the
// item before or after them, or whose blocks a blank line separates
// ("- a\n- b\n\n- c" has "a" as text and "b" and "c" in paragraphs),
// where CommonMark gives them to every item of a list that has a blank
// line anywhere.
type looseItems struct{}

func (looseItems) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	if !bytes.Contains(reader.Source(), []byte("\n\n")) {
		return // a list is loose only with a blank line
	}
	var lists []*ast.List
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.List); ok && entering && !l.IsTight {
			lists = append(lists, l)
		}
		return ast.WalkContinue, nil
	})
	for _, l := range lists {
		for item := l.FirstChild(); item != nil; item = item.NextSibling() {
			loose := item.PreviousSibling() != nil && item.HasBlankPreviousLines() ||
				item.NextSibling() != nil && item.NextSibling().HasBlankPreviousLines()
			for c := item.FirstChild(); c != nil && !loose; c = c.NextSibling() {
				loose = c.PreviousSibling() != nil && c.HasBlankPreviousLines()
			}
			for c := item.FirstChild(); c != nil; {
				next := c.NextSibling()
				switch {
				case loose && c.Kind() == ast.KindTextBlock:
					replaceBlock(item, c, ast.NewParagraph())
				case !loose && c.Kind() == ast.KindParagraph:
					replaceBlock(item, c, ast.NewTextBlock())
				}
				c = next
			}
		}
	}
}

// replaceBlock puts block in old's place in parent, with old's lines and
// inlines.
func replaceBlock(parent, old, block ast.Node) {
	block.SetLines(old.Lines())
	block.SetBlankPreviousLines(old.HasBlankPreviousLines())
	for c := old.FirstChild(); c != nil; c = old.FirstChild() {
		block.AppendChild(block, c)
	}
	parent.ReplaceChild(parent, old, block)
}

// renderTextBlock writes a list item's text right before a list nested in
// the item ("<li>outer<ul>"), as the reference does, instead of on a line
// of its own.
func renderTextBlock(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering && n.FirstChild() != nil {
		if next := n.NextSibling(); next != nil && next.Kind() != ast.KindList {
			_ = w.WriteByte('\n')
		}
	}
	return ast.WalkContinue, nil
}

// listMarker matches a list item's line: its indentation, marker and the
// spaces after the marker.
var listMarker = regexp.MustCompile(`^( *)([*+-]|[0-9]{1,9}\.)( +)\S`)

// nestLists indents list items as CommonMark needs them to nest where the
// reference nests them: it nests an item indented two spaces more than
// the item before it, or into the next pair of spaces (" - a\n  - b"),
// which CommonMark does only when the indentation reaches that item's
// text ("1. A\n  - a" keeps "- a" out of "1. A").
// Such items are moved to their parent's text column; code fences and
// indented code are left alone. A nested numbered list right under its
// parent's text that starts at another number than 1 is written to start
// at 1 (with as many digits), since CommonMark lets no other interrupt a
// paragraph; starts gives its number by the offset of its marker, for
// listStarts to put back.
func nestLists(src string) (out string, starts map[int]int) {
	if !strings.Contains(src, "\n ") {
		return src, nil // no indented line, nothing to nest
	}
	type item struct{ indent, moved, column int }
	var (
		stack     []item
		b         strings.Builder
		changed   bool
		code      codeLines
		prevBlank bool
	)
	for rest := src; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		newline := len(rest) > 0 || strings.HasSuffix(src, "\n")
		trimmed := strings.TrimLeft(line, " ")
		blank := false
		switch {
		case code.next(line):
			stack = stack[:0] // a code block ends the lists: it opens at the first column
		case trimmed == "":
			blank = true
		default:
			var m []string
			if c := trimmed[0]; c == '*' || c == '+' || c == '-' || c >= '0' && c <= '9' {
				m = listMarker.FindStringSubmatch(line)
			}
			if m == nil {
				if len(line)-len(trimmed) < 2 {
					stack = stack[:0] // the lists end
				}
				break
			}
			indent := len(m[1])
			if len(stack) == 0 && indent >= 4 {
				break // indented code, not a list
			}
			sibling := false
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				sibling = sibling || stack[len(stack)-1].indent == indent
				stack = stack[:len(stack)-1]
			}
			moved := indent
			if len(stack) > 0 {
				// Where the item is once its parent has moved, and where
				// it must be to nest in it.
				parent := stack[len(stack)-1]
				moved = parent.moved + indent - parent.indent
				if (indent >= parent.indent+2 || indent/2 > parent.indent/2) && moved < parent.column {
					moved = parent.column
				}
				digits := strings.TrimSuffix(m[2], ".")
				if n, err := strconv.Atoi(digits); err == nil && n != 1 && !sibling && !prevBlank {
					if starts == nil {
						starts = map[int]int{}
					}
					starts[b.Len()+moved] = n
					trimmed = strings.Repeat("0", len(digits)-1) + "1" + trimmed[len(digits):]
					changed = true
				}
			}
			if moved != indent || trimmed != line[indent:] {
				line = strings.Repeat(" ", moved) + trimmed
				changed = true
			}
			stack = append(stack, item{indent, moved, moved + len(m[2]) + len(m[3])})
		}
		prevBlank = blank
		b.WriteString(line)
		if newline {
			b.WriteByte('\n')
		}
	}
	if !changed {
		return src, nil
	}
	return b.String(), starts
}

// listStartsKey is where RenderMessage leaves nestLists' starts for
// listStarts.
var listStartsKey = parser.NewContextKey()

// listStarts gives the nested numbered lists that nestLists renumbered
// their numbers back.
type listStarts struct{}

func (listStarts) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	starts, _ := pc.Get(listStartsKey).(map[int]int)
	if len(starts) == 0 {
		return
	}
	source := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		l, ok := n.(*ast.List)
		if !ok || !entering || !l.IsOrdered() || l.FirstChild() == nil || l.FirstChild().FirstChild() == nil {
			return ast.WalkContinue, nil
		}
		lines := l.FirstChild().FirstChild().Lines()
		if lines == nil || lines.Len() == 0 {
			return ast.WalkContinue, nil
		}
		// The marker is the first thing on the line of the item's text.
		lineStart := bytes.LastIndexByte(source[:lines.At(0).Start], '\n') + 1
		marker := lineStart
		for marker < len(source) && source[marker] == ' ' {
			marker++
		}
		if start, ok := starts[marker]; ok {
			l.Start = start
		}
		return ast.WalkContinue, nil
	})
}

// renderTableCell writes a table cell's alignment as the reference does,
// style="text-align: left;".
func renderTableCell(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*extast.TableCell)
	tag := "td"
	if n.Parent().Kind() == extast.KindTableHeader {
		tag = "th"
	}
	if !entering {
		_, _ = w.WriteString("</" + tag + ">\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<" + tag)
	if n.Alignment != extast.AlignNone {
		_, _ = w.WriteString(` style="text-align: ` + n.Alignment.String() + `;"`)
	}
	_ = w.WriteByte('>')
	return ast.WalkContinue, nil
}

// emptyQuoteLine matches a line of quote marks only ("> >").
var emptyQuoteLine = regexp.MustCompile(`^ {0,3}(?:> ?)*>[ \t]*$`)

// emptyQuotes writes a quote that quotes nothing as text, as the
// reference does: in a block of lines (to a blank line), a quote starts at
// its first line that starts with ">", unless that line and all after it
// are quote marks only. Then their last marks are written as "&gt;":
// ">" alone is the text ">", and ">>>" two quotes around the text ">". A
// line after quote marks only is in the quote, as the reference takes any
// line of the block after a quote's first line (">\n>\ntext" quotes
// "text"), where CommonMark would start a paragraph after an empty quote.
// Code fences are left alone.
func emptyQuotes(src string) string {
	if !strings.Contains(src, ">") {
		return src
	}
	lines := strings.Split(src, "\n")
	changed := false
	var code codeLines
	first := -1 // the block's first line that starts with ">"
	end := func(stop int) {
		if first < 0 {
			return
		}
		for i := first; i < stop; i++ {
			if !emptyQuoteLine.MatchString(lines[i]) {
				first = -1
				return
			}
		}
		for i := first; i < stop; i++ {
			last := strings.LastIndexByte(lines[i], '>')
			lines[i] = lines[i][:last] + "&gt;" + lines[i][last+1:]
		}
		changed, first = true, -1
	}
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case code.next(l):
			end(i)
		case strings.TrimSpace(l) == "":
			end(i)
		case first < 0 && len(l)-len(t) <= 3 && strings.HasPrefix(t, ">"):
			first = i
		case first >= 0 && i > first && !strings.HasPrefix(t, ">") && emptyQuoteLine.MatchString(lines[i-1]):
			lines[i] = strings.TrimRight(lines[i-1], " \t") + " " + l
			changed = true
		}
	}
	end(len(lines))
	if !changed {
		return src
	}
	return strings.Join(lines, "\n")
}

// referenceLists are lists as the reference opens them: its numbered items
// are "1." only, so "1) first" is text; a list starts after a blank line
// or in a list item, and outside one indented a space at most.
type referenceLists struct{ parser.BlockParser }

func (p referenceLists) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	if parenNumbered(line) {
		return nil, parser.NoChildren
	}
	if parent.Kind() != ast.KindListItem {
		// A list interrupts a paragraph only in a list item, where the
		// reference nests it; elsewhere it starts after a blank line,
		// which hangingLists gives it where the reference does.
		if last := pc.LastOpenedBlock().Node; ast.IsParagraph(last) && last.Parent() == parent {
			return nil, parser.NoChildren
		}
		// Outside a list item, an item indented two spaces or more is
		// text: the reference's lists take one space at most there (its
		// nested items are two spaces in from their parent's).
		if pc.BlockIndent() >= 2 {
			return nil, parser.NoChildren
		}
	}
	return p.BlockParser.Open(parent, reader, pc)
}

// parenNumbered reports whether CommonMark would start a numbered list
// item with ")" at line.
func parenNumbered(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	digits := i
	for i < len(line) && i-digits < 10 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == digits || i-digits > 9 || i == len(line) || line[i] != ')' {
		return false
	}
	i++
	return i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'
}

// hangingLists puts a blank line where the reference's Markdown puts one
// before parsing, so that a list may follow a line of text: before a line
// that its list preprocessor takes for an item ("- x", "3. x": one digit),
// after a line of text or an item of the other kind, outside code fences
// (quote fences are not code). A list elsewhere, such as after text in a
// ">" quote, stays text as there (referenceLists). Where the blank line
// separates an item's text from a nested list of the other kind, the item
// holds paragraphs, as the reference's does.
func hangingLists(src string) string {
	if !mayHangList(src) {
		return src
	}
	lines := strings.Split(src, "\n")
	type open struct {
		fence fence
		code  bool
	}
	var (
		fences  []open
		inCode  bool
		b       strings.Builder
		changed bool
	)
	b.Grow(len(src))
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		if i == len(lines)-1 {
			break
		}
		// The list preprocessor's own reading of fences: a fence without
		// a language closes the last one opened with the same fence, and
		// its languages are compared as typed. It reads the lines before
		// their ends are normalized, and takes no line ending in "\r"
		// for a fence.
		if f, lang, ok := fenceLine(l); ok && !strings.HasSuffix(l, "\r") {
			if lang == "" && len(fences) > 0 && fences[len(fences)-1].fence == f {
				fences = fences[:len(fences)-1]
			} else {
				fences = append(fences, open{f, lang != "quote" && lang != "quoted"})
			}
			inCode = false
			for _, f := range fences {
				inCode = inCode || f.code
			}
		}
		if inCode || l == "" {
			continue
		}
		item, next := itemKind(l), itemKind(lines[i+1])
		if next != notItem && item != next {
			b.WriteByte('\n')
			changed = true
		}
	}
	if !changed {
		return src
	}
	return b.String()
}

// mayHangList reports whether a line after the first may be an item
// (itemKind), cheaply: after its spaces, a bullet or a digit.
func mayHangList(src string) bool {
	for i := strings.IndexByte(src, '\n'); i >= 0; {
		j := i + 1
		for j < len(src) && src[j] == ' ' {
			j++
		}
		if j < len(src) {
			if c := src[j]; c == '*' || c == '+' || c == '-' || c >= '0' && c <= '9' || c >= 0x80 {
				return true
			}
		}
		next := strings.IndexByte(src[j:], '\n')
		if next < 0 {
			break
		}
		i = j + next
	}
	return false
}

// itemKind tells whether the reference's list preprocessor takes a line
// for a list item, and which: after spaces, a bullet or one digit and a
// dot, then a space.
func itemKind(line string) int {
	rest := strings.TrimLeft(line, " ")
	if len(rest) >= 2 && strings.IndexByte("*+-", rest[0]) >= 0 && rest[1] == ' ' {
		return bulletItem
	}
	if r, size := utf8.DecodeRuneInString(rest); unicode.IsDigit(r) && len(rest) > size+1 && rest[size] == '.' && rest[size+1] == ' ' {
		return numberedItem
	}
	return notItem
}

// The kinds of itemKind.
const (
	notItem = iota
	bulletItem
	numberedItem
)
