package markdown

import (
	"strings"
	"testing"
	"time"
)

// untimed is the environment of the tests that expect highlighting: the
// race detector on a busy machine compiles a lexer slowly, and past its
// budget a rendering is no longer highlighted.
var untimed = &Env{HighlightBudget: time.Hour}

// TestHighlight: code blocks are highlighted as the reference's Pygments
// writes them (the first cases are the reference's own fixtures), their
// language taken from the fence or a shebang line; languages outside the
// highlighted set keep their name and stay plain; descriptions are not
// highlighted.
func TestHighlight(t *testing.T) {
	code := func(lang, body string) string {
		attr := ""
		if lang != "" {
			attr = ` data-code-language="` + lang + `"`
		}
		return `<div class="codehilite"` + attr + `><pre><span></span><code>` + body + `</code></pre></div>`
	}
	speak := `<span class="k">def</span> <span class="nf">speak</span><span class="p">(</span><span class="bp">self</span><span class="p">):</span>` +
		"\n    " + `<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>` + "\n"
	hello := `<span class="nb">print</span><span class="p">(</span><span class="s2">&quot;Hello World&quot;</span><span class="p">)</span>` + "\n"
	for _, c := range []struct{ in, want string }{
		{"``` py2\ndef speak(self):\n    x = 1\n```", code("Python 2.x", speak)},
		{"```tex\n\n\\pi \\textbf{ is not } 3.14\n```", code("TeX", `<span class="k">\pi</span> <span class="k">\textbf</span><span class="nb">{</span> is not <span class="nb">}</span> 3.14`+"\n")},
		{"```\n#!python\nprint(\"Hello World\")\n```", code("", `<span class="ch">#!python</span>`+"\n"+hello)},
		{"```\n#!/usr/bin/python\nprint(\"Hello World\")\n```", code("", `<span class="ch">#!/usr/bin/python</span>`+"\n"+hello)},
		{"```\n:::python\nprint(\"Hello World\")\n```", code("", `<span class="p">:::</span><span class="n">python</span>`+"\n"+hello)},
		// A token over several lines is a span on each; no span is empty.
		{"```python\nx = \"\"\"a\n\nb\"\"\"\n```", code("Python", `<span class="n">x</span> <span class="o">=</span> <span class="s2">&quot;&quot;&quot;a</span>`+
			"\n\n"+`<span class="s2">b&quot;&quot;&quot;</span>`+"\n")},
		// Blank lines around the code go, trailing spaces too.
		{"```python\n\n\nx   \n\n```", code("Python", `<span class="n">x</span>`+"\n")},
		// A block of no lines is nothing; of blank lines, one empty line.
		{"```\n```", ""},
		{"```python\n\n\n```", code("Python", "\n")},
		// Pygments' whitespace class, where the lexer has it.
		{"```go\nx := 1 // c\n```", code("Go", `<span class="nx">x</span><span class="w"> </span><span class="o">:=</span><span class="w"> </span>`+
			`<span class="mi">1</span><span class="w"> </span><span class="c1">// c</span>`+"\n")},
		{"```{.JS}\nf('<b>')\n```", code("JavaScript", `<span class="nx">f</span><span class="p">(</span><span class="s1">&#39;&lt;b&gt;&#39;</span><span class="p">)</span>`+"\n")},
		// Beyond the names table: chroma's names, or Pygments' where they differ.
		{"```scss\na { b: c; }\n```", code("SCSS", `<span class="nt">a</span> <span class="p">{</span> <span class="na">b</span><span class="o">:</span> `+
			`<span class="n">c</span><span class="p">;</span> <span class="p">}</span>`+"\n")},
		{"```markdown\n# x\n```", code("Markdown", `<span class="gh"># x</span>`+"\n")},
		{"```fsharp\nlet x\n```", code("F#", `<span class="k">let</span> <span class="nv">x</span>`+"\n")},
		// Known, not highlighted: the name only.
		{"```cobol\nx\n```", code("COBOL", "x\n")},
		{"```\nx = 1\n```", code("", "x = 1\n")},
		{"```quote\n```python\nx\n```\n```", "<blockquote>\n" + code("Python", `<span class="n">x</span>`+"\n") + "\n</blockquote>"},
	} {
		if got := RenderMessage(c.in, untimed).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestHighlightGivesUp: past its deadline the highlighter gives up, the
// block is written plain and the result says it was cut; told to stop,
// the rendering stops.
func TestHighlightGivesUp(t *testing.T) {
	long := strings.Repeat("x = 1\n", 100)
	lexer := lexerFor("python")
	if _, ok := highlight(lexer, long, time.Now().Add(time.Hour), nil); !ok {
		t.Fatal("highlight within its deadline failed")
	}
	// However short the code: a lexer may take long over one token.
	if _, ok := highlight(lexer, "x = 1", time.Now().Add(-time.Second), nil); ok {
		t.Error("highlight past its deadline went on")
	}
	if _, ok := highlight(lexer, long, time.Now().Add(time.Hour), func() bool { return true }); ok {
		t.Error("highlight told to stop went on")
	}
	// A budget the rendering passes leaves the rest plain, and says so.
	in := "```python\nx = 1\n```\n\n```go\nx := 1\n```"
	if res := RenderMessage(in, untimed); res.HighlightCut || strings.Count(res.HTML, `<span class="nx">`) != 1 {
		t.Errorf("within the budget: cut %v, %q", res.HighlightCut, res.HTML)
	}
	if res := RenderMessage(in, &Env{HighlightBudget: time.Nanosecond}); !res.HighlightCut || strings.Contains(res.HTML, `<span class=`) {
		t.Errorf("past the budget: cut %v, %q; want cut and plain", res.HighlightCut, res.HTML)
	}
	calls := 0
	stop := func() bool { calls++; return calls > 1 }
	res := RenderMessage("```python\n"+long+"```", &Env{Stop: stop})
	if !res.Stopped || strings.Contains(res.HTML, `<span class=`) {
		t.Errorf("a rendering told to stop: Stopped %v, HTML %.200q; want it stopped, unhighlighted", res.Stopped, res.HTML)
	}
}

// TestMayHighlight: content with a fence naming a highlighted language or
// none (the organization's default may apply), or a line a block's
// language may come from, is known before rendering.
func TestMayHighlight(t *testing.T) {
	for in, want := range map[string]bool{
		"```python\nx\n```": true, "text\n~~~ .py\nx": true, "  ```{.js}": true, "> ```go": true,
		"* ```rust": true, "```\n#!/bin/sh\n```": true, ":::python": true, "``` py2 extra": true,
		"```\nx\n```": true, "```quote\nx\n```": true, // a closing fence names nothing either
		"```quote": false, "```inventedlang": false, "```cobol": false,
		"plain text": false, "a :smile::heart: b": false, "say #!": false,
	} {
		if got := MayHighlight(in); got != want {
			t.Errorf("MayHighlight(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestHighlightedLanguages: every language listed to highlight has a
// lexer, and the lexers number what README says (74).
func TestHighlightedLanguages(t *testing.T) {
	for _, alias := range highlightedLanguages {
		if lexerFor(alias) == nil {
			t.Errorf("no lexer highlights %q", alias)
		}
	}
	distinct := map[any]bool{}
	for _, l := range highlighted() {
		distinct[l] = true
	}
	if len(distinct) != 74 {
		t.Errorf("%d lexers highlight, want 74", len(distinct))
	}
}
