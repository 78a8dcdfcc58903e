package markdown

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// referenceCodeSpans reads code spans as the reference's pattern matches
// them in a paragraph's text: a run of backticks, then anything, line ends
// included, up to the next run of exactly as many backticks, the content
// kept as typed (no space taken off its ends, no line end made a space).
// When no later run is as long, the pattern tries the run one backtick
// shorter, the first backtick of the content then being one of the
// opening run's, and so on: "“a`" is "`" and the code "a". (CommonMark,
// goldmark's parser, leaves the run as text in both cases.) A fence that
// the reference does not open, indented in a list item or after ">", is
// such a span: "```\n  code\n  ```" is the code "\n  code\n  ".
type referenceCodeSpans struct{}

func (referenceCodeSpans) Trigger() []byte { return []byte{'`'} }

func (referenceCodeSpans) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, start := block.PeekLine()
	opener := 0
	for opener < len(line) && line[opener] == '`' {
		opener++
	}
	// Most spans close on their line: a run as long as the opener's there
	// is the one the pattern takes.
	for i := opener; i < len(line); i++ {
		if line[i] != '`' {
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		if j-i == opener {
			node := ast.NewCodeSpan()
			node.AppendChild(node, ast.NewRawTextSegment(text.NewSegment(start.Start+opener, start.Start+i)))
			block.Advance(j)
			return node
		}
		i = j - 1
	}
	startLine, startPos := block.Position()

	// The paragraph's text after the opening run, a line at a time, and
	// the first later run of each length up to the opener's, read until
	// one as long as the opener's. (A run with none reads the paragraph
	// to its end; those runs have lengths that no later run has, all
	// different, so there are fewer of them than the square root of
	// twice the paragraph's length.)
	type place struct {
		line   int // 1 for the opener's line; 0: none found
		offset int // in the line as read (the opener's: after the run)
		stop   int // the run's start in the source
	}
	type position struct {
		line int
		seg  text.Segment
	}
	var (
		segs   []text.Segment
		starts []position
		first  = make([]place, opener+1) // by length
		found  int                       // the longest length found
	)
	block.Advance(opener)
	for n := 1; found < opener; n++ {
		l, seg := block.PeekLine()
		if l == nil {
			break
		}
		at, pos := block.Position()
		starts = append(starts, position{at, pos})
		segs = append(segs, seg)
		for i := 0; i < len(l) && found < opener; i++ {
			if l[i] != '`' {
				continue
			}
			j := i
			for j < len(l) && l[j] == '`' {
				j++
			}
			if k := j - i; k <= opener && first[k].line == 0 {
				first[k] = place{n, i, seg.Start + i}
				found = max(found, k)
			}
			i = j - 1
		}
		block.AdvanceLine()
	}
	if found == 0 {
		block.SetPosition(startLine, startPos)
		block.Advance(opener)
		return ast.NewTextSegment(start.WithStop(start.Start + opener))
	}

	// The span opens with found backticks; the rest of the run is code.
	closer := first[found]
	node := ast.NewCodeSpan()
	segs[0] = segs[0].WithStart(start.Start + found)
	for n, seg := range segs[:closer.line] {
		if n+1 == closer.line {
			seg = seg.WithStop(closer.stop)
		}
		// Every line's text, empty or not, so that keepIndentation gives
		// each its indentation.
		node.AppendChild(node, ast.NewRawTextSegment(seg))
	}
	end := starts[closer.line-1]
	block.SetPosition(end.line, end.seg)
	block.Advance(closer.offset + found)
	return node
}
