package markdown

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// patient renders math without the TeX budget's bound in practice: under
// the race detector KaTeX takes many times its 1–3 ms a formula, and the
// default budget would cut the fixtures' longer ones.
var patient = &Env{TeXBudget: time.Minute}

// TestTeXFixtures renders the reference's TeX test cases (its Markdown
// fixtures' tex_ cases, testdata/tex.json) and compares the HTML byte for
// byte: inline math, math fences, the money-like text that is not math, and
// the tex-error spans of what KaTeX cannot parse.
func TestTeXFixtures(t *testing.T) {
	data, err := os.ReadFile("testdata/tex.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string `json:"name"`
		Input  string `json:"input"`
		Output string `json:"expected_output"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 18 {
		t.Fatalf("%d cases read", len(cases))
	}
	for _, c := range cases {
		if got := RenderMessage(c.Input, patient).HTML; got != c.Output {
			t.Errorf("%s: RenderMessage(%q)\n got %q\nwant %q", c.Name, c.Input, got, c.Output)
		}
	}
}

// TestTeXPattern follows the reference's inline pattern where the fixtures
// do not: the characters around "$$", escaped dollars, and the body's
// first character.
func TestTeXPattern(t *testing.T) {
	for _, c := range []struct {
		in   string
		math string // the body rendered, "" for none
	}{
		{"a$$x$$", ""},       // a word character before
		{"$$x$$a", ""},       // and after
		{"($$x$$)", "x"},     // punctuation around
		{"$$x$$$", ""},       // a third dollar after
		{"$$_x$$", ""},       // "_" first
		{`$$a\$b$$`, `a\$b`}, // an escaped dollar inside
		{`$$a\$$ b`, `a\`},   // the escaped dollar's backslash closes it
		{`$$\$x$$`, ""},      // the first character does not escape
		{"$$x\ny$$", ""},     // no line end
		{"$$ x $$ and $$y$$", " x "},
	} {
		got := RenderMessage(c.in, patient).HTML
		if c.math == "" {
			if strings.Contains(got, "katex") || strings.Contains(got, "tex-error") {
				t.Errorf("RenderMessage(%q) = %q, want no math", c.in, got)
			}
			continue
		}
		// The body, rendered, or in a tex-error span when KaTeX cannot
		// parse it (a\ ends in a lone backslash).
		if !strings.Contains(got, `<annotation encoding="application/x-tex">`+escapeText(c.math)+`</annotation>`) &&
			!strings.Contains(got, `<span class="tex-error">`+escapeText("$$"+c.math+"$$")+`</span>`) {
			t.Errorf("RenderMessage(%q) = %.300q, want the math %q", c.in, got, c.math)
		}
	}
}

// TestTeXBudget: once a message's TeX budget is spent, the rest of its
// math is its source in tex-error spans, and the result says so.
func TestTeXBudget(t *testing.T) {
	long := strings.Repeat(`a^{b_{c}} + \frac{x}{y} + `, 300) + "1"
	res := RenderMessage("$$"+long+"$$ and $$x$$", &Env{TeXBudget: 1})
	if !res.TeXCut || strings.Contains(res.HTML, `class="katex"`) ||
		!strings.HasSuffix(res.HTML, ` and <span class="tex-error">$$x$$</span></p>`) {
		t.Errorf("TeXCut %v, HTML %.200q…%q", res.TeXCut, res.HTML, res.HTML[max(0, len(res.HTML)-80):])
	}
	res = RenderMessage("```math\nx\n\ny\n```", &Env{TeXBudget: 1})
	if want := `<p><span class="tex-error">x</span>` + "\n\n" + `<span class="tex-error">y</span></p>`; !res.TeXCut || res.HTML != want {
		t.Errorf("math fence past the budget: %v %q, want %q", res.TeXCut, res.HTML, want)
	}
	if res := RenderMessage("$$x$$", patient); res.TeXCut || !strings.Contains(res.HTML, `class="katex"`) {
		t.Errorf("within the budget: %v %.80q", res.TeXCut, res.HTML)
	}
}

// TestTeXDefaultLanguage: an organization whose default code block
// language is math makes a fence without a language math, but not in a
// spoiler, as the reference does.
func TestTeXDefaultLanguage(t *testing.T) {
	env := &Env{DefaultCodeLanguage: "Math", TeXBudget: time.Minute}
	if got := RenderMessage("```\nx\n```", env).HTML; !strings.HasPrefix(got, `<p><span class="katex-display">`) {
		t.Errorf("a plain fence with math the default: %.80q", got)
	}
	if got := RenderMessage("```spoiler h\n```\nx\n```\n```", env).HTML; strings.Contains(got, "katex") {
		t.Errorf("in a spoiler: %.200q", got)
	}
}

func TestMayHaveTeX(t *testing.T) {
	for in, want := range map[string]bool{
		"$$x$$": true, "a $ b": false, "```math\nx\n```": true, "~~~ MATH\nx\n~~~": true,
		"```python\nx\n```": false, "math": false,
	} {
		if got := MayHaveTeX(in); got != want {
			t.Errorf("MayHaveTeX(%q) = %v", in, got)
		}
	}
}
