package markdown

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// bulletLists makes one list of bullet lists that follow each other
// without a blank line: the reference reads "* a\n- b\n+ c" as one list,
// where CommonMark starts a new list at each change of bullet.
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
		if !ok || next.IsOrdered() || next.HasBlankPreviousLines() {
			continue
		}
		for c := next.FirstChild(); c != nil; c = next.FirstChild() {
			l.AppendChild(l, c)
		}
		l.IsTight = l.IsTight && next.IsTight
		next.Parent().RemoveChild(next.Parent(), next)
	}
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
var listMarker = regexp.MustCompile(`^( *)([*+-]|[0-9]{1,9}[.)])( +)\S`)

// nestLists indents list items as CommonMark needs them to nest where the
// reference nests them: it nests an item indented two spaces more than
// the item before it, which CommonMark does only when the indentation
// reaches that item's text ("1. A\n  - a" keeps "- a" out of "1. A").
// Such items are moved to their parent's text column; code fences and
// indented code are left alone. (A nested numbered list that starts at
// another number than 1 still does not nest: CommonMark lets no such list
// interrupt its parent's text.)
func nestLists(src string) string {
	type item struct{ indent, moved, column int }
	var (
		stack   []item
		out     strings.Builder
		changed bool
		fence   string
	)
	for rest := src; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		newline := len(rest) > 0 || strings.HasSuffix(src, "\n")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			if len(line)-len(trimmed) < 2 {
				stack = stack[:0] // the lists end
			}
		case trimmed == "":
		default:
			m := listMarker.FindStringSubmatch(line)
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
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			moved := indent
			if len(stack) > 0 {
				// Where the item is once its parent has moved, and where
				// it must be to nest in it.
				parent := stack[len(stack)-1]
				moved = parent.moved + indent - parent.indent
				if indent >= parent.indent+2 && moved < parent.column {
					moved = parent.column
				}
			}
			if moved != indent {
				line = strings.Repeat(" ", moved) + trimmed
				changed = true
			}
			stack = append(stack, item{indent, moved, moved + len(m[2]) + len(m[3])})
		}
		out.WriteString(line)
		if newline {
			out.WriteByte('\n')
		}
	}
	if !changed {
		return src
	}
	return out.String()
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
