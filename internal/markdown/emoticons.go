package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// emoticons are the emoticons the reference translates for senders who
// turned on translate_emoticons, with the emoji name each becomes, in the
// order its pattern tries them.
var emoticons = []struct{ typed, name string }{
	{":)", "smile"}, {"(:", "smile"}, {":(", "frown"}, {"<3", "heart"}, {":|", "neutral"},
	{":/", "confused"}, {";)", "wink"}, {":D", "grinning"}, {":o", "open_mouth"}, {":O", "open_mouth"},
	{":p", "stuck_out_tongue"}, {":P", "stuck_out_tongue"},
}

// emoticonBounds are the characters an emoticon may follow or precede
// (or the text's start or end), as the reference's pattern has them.
const emoticonBounds = ",.;?!()[] \"'\n\t"

// MayHaveEmoticon reports whether src may hold an emoticon that
// Env.TranslateEmoticons would translate, so that a caller can skip
// reading the sender's setting for other messages: one that no letter or
// digit touches (markup around it, as in "**:)**", may be its bound).
func MayHaveEmoticon(src string) bool {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for _, e := range emoticons {
		for rest, at := src, 0; ; {
			i := strings.Index(rest, e.typed)
			if i < 0 {
				break
			}
			at += i
			if (at == 0 || !alnum(src[at-1])) && (at+2 == len(src) || !alnum(src[at+2])) {
				return true
			}
			at++
			rest = src[at:]
		}
	}
	return false
}

// emoticonTransformer renders the emoticons of text outside code as the
// emoji they stand for (":)" as the span of :smile:), when the sender
// translates emoticons: an emoticon between spaces, punctuation of
// emoticonBounds, line ends or the text's ends, as the reference's pattern
// finds it. A link, mention or other markup right beside one is no such
// bound (the reference sees a placeholder there).
type emoticonTransformer struct{}

func (emoticonTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil || !r.env.TranslateEmoticons || r.env.Emoji == nil {
		return
	}
	source := reader.Source()
	for _, t := range textsOutsideCode(doc) {
		r.translateEmoticons(t, source)
	}
}

// translateEmoticons replaces the emoticons of t with emoji spans.
func (r *render) translateEmoticons(t *ast.Text, source []byte) {
	seg := t.Segment
	value := seg.Value(source)
	parent := t.Parent()
	// What lies beside t: a text's character, a line end, the start or
	// end, or other markup.
	boundBefore := true
	switch p := t.PreviousSibling().(type) {
	case nil:
	case *ast.Text:
		if v := p.Segment.Value(source); !p.SoftLineBreak() && !p.HardLineBreak() && len(v) > 0 {
			boundBefore = strings.IndexByte(emoticonBounds, v[len(v)-1]) >= 0
		}
	default:
		boundBefore = false
	}
	boundAfter := t.SoftLineBreak() || t.HardLineBreak()
	if !boundAfter {
		switch n := t.NextSibling().(type) {
		case nil:
			boundAfter = true
		case *ast.Text:
			v := n.Segment.Value(source)
			boundAfter = len(v) == 0 || strings.IndexByte(emoticonBounds, v[0]) >= 0
		}
	}
	done := 0 // the text already moved before t
	for pos := 0; pos+2 <= len(value); pos++ {
		// Right after a translated emoticon counts as the text's start: the
		// reference's pattern looks at the rest of the text on its own.
		before := boundBefore
		if pos > 0 {
			before = pos == done || strings.IndexByte(emoticonBounds, value[pos-1]) >= 0
		}
		if !before {
			continue
		}
		after := boundAfter
		if pos+2 < len(value) {
			after = strings.IndexByte(emoticonBounds, value[pos+2]) >= 0
		}
		if !after {
			continue
		}
		for _, e := range emoticons {
			if string(value[pos:pos+2]) != e.typed {
				continue
			}
			code, ok := r.env.Emoji(e.name)
			if !ok {
				break
			}
			if pos > done {
				parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+done, seg.Start+pos)))
			}
			parent.InsertBefore(parent, t, &referenceNode{html: emojiSpan(e.name, code)})
			done = pos + 2
			pos++
			break
		}
	}
	if done == 0 {
		return
	}
	// What is left of t keeps its line break.
	t.Segment = text.NewSegment(seg.Start+done, seg.Stop)
}
