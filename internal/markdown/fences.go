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

// openingFence reads a fence opening line: its fence, and the info string
// after it.
func openingFence(line []byte) (fence, string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > 3 {
		return fence{}, "", false
	}
	s = s[indent:]
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return fence{}, "", false
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 {
		return fence{}, "", false
	}
	if !referenceInfo.MatchString(s[n:]) {
		return fence{}, "", false
	}
	return fence{s[0], n}, strings.TrimSpace(s[n:]), true
}

// referenceInfo is what may follow a fence for the reference to open a
// block: spaces, then perhaps a language ("python", ".py", "{.js}") and a
// header (a spoiler's) without backticks or tildes. Other lines are text,
// so that "~~~~ section ~~~~" does not open a code block that takes the
// rest of the message.
var referenceInfo = regexp.MustCompile("^ *(?:\\{?\\.?[a-zA-Z0-9_+,\\-./#]+ *(?:[^ ~`][^~`]*)?\\}?)?$")

// referenceFences is goldmark's fenced code parser, opening only the
// fences that the reference opens (openingFence).
type referenceFences struct{ parser.BlockParser }

func (p referenceFences) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	if _, _, ok := openingFence(line); !ok {
		return nil, parser.NoChildren
	}
	return p.BlockParser.Open(parent, reader, pc)
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

// closes reports whether line closes f.
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
	f, info, ok := openingFence(line)
	if !ok || len(fences(pc)) >= maxFenceDepth {
		return nil, parser.NoChildren
	}
	word, rest, _ := strings.Cut(info, " ")
	var node ast.Node
	switch strings.ToLower(word) {
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
	if f.closes(line) && !insideCodeFence(node, pc) && !insideFenceContainer(node, pc) {
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
