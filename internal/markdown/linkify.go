package markdown

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// linkifierTransformer makes links of the web links and the organization's
// linkifier matches in the text outside code, links and references (web
// links first, as the reference matches them first), gives Markdown links
// the reference's targets, and notes links, images and attachments for the
// "has" narrows.
type linkifierTransformer struct{}

func (linkifierTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil {
		return
	}
	source := reader.Source()
	var texts []*ast.Text
	var refused []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			target, ok := linkTarget(string(n.Destination))
			if !ok {
				refused = append(refused, n)
				return ast.WalkSkipChildren, nil
			}
			target = r.local(target)
			n.Destination = []byte(target)
			r.noteLink(target)
			if len(strings.TrimSpace(string(n.Text(source)))) == 0 {
				// [](url) shows its target, as the reference's does.
				for n.FirstChild() != nil {
					n.RemoveChild(n, n.FirstChild())
				}
				n.AppendChild(n, ast.NewString(n.Destination))
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			r.noteLink(string(n.URL(source)))
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *referenceNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, n)
		}
		return ast.WalkContinue, nil
	})
	for _, link := range refused {
		// A link to a scheme the reference does not allow stays the text
		// it was written as.
		written := "[" + string(link.Text(source)) + "](" + string(link.Destination) + ")"
		link.Parent().ReplaceChild(link.Parent(), link, ast.NewString([]byte(written)))
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
		if r.res.TooLong {
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

// local makes a link to the organization's own "#narrow" views or uploads
// relative ("#narrow/…", "user_uploads/…"), as the reference does.
func (r *render) local(target string) string {
	if r.env.RealmURL == "" {
		return target
	}
	prefix := r.env.RealmURL + "/"
	if rest, ok := strings.CutPrefix(target, prefix); ok && (strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "user_uploads/")) {
		return rest
	}
	return target
}

// noteLink records a link target for the "has" narrows: an uploaded file
// is an attachment, and an image when its name says so.
func (r *render) noteLink(dest string) {
	r.res.HasLink = true
	if strings.HasPrefix(dest, "/user_uploads/") || strings.HasPrefix(dest, "user_uploads/") {
		r.res.HasAttachment = true
		r.res.HasImage = r.res.HasImage || imageName.MatchString(dest)
	}
}

// imageName matches the names of the image files the reference counts for
// has:image.
var imageName = regexp.MustCompile(`(?i)\.(bmp|gif|jpe?g|png|tiff?|webp)$`)

// linkifyText replaces the web links in t, and the linkifier matches in
// the text between them, with links.
func (r *render) linkifyText(t *ast.Text, source []byte) {
	matches := r.textLinks(source, t.Segment.Start, t.Segment.Stop)
	if len(matches) == 0 {
		return
	}
	parent := t.Parent()
	seg := t.Segment
	pos := 0
	for _, m := range matches {
		if !r.grow(len(m.URL)) {
			return // the rendering stops: its HTML would be too long
		}
		if m.Start > pos {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+pos, seg.Start+m.Start)))
		}
		link := ast.NewLink()
		link.Destination = []byte(r.local(m.URL))
		r.noteLink(string(link.Destination))
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(seg.Start+m.Start, seg.Start+m.End)))
		parent.InsertBefore(parent, t, link)
		pos = m.End
	}
	if pos < seg.Len() {
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

// textLinks returns the web links in source[start:stop] and the linkifier
// matches between them, in order.
func (r *render) textLinks(source []byte, start, stop int) []Link {
	web := webLinks(source, start, stop)
	if r.env.Linkify == nil {
		return web
	}
	var all []Link
	gap := 0
	for k := 0; k <= len(web); k++ {
		end := stop - start
		if k < len(web) {
			end = web[k].Start
		}
		if end > gap {
			for _, m := range r.env.Linkify(string(source[start+gap : start+end])) {
				all = append(all, Link{Start: m.Start + gap, End: m.End + gap, URL: m.URL})
			}
		}
		if k < len(web) {
			all = append(all, web[k])
			gap = web[k].End
		}
	}
	return all
}
