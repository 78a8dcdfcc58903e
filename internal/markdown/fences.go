package markdown

import (
	"reflect"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The reference's fenced blocks that hold Markdown rather than code:
// ```quote (or quoted) is a block quote, and ```spoiler Header is a
// spoiler, its header shown and its content hidden until opened. Their
// content is parsed as blocks, so mentions, links and nested fences work
// inside them.

// kindSpoiler is the AST kind of a spoiler block; its first child is its
// header (a paragraph, or none when the header is empty), the others its
// content.
var kindSpoiler = ast.NewNodeKind("Spoiler")

type spoilerNode struct {
	ast.BaseBlock
	header *ast.Paragraph // nil for an empty header
}

func (n *spoilerNode) Kind() ast.NodeKind { return kindSpoiler }
func (n *spoilerNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// fence is an open fence: its character and length.
type fence struct {
	char   byte
	length int
}

// fenceKey holds, in a parser context, the fence of each open container.
var fenceKey = parser.NewContextKey()

// fences returns the fences of pc's open containers.
func fences(pc parser.Context) map[ast.Node]fence {
	m, _ := pc.Get(fenceKey).(map[ast.Node]fence)
	if m == nil {
		m = map[ast.Node]fence{}
		pc.Set(fenceKey, m)
	}
	return m
}

// fenceContainerParser opens a quote or spoiler fence; the fenced code
// parser gets every other fence, and those nested deeper than
// maxFenceDepth, which goldmark would otherwise parse in time quadratic in
// their depth (a thousand of them, 9 KB, took 0.2 s).
type fenceContainerParser struct{}

const maxFenceDepth = 16

func (fenceContainerParser) Trigger() []byte { return []byte{'`', '~'} }

// openingFence reads a fence opening line as the reference's fenced-code
// preprocessor does, which reads the message's lines before any block:
// three or more backticks or tildes at the line's first column (an
// indented fence, or one after a list marker or ">", is text there), then
// what referenceInfo allows. It returns the fence, the language as typed
// ("Quote" for "{.Quote}": the fenced-code preprocessor compares it in
// lower case, the list preprocessor as typed) and the info string after
// the fence.
func openingFence(line string) (f fence, lang, info string, ok bool) {
	s := strings.TrimRight(line, "\r\n")
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return fence{}, "", "", false
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 {
		return fence{}, "", "", false
	}
	m := referenceInfo.FindStringSubmatch(s[n:])
	if m == nil {
		return fence{}, "", "", false
	}
	return fence{s[0], n}, m[1], strings.TrimSpace(s[n:]), true
}

// fenceLine is openingFence for the passes that read a message's lines,
// cheap for the lines that cannot open a fence.
func fenceLine(line string) (fence, string, bool) {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return fence{}, "", false
	}
	f, lang, _, ok := openingFence(line)
	return f, lang, ok
}

// markdownFence reports whether a fence's language makes its block hold
// Markdown (a quote or a spoiler) rather than code.
func markdownFence(lang string) bool {
	lang = strings.ToLower(lang)
	return lang == "quote" || lang == "quoted" || lang == "spoiler"
}

// codeLines follows the reference's fenced-code preprocessor through a
// message's lines, for the passes that read lines before goldmark parses
// them: a fence opens at a line's first column (openingFence), a block
// ends at the line that is its fence (isExactly), and quote and
// spoiler blocks hold Markdown, fences included, where code blocks hold
// none.
type codeLines struct{ open []openFence }

type openFence struct {
	fence fence
	code  bool
}

// next reports whether line, the next line, belongs to a code block: its
// fences or a line inside it.
func (c *codeLines) next(line string) bool {
	if n := len(c.open); n > 0 {
		top := c.open[n-1]
		if isExactly(top.fence, line) {
			c.open = c.open[:n-1]
			return top.code
		}
		if top.code {
			return true
		}
	}
	f, lang, ok := fenceLine(line)
	if !ok {
		return false
	}
	code := !markdownFence(lang)
	c.open = append(c.open, openFence{f, code})
	return code
}

// referenceInfo is what may follow a fence for the reference to open a
// block: spaces, then perhaps a language ("python", ".py", "{.js}") and a
// header (a spoiler's) without backticks or tildes. Other lines are text,
// so that "~~~~ section ~~~~" does not open a code block that takes the
// rest of the message. (The reference's class "+-." is a range, which
// holds the comma.)
var referenceInfo = regexp.MustCompile("^" + fenceInfo + "$")

const fenceInfo = " *(?:\\{?\\.?([a-zA-Z0-9_+,\\-./#]+) *(?:[^ ~`][^~`]*)?\\}?)?"

// atLineStart reports whether the reader's line starts at a line of the
// source: not after a quote's ">" or inside a list item, whose content
// goldmark reads from past its marker or indentation.
func atLineStart(reader text.Reader) bool {
	_, seg := reader.Position()
	return seg.Padding == 0 && (seg.Start == 0 || reader.Source()[seg.Start-1] == '\n')
}

// isExactly reports whether line is the fence f itself, trailing
// whitespace aside: the only line that closes a block in the reference
// ("```" does not close "````", nor "  ```" "```"). It reads goldmark's
// lines and the passes' strings alike, copying neither.
func isExactly[S ~string | ~[]byte](f fence, line S) bool {
	n := len(line)
	for n > 0 && strings.IndexByte(" \t\r\n\f\v", line[n-1]) >= 0 {
		n--
	}
	if n != f.length {
		return false
	}
	for i := range n {
		if line[i] != f.char {
			return false
		}
	}
	return true
}

// referenceFences is goldmark's fenced code parser, opening only the
// fences that the reference opens (openingFence, at a line's start) and
// closing them only where the reference does (isExactly): a longer or
// indented fence is a line of code.
type referenceFences struct{ parser.BlockParser }

// codeFenceKey holds, in a parser context, the fence of each open code
// block.
var codeFenceKey = parser.NewContextKey()

func (p referenceFences) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	f, _, _, ok := openingFence(string(line))
	if !ok || !atLineStart(reader) {
		return nil, parser.NoChildren
	}
	node, state := p.BlockParser.Open(parent, reader, pc)
	if node != nil {
		open, _ := pc.Get(codeFenceKey).(map[ast.Node]fence)
		if open == nil {
			open = map[ast.Node]fence{}
			pc.Set(codeFenceKey, open)
		}
		open[node] = f
	}
	return node, state
}

