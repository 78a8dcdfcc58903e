package markdown

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Code blocks in messages are highlighted as the reference highlights
// them with Pygments: a span per token, its class Pygments' short name of
// the token's type ("k", "nf", "s2"), which clients style (the web's
// stylesheet, zulip-terminal's themes). chroma's lexers are ports of
// Pygments' and name their token types alike; the HTML is written here, in
// Pygments' form, because chroma's own formatter writes another.

// HighlightBudget bounds the time one message's code blocks may spend in
// the lexers, unless Env.HighlightBudget says otherwise. chroma's lexers are backtracking regular expressions (each
// match bounded by chroma at 250 ms) and take about 6 µs a byte of Python
// here, 60–70 ms for a block of the longest message; on some input they
// take far longer (YAML on 9 900 quotes, Makefile on "1e" repeated: more
// than 10 s). From the moment the budget has passed, blocks are written
// unhighlighted, so that no input holds the renderer.
const HighlightBudget = 250 * time.Millisecond

// highlightedKey is the attribute of a code block node holding its
// highlighted lines, set by highlightTransformer and written by renderCode.
var highlightedKey = []byte("highlighted")

// languageKey is the attribute of a fenced code block holding the
// organization's default language (Env.DefaultCodeLanguage) when its
// fence names none, set by highlightTransformer and written by
// renderCode.
var languageKey = []byte("language")

// highlightTransformer highlights the code blocks of a message whose
// language (written after the fence, the organization's default for a
// fence that names none, or in a shebang line as the reference reads it)
// has a lexer.
type highlightTransformer struct{}

func (highlightTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	r := stateOf(pc)
	if r == nil {
		return
	}
	src := reader.Source()
	budget := r.env.HighlightBudget
	if budget <= 0 {
		budget = HighlightBudget
	}
	var spent time.Duration
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
		default:
			return ast.WalkContinue, nil
		}
		if _, ok := n.AttributeString(string(texKey)); ok {
			return ast.WalkSkipChildren, nil // math (texTransformer)
		}
		lang := fenceLanguage(n, src)
		if lang == "" {
			if lang = defaultLanguage(n, r.env); lang != "" {
				n.SetAttribute(languageKey, lang)
			}
		}
		if r.env.Stop != nil && r.env.Stop() {
			r.res.Stopped = true
			return ast.WalkStop, nil
		}
		if spent >= budget {
			// Past the budget only the languages are set.
			r.res.HighlightCut = true
			return ast.WalkSkipChildren, nil
		}
		var code string
		if lang == "" {
			code = codeText(n, src)
			lang = shebangLanguage(code)
		}
		lexer := lexerFor(lang)
		if lexer == nil {
			// renderCode writes it escaped.
			return ast.WalkSkipChildren, nil
		}
		if code == "" {
			code = codeText(n, src)
		}
		start := time.Now()
		html, ok := highlight(lexer, code, start.Add(budget-spent), r.env.Stop)
		spent += time.Since(start)
		switch {
		case ok:
			n.SetAttribute(highlightedKey, []byte(html))
		case r.env.Stop != nil && r.env.Stop():
			r.res.Stopped = true
			return ast.WalkStop, nil
		default:
			r.res.HighlightCut = true
		}
		return ast.WalkSkipChildren, nil
	})
}

// codeText is a code block's text as the reference highlights it: lines
// without trailing whitespace, and no blank lines before or after.
func codeText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		b.WriteString(strings.TrimRight(string(line.Value(src)), " \t\r\n"))
		b.WriteByte('\n')
	}
	return strings.Trim(b.String(), "\n")
}

// defaultLanguage is the language of a code block whose fence names none:
// the organization's default for a fenced block outside spoilers, as the
// reference gives it, else "".
func defaultLanguage(n ast.Node, env *Env) string {
	if n.Kind() != ast.KindFencedCodeBlock || inSpoiler(n) {
		return ""
	}
	return env.DefaultCodeLanguage
}

// inSpoiler reports whether n is inside a spoiler, whose code fences the
// reference gives no default language.
func inSpoiler(n ast.Node) bool {
	for ; n != nil; n = n.Parent() {
		if n.Kind() == kindSpoiler {
			return true
		}
	}
	return false
}

// fenceLanguage is the language written after a code block's fence, as
// the reference reads it ("python", ".python", "{.python}"); "" for none.
func fenceLanguage(n ast.Node, src []byte) string {
	fc, ok := n.(*ast.FencedCodeBlock)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(strings.Trim(string(fc.Language(src)), "{}"), ".")
}

// shebang is the first line from which the reference takes the language of
// a block that names none ("#!python", "#!/usr/bin/python", ":::python");
// the line stays in the code.
var shebang = regexp.MustCompile(`^(?:::+|#!)(?:(?:/\w+)*[/ ])?([\w#.+-]*)`)

func shebangLanguage(code string) string {
	first, _, _ := strings.Cut(code, "\n")
	if m := shebang.FindStringSubmatch(first); m != nil {
		return m[1]
	}
	return ""
}

// lexersByAlias holds chroma's lexers by lower-case alias: Pygments finds a
// fence's language among its lexers' aliases only, not their names or
// file extensions. A lexer's lower-case name counts as an alias where no
// lexer has it as one (chroma's Markdown lexer has only "md").
var lexersByAlias = sync.OnceValue(func() map[string]chroma.Lexer {
	m := map[string]chroma.Lexer{}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		for _, alias := range l.Config().Aliases {
			m[strings.ToLower(alias)] = l
		}
	}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		if name := strings.ToLower(l.Config().Name); m[name] == nil {
			m[name] = l
		}
	}
	return m
})

