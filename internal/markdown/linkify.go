package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// linkifierTransformer applies the organization's linkifiers to the text
// outside code, links and references, and notes links, images and
// attachments for the "has" narrows.
type linkifierTransformer struct{}

func (linkifierTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil {
		return
	}
	source := reader.Source()
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			r.noteLink(string(n.Destination))
			if len(strings.TrimSpace(string(n.Text(source)))) == 0 {
				// [](url) shows its URL, as the reference's does.
				for n.FirstChild() != nil {
					n.RemoveChild(n, n.FirstChild())
				}
				n.AppendChild(n, ast.NewString(n.Destination))
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			r.noteLink(string(n.URL(source)))
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			r.res.HasImage = true
			r.noteLink(string(n.Destination))
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *referenceNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, n)
		}
		return ast.WalkContinue, nil
	})
	if r.env.Linkify == nil {
		return
	}
	for i := 0; i < len(texts); i++ {
		t := texts[i]
		if t.Parent() == nil {
			continue // merged into its predecessor
		}
		if r.env.Stop != nil && r.env.Stop() {
			r.res.Stopped = true
			return
		}
		// Join the text nodes that continue t in the source, so a pattern
		// is matched across the places where inline parsing split text.
		for !t.SoftLineBreak() && !t.HardLineBreak() {
			next, ok := t.NextSibling().(*ast.Text)
			if !ok || next.Segment.Start != t.Segment.Stop || next.IsRaw() != t.IsRaw() {
				break
			}
			t.Segment = t.Segment.WithStop(next.Segment.Stop)
			t.SetSoftLineBreak(next.SoftLineBreak())
			t.SetHardLineBreak(next.HardLineBreak())
			next.Parent().RemoveChild(next.Parent(), next)
		}
		r.linkifyText(t, source)
	}
}

// noteLink records a link target for the "has" narrows.
func (r *render) noteLink(dest string) {
	r.res.HasLink = true
	if strings.HasPrefix(dest, "/user_uploads/") {
		r.res.HasAttachment = true
	}
}

// linkifyText replaces the linkifier matches in t with links.
func (r *render) linkifyText(t *ast.Text, source []byte) {
	value := string(t.Segment.Value(source))
	matches := r.env.Linkify(value)
	if len(matches) == 0 {
		return
	}
	r.res.HasLink = true
	parent := t.Parent()
	seg := t.Segment
	pos := 0
	for _, m := range matches {
		if m.Start > pos {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+pos, seg.Start+m.Start)))
		}
		link := ast.NewLink()
		link.Destination = []byte(m.URL)
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(seg.Start+m.Start, seg.Start+m.End)))
		parent.InsertBefore(parent, t, link)
		pos = m.End
	}
	if pos < len(value) {
		rest := ast.NewTextSegment(text.NewSegment(seg.Start+pos, seg.Stop))
		rest.SetSoftLineBreak(t.SoftLineBreak())
		rest.SetHardLineBreak(t.HardLineBreak())
		parent.InsertBefore(parent, t, rest)
	} else if t.SoftLineBreak() || t.HardLineBreak() {
		br := ast.NewTextSegment(text.NewSegment(seg.Stop, seg.Stop))
		br.SetSoftLineBreak(t.SoftLineBreak())
		br.SetHardLineBreak(t.HardLineBreak())
		parent.InsertBefore(parent, t, br)
	}
	parent.RemoveChild(parent, t)
}