func (p referenceFences) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, seg := reader.PeekLine()
	f, ok := pc.Get(codeFenceKey).(map[ast.Node]fence)[node]
	if !ok || (isExactly(f, line) && atLineStart(reader)) || !f.closes(line) {
		return p.BlockParser.Continue(node, reader, pc)
	}
	// A line goldmark would close the block on and the reference does
	// not: a line of code, as goldmark keeps one (the block opened at the
	// first column, so nothing is cut from its lines).
	code := text.NewSegment(seg.Start, seg.Stop)
	code.ForceNewline = true
	node.Lines().Append(code)
	reader.AdvanceAndSetPadding(seg.Stop-seg.Start-1, 0)
	return parser.Continue | parser.NoChildren
}

func (p referenceFences) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	if open, _ := pc.Get(codeFenceKey).(map[ast.Node]fence); open != nil {
		delete(open, node)
	}
	p.BlockParser.Close(node, reader, pc)
}

// blockParsers are goldmark's block parsers without raw HTML and setext
// headings, with fenced code and lists opened as the reference opens them.
func blockParsers() []util.PrioritizedValue {
	// No setext headings: the reference has headings by "#" only, so
	// "Title\n=====" is two lines of text and "text\n---" text and a rule.
	list := without(without(parser.DefaultBlockParsers(), parser.NewHTMLBlockParser()), parser.NewSetextHeadingParser())
	for i, p := range list {
		bp, ok := p.Value.(parser.BlockParser)
		if !ok {
			continue
		}
		switch reflect.TypeOf(bp) {
		case reflect.TypeOf(parser.NewFencedCodeBlockParser()):
			list[i].Value = referenceFences{bp}
		case reflect.TypeOf(parser.NewListParser()):
			list[i].Value = referenceLists{bp}
		}
	}
	return list
}

// closes reports whether goldmark's fenced code parser closes a block of
// f on line, as CommonMark does: a fence as long or longer, indented up to
// three spaces.
func (f fence) closes(line []byte) bool {
	s := strings.TrimRight(string(line), "\r\n \t")
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > 3 {
		return false
	}
	s = s[indent:]
	return len(s) >= f.length && strings.Trim(s, string(f.char)) == ""
}