// highlightedLanguages are the languages that are highlighted, by one of
// their aliases, besides those of codeLanguageNames. Left out, for the
// memory their compiled lexers keep (0.5–1.3 MB each): Racket, Raku,
// Solidity, Crystal, Batchfile.
var highlightedLanguages = strings.Fields(`apacheconf awk cmake common-lisp d django elisp elm fortran
	fsharp groovy handlebars hcl jsx matlab nasm nginx nim nix prolog protobuf rst sass scheme scss
	terraform tsx vb.net verilog vhdl vim zig`)

// highlighted are the lexers that highlight, by alias: those of
// codeLanguageNames and highlightedLanguages, under any of their aliases.
// A lexer's regular expressions are compiled when first used and kept; all
// of chroma's lexers together took 33 MB of heap (and 0.6 s to compile),
// which one message naming them all would have made any chatd keep; these
// 74 take about 9 MB once all have been used. Other languages are written
// unhighlighted, with their name.
var highlighted = sync.OnceValue(func() map[string]chroma.Lexer {
	chosen := map[chroma.Lexer]bool{}
	for _, alias := range slices.Concat(slices.Collect(maps.Keys(codeLanguageNames)), highlightedLanguages) {
		if l := lexersByAlias()[alias]; l != nil {
			chosen[l] = true
		}
	}
	m := map[string]chroma.Lexer{}
	for alias, l := range lexersByAlias() {
		if chosen[l] {
			m[alias] = l
		}
	}
	return m
})

// lexerFor returns the lexer that highlights a language as written, nil
// for none.
func lexerFor(lang string) chroma.Lexer {
	if lang == "" {
		return nil
	}
	return highlighted()[strings.ToLower(lang)]
}

// MayHighlight reports whether a message's content may have a code block
// to highlight: a fence naming a language that has a lexer, a fence naming
// none (the organization may have a default language; a closing fence is
// such a line too, so any closed block counts), or a line the reference
// reads a block's language from ("#!python", ":::python"). The service
// renders such content before its write transaction.
func MayHighlight(content string) bool {
	for line := range strings.Lines(content) {
		line = strings.TrimLeft(line, " \t>*+-0123456789.")
		switch {
		case strings.HasPrefix(line, "#!"), strings.HasPrefix(line, "::"):
			return true
		case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "~~~"):
			lang := strings.TrimLeft(line, "`~ \t")
			if end := strings.IndexAny(lang, " \t\r\n"); end >= 0 {
				lang = lang[:end]
			}
			if lang = strings.TrimPrefix(strings.Trim(lang, "{}"), "."); lang == "" || lexerFor(lang) != nil {
				return true
			}
		}
	}
	return false
}

// highlight returns code highlighted as Pygments' HTML formatter writes
// it, a line at a time, each ending in "\n"; false when it could not
// finish by deadline or stop said so.
func highlight(lexer chroma.Lexer, code string, deadline time.Time, stop func() bool) (string, bool) {
	next, err := lexer.Tokenise(nil, code+"\n")
	if err != nil {
		return "", false
	}
	var f pygmentsLines
	for {
		// Asked before every token: some lexers take a millisecond a
		// token on pathological input (C++ on thousands of blank lines).
		if time.Now().After(deadline) || (stop != nil && stop()) {
			return "", false
		}
		t := next()
		if t == chroma.EOF {
			break
		}
		f.token(tokenClass(t.Type), t.Value)
	}
	return f.finish(), true
}

// tokenClass is the CSS class Pygments gives a token type: its short name,
// or its nearest ancestor's ("" for plain text).
func tokenClass(t chroma.TokenType) string {
	for _, c := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if class, ok := chroma.StandardTypes[c]; ok {
			return class
		}
	}
	return ""
}

// pygmentsLines writes tokens as Pygments' HTML formatter does: a token
// is escaped and split at its line ends, each piece in a span of the
// token's class (none for plain text); a piece continuing the span of the
// same class before it on its line joins that span, and no span is left
// open across a line end or made empty.
type pygmentsLines struct {
	out  strings.Builder
	open string // the class of the span open on the current line
	line bool   // the current line has text
}

func (f *pygmentsLines) token(class, value string) {
	parts := strings.Split(codeEscaper.Replace(value), "\n")
	for i, part := range parts {
		last := i == len(parts)-1
		if part != "" {
			if !f.line || f.open != class {
				f.closeSpan()
				if class != "" {
					f.out.WriteString(`<span class="` + class + `">`)
				}
				f.open, f.line = class, true
			}
			f.out.WriteString(part)
		}
		if !last {
			f.closeSpan()
			f.out.WriteByte('\n')
			f.line = false
		}
	}
}

// closeSpan closes the span open on the current line, if any.
func (f *pygmentsLines) closeSpan() {
	if f.line && f.open != "" {
		f.out.WriteString("</span>")
	}
	f.open = ""
}

func (f *pygmentsLines) finish() string {
	if f.line {
		f.closeSpan()
		f.out.WriteByte('\n')
		f.line = false
	}
	return f.out.String()
}
