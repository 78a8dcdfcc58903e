package markdown

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
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

// listRenderer writes a list item's text right before a list nested in
// the item ("<li>outer<ul>"), as the reference does, instead of on a line
// of its own.
type listRenderer struct{}

func (listRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindTextBlock, renderTextBlock)
}

func renderTextBlock(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering && n.FirstChild() != nil {
		if next := n.NextSibling(); next != nil && next.Kind() != ast.KindList {
			_ = w.WriteByte('\n')
		}
	}
	return ast.WalkContinue, nil
}