func (fenceContainerParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	f, lang, info, ok := openingFence(string(line))
	if !ok || !atLineStart(reader) || len(fences(pc)) >= maxFenceDepth {
		return nil, parser.NoChildren
	}
	_, rest, _ := strings.Cut(info, " ")
	var node ast.Node
	switch strings.ToLower(lang) {
	case "quote", "quoted":
		node = ast.NewBlockquote()
	case "spoiler":
		sp := &spoilerNode{}
		if header := strings.TrimSpace(rest); header != "" {
			// The header is inline Markdown: a paragraph of its own,
			// whose text is the rest of the opening line.
			_, seg := reader.Position()
			start := seg.Start + strings.Index(string(line), header)
			sp.header = ast.NewParagraph()
			sp.header.Lines().Append(text.NewSegment(start, start+len(header)))
			sp.AppendChild(sp, sp.header)
		}
		node = sp
	default:
		return nil, parser.NoChildren
	}
	fences(pc)[node] = f
	reader.AdvanceToEOL()
	return node, parser.HasChildren
}

func (fenceContainerParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, _ := reader.PeekLine()
	f, ok := fences(pc)[node]
	if !ok {
		return parser.Close
	}
	if isExactly(f, line) && atLineStart(reader) && !insideCodeFence(node, pc) && !insideFenceContainer(node, pc) {
		reader.AdvanceToEOL()
		return parser.Close
	}
	return parser.Continue | parser.HasChildren
}

// insideFenceContainer reports whether a quote or spoiler fence is open
// inside the container: a closing line closes the innermost, as in the
// reference, so that "~~~ quote" inside "~~~ quote" ends at the first
// "~~~" and the outer quote goes on.
func insideFenceContainer(container ast.Node, pc parser.Context) bool {
	open := fences(pc)
	inside := false
	for _, b := range pc.OpenedBlocks() {
		if inside {
			if _, ok := open[b.Node]; ok {
				return true
			}
		}
		inside = inside || b.Node == container
	}
	return false
}

// insideCodeFence reports whether a fenced code block is open inside the
// container, which the line then belongs to. A code block holds no
// blocks, so an open one is the innermost open block; the container,
// being continued, is open further out.
func insideCodeFence(container ast.Node, pc parser.Context) bool {
	opened := pc.OpenedBlocks()
	if len(opened) == 0 {
		return false
	}
	last := opened[len(opened)-1].Node
	return last != container && last.Kind() == ast.KindFencedCodeBlock
}

func (fenceContainerParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	delete(fences(pc), node)
}

func (fenceContainerParser) CanInterruptParagraph() bool { return true }
func (fenceContainerParser) CanAcceptIndentedLine() bool { return false }

// spoilerRenderer writes spoilers as the reference does.
type spoilerRenderer struct{}

func (spoilerRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindSpoiler, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<div class="spoiler-block"><div class="spoiler-header">` + "\n")
			if n.(*spoilerNode).header == nil {
				_, _ = w.WriteString(`</div><div class="spoiler-content" aria-hidden="true">` + "\n")
			}
		} else {
			_, _ = w.WriteString("</div></div>\n")
		}
		return ast.WalkContinue, nil
	})
	reg.Register(kindSpoilerHeaderEnd, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`</div><div class="spoiler-content" aria-hidden="true">` + "\n")
		}
		return ast.WalkContinue, nil
	})
}

// kindSpoilerHeaderEnd marks where a spoiler's header ends and its content
// begins: spoilerHeaderTransformer puts one after each header.
var kindSpoilerHeaderEnd = ast.NewNodeKind("SpoilerHeaderEnd")

type spoilerHeaderEnd struct{ ast.BaseBlock }

func (n *spoilerHeaderEnd) Kind() ast.NodeKind { return kindSpoilerHeaderEnd }
func (n *spoilerHeaderEnd) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// spoilerHeaderTransformer puts the mark between each spoiler's header and
// its content.
type spoilerHeaderTransformer struct{}

func (spoilerHeaderTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if sp, ok := n.(*spoilerNode); ok && entering && sp.header != nil {
			sp.InsertAfter(sp, sp.header, &spoilerHeaderEnd{})
		}
		return ast.WalkContinue, nil
	})
}
