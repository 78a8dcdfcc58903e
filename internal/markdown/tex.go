package markdown

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/teamchat/chat/internal/tex"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// TeX math, as the reference writes it: $$…$$ within a line is math in the
// text, and a ```math fence holds displayed math, each of its paragraphs
// (parts between blank lines) a display of its own; both are rendered by
// KaTeX (internal/tex). TeX that KaTeX cannot render is its source in a
// tex-error span, "$$" and all for inline math; so is the math left once
// the message's TeX budget is spent.

// TeXBudget bounds the time one message's math may spend in KaTeX, unless
// Env.TeXBudget says otherwise. KaTeX takes 1–3 ms for a formula, and
// seconds for ten thousand characters of one; from the moment the budget
// has passed, math is written as the source in a tex-error span.
const TeXBudget = 250 * time.Millisecond

// texKey is the attribute of a math fence holding its rendering, set by
// texTransformer and written by renderCode.
var texKey = []byte("tex")

// tex renders a formula within the message's TeX budget; false (the
// source goes in a tex-error span) when KaTeX cannot render it or the
// budget is spent.
func (r *render) tex(src string, display bool) (string, bool) {
	if r.env.Stop != nil && r.env.Stop() {
		r.res.Stopped = true
		return "", false
	}
	if r.res.TooLong {
		return "", false
	}
	budget := r.env.TeXBudget
	if budget <= 0 {
		budget = TeXBudget
	}
	if r.texSpent >= budget {
		r.res.TeXCut = true
		return "", false
	}
	start := time.Now()
	html, err := tex.Render(src, display, budget-r.texSpent)
	r.texSpent += time.Since(start)
	if errors.Is(err, tex.ErrBudget) {
		r.res.TeXCut = true
	}
	if err == nil && !r.grow(len(html)) {
		return "", false // the rendering fails: its HTML would be too long
	}
	return html, err == nil
}

// texParser parses inline math as the reference's pattern reads it:
// "$$", then a first character that is not "_", "$" or a line end, then
// anything but "$" and line ends, "\$" included, then "$$"; neither "$$"
// may touch another "$" or a word character outside.
type texParser struct{}

func (texParser) Trigger() []byte { return []byte{'$'} }

func (texParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	r := stateOf(pc)
	if r == nil {
		return nil
	}
	if prev := block.PrecendingCharacter(); prev == '$' || isWordRune(prev) {
		return nil
	}
	line, _ := block.PeekLine()
	end, ok := texEnd(line)
	if !ok {
		return nil
	}
	body := string(line[2:end])
	block.Advance(end + 2)
	if html, ok := r.tex(body, false); ok {
		return &referenceNode{html: html}
	}
	return &referenceNode{html: `<span class="tex-error">` + escapeText("$$"+body+"$$") + `</span>`}
}

// texEnd returns where the body of the inline math that line starts with
// ends (at its closing "$$"). As the reference's backtracking pattern
// does, it tries the longest body first: one that runs to the first "$"
// not escaped by a backslash inside the body, then each shorter one that
// ends at an escaped "$" (its backslash then closes the body).
func texEnd(line []byte) (int, bool) {
	if len(line) < 5 || line[0] != '$' || line[1] != '$' {
		return 0, false
	}
	if c := line[2]; c == '_' || c == '$' || c == '\n' || c == '\r' {
		return 0, false
	}
	// The body's possible ends: every "$" after its first character that
	// a backslash escapes, and the first one that none does.
	var ends []int
	for i := 3; i < len(line); i++ {
		c := line[i]
		if c == '\n' || c == '\r' {
			break
		}
		if c != '$' {
			continue
		}
		ends = append(ends, i)
		if line[i-1] != '\\' || i-1 < 3 {
			break
		}
	}
	for k := len(ends) - 1; k >= 0; k-- {
		end := ends[k]
		if end+1 >= len(line) || line[end+1] != '$' {
			continue
		}
		// After "$$": no third "$", and no word character (\B).
		if after := end + 2; after < len(line) {
			c, _ := utf8.DecodeRune(line[after:])
			if c == '$' || isWordRune(c) {
				continue
			}
		}
		return end, true
	}
	return 0, false
}

// texTransformer renders the math fences of a message.
type texTransformer struct{}

func (texTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil {
		return
	}
	src := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindFencedCodeBlock {
			return ast.WalkContinue, nil
		}
		if !isMathFence(n, src, r.env) || n.Lines().Len() == 0 {
			return ast.WalkSkipChildren, nil
		}
		n.SetAttribute(texKey, []byte(r.mathFence(fenceText(n, src))))
		return ast.WalkSkipChildren, nil
	})
}

// isMathFence reports whether a fenced block is math: its language, or
// the organization's default for a fence that names none outside
// spoilers, is "math" in any case.
func isMathFence(n ast.Node, src []byte, env *Env) bool {
	lang := fenceLanguage(n, src)
	if lang == "" {
		lang = defaultLanguage(n, env)
	}
	return strings.EqualFold(lang, "math")
}

// fenceText is a fence's text as the reference's fence handler keeps it:
// its lines without trailing whitespace, joined.
func fenceText(n ast.Node, src []byte) string {
	lines := n.Lines()
	parts := make([]string, lines.Len())
	for i := range parts {
		line := lines.At(i)
		parts[i] = strings.TrimRight(string(line.Value(src)), " \t\r\n\f\v")
	}
	return strings.Join(parts, "\n")
}

// mathFence renders a math fence's text: each paragraph a display, or its
// escaped source in a tex-error span, in one paragraph of HTML.
func (r *render) mathFence(text string) string {
	var b strings.Builder
	b.WriteString("<p>")
	for i, para := range strings.Split(text, "\n\n") {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if html, ok := r.tex(para, true); ok {
			b.WriteString(html)
		} else {
			b.WriteString(`<span class="tex-error">` + texErrorEscaper.Replace(para) + `</span>`)
		}
	}
	b.WriteString("</p>\n")
	return b.String()
}

// texErrorEscaper escapes a math fence's paragraph as the reference does
// (Python's html.escape, quotes included).
var texErrorEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// MayHaveTeX reports whether content may hold math to render ($$ or a
// fence), which takes milliseconds, and more for long formulas.
func MayHaveTeX(content string) bool {
	if strings.Contains(content, "$$") {
		return true
	}
	if !strings.Contains(content, "```") && !strings.Contains(content, "~~~") {
		return false
	}
	for line := range strings.Lines(content) {
		if _, lang, _, ok := openingFence(line); ok && strings.EqualFold(lang, "math") {
			return true
		}
	}
	return false
}
