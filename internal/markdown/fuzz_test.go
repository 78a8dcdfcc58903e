package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// FuzzRenderMessage: any content renders without panicking, to HTML
// without injected markup, as valid UTF-8 when the content is, and the
// same way twice (mentions and groups resolved through an Env).
func FuzzRenderMessage(f *testing.F) {
	for _, s := range []string{"```quote\nhi **x**\n```", "```spoiler T\n> q\n```", "~~~ .python\nx\n~~~",
		"<time:2024-01-01T00:00:00Z> <time:<b>>", "💩🤷\u200D♀\uFE0F #\uFE0F\u20E3 🇺🇸", "@*team* @_*old* @**Ann**",
		"[](javascript:alert(1)) <script>x</script>", "[a](javascript&#58;alert(1)) [b](&#106;avascript:x)", "```a\"onmouseover=alert(1)\nx\n```", "```quote\n```spoiler\n```\n```", "_a_ __b__ *c*",
		"```python\nx = '<b>' + \"\"\"a\n\nb\"\"\"\n```", "$$\\href{javascript:x}{a} \\color{red;x:url(y)}{b}$$", "```math\n\\sqrt{\\frac{<a>}{b}}\n```", "```html\n<script>alert(1)</script><a href=\"javascript:x\">\n```", "```\n#!js\n'<' // x\n```"} {
		f.Add(s)
	}
	env := &Env{
		UserByName: func(name string) (User, bool) { return User{ID: 1, FullName: "Ann"}, strings.EqualFold(name, "ann") },
		Group: func(name string) (Group, bool) {
			return Group{ID: 2, Name: name, Deactivated: name == "old"}, name == "team" || name == "old"
		},
		Emoji:     func(name string) (string, bool) { return "1f642", name == "smile" },
		EmojiName: func(code string) (string, bool) { return "poop", code == "1f4a9" },
		// Each input is rendered twice and must come out the same: a
		// budget the first rendering might pass (compiling a lexer) and
		// the second not would make that depend on the machine.
		HighlightBudget: 10 * time.Second, TeXBudget: 10 * time.Second,
	}
	f.Fuzz(func(t *testing.T, content string) {
		r := RenderMessage(content, env)
		if err := onlyKnownMarkup(r.HTML); err != nil {
			t.Fatalf("%q rendered %v: %s", content, err, r.HTML)
		}
		if utf8.ValidString(content) && !utf8.ValidString(r.HTML) {
			t.Fatalf("%q rendered invalid UTF-8: %q", content, r.HTML)
		}
		if again := RenderMessage(content, env); again.HTML != r.HTML {
			t.Fatalf("%q rendered twice differently:\n%s\n%s", content, r.HTML, again.HTML)
		}
	})
}

// unsafeScheme matches a link a client must not follow.
var unsafeScheme = regexp.MustCompile(`^(?i)(javascript|data|vbscript):`)

// browserURL is a link's target as a browser reads its scheme: without
// the ASCII whitespace and control characters it skips or ignores.
func browserURL(href string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, href)
}

// knownTags are the elements a rendering may hold, with the attributes
// each may carry.
var knownTags = map[string]map[string]bool{
	"a":    {"href": true, "title": true, "class": true, "data-stream-id": true},
	"span": {"class": true, "data-user-id": true, "data-user-group-id": true, "aria-label": true, "role": true, "title": true},
	"div":  {"class": true, "data-code-language": true, "aria-hidden": true},
	"time": {"datetime": true}, "ol": {"start": true}, "th": {"style": true, "align": true}, "td": {"style": true, "align": true},
	"p": {}, "br": {}, "hr": {}, "strong": {}, "em": {}, "del": {}, "code": {}, "pre": {}, "blockquote": {},
	"h1": {}, "h2": {}, "h3": {}, "h4": {}, "h5": {}, "h6": {}, "ul": {}, "li": {},
	"table": {}, "thead": {}, "tbody": {}, "tr": {},
}

// onlyKnownMarkup reports the first element or attribute of out that no
// renderer writes, as the text of a message would be if it escaped its
// markup (a quote ending an attribute value early, say), and any link to
// a scheme a client must not follow. It reads the HTML as a browser
// would: text that only looks like markup (`href="javascript:` typed in
// a message, whose quotes text keeps) is text.
func onlyKnownMarkup(out string) error {
	z := html.NewTokenizer(strings.NewReader(out))
	katex := 0 // the depth of spans within KaTeX's rendering
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if tok.Data == "span" {
				switch {
				case katex > 0 && tok.Type == html.EndTagToken:
					katex--
				case katex > 0 && tok.Type == html.StartTagToken:
					katex++
				case tok.Type == html.StartTagToken && len(tok.Attr) == 1 && tok.Attr[0].Key == "class" &&
					(tok.Attr[0].Val == "katex" || tok.Attr[0].Val == "katex-display"):
					katex = 1
					continue
				}
			}
			if katex > 0 {
				if err := katexMarkup(tok); err != nil {
					return err
				}
				continue
			}
			attrs, ok := knownTags[tok.Data]
			if !ok {
				return fmt.Errorf("the element <%s>", tok.Data)
			}
			for _, a := range tok.Attr {
				if !attrs[a.Key] {
					return fmt.Errorf("the attribute %s of <%s>", a.Key, tok.Data)
				}
				if a.Key == "href" && unsafeScheme.MatchString(browserURL(a.Val)) {
					return fmt.Errorf("the link %q", a.Val)
				}
			}
		case html.CommentToken, html.DoctypeToken:
			return fmt.Errorf("markup %q", z.Token().String())
		}
	}
}

// katexElements are the elements of KaTeX's renderings: its spans and
// SVG for the eye, MathML for readers.
var katexElements = map[string]bool{"span": true, "svg": true, "path": true, "line": true,
	"math": true, "semantics": true, "annotation": true, "mrow": true, "mi": true, "mn": true, "mo": true,
	"ms": true, "mtext": true, "mspace": true, "msub": true, "msup": true, "msubsup": true, "mfrac": true,
	"msqrt": true, "mroot": true, "mstyle": true, "mpadded": true, "mphantom": true, "menclose": true,
	"mover": true, "munder": true, "munderover": true, "mtable": true, "mtr": true, "mtd": true, "mlabeledtr": true}

// katexMarkup reports an element of KaTeX's rendering that KaTeX writes
// only when trusted with links, pictures or markup (trust stays off, as
// in the reference), and any attribute that runs or loads something.
func katexMarkup(tok html.Token) error {
	if !katexElements[tok.Data] {
		return fmt.Errorf("the element <%s> in math", tok.Data)
	}
	for _, a := range tok.Attr {
		if k := strings.ToLower(a.Key); strings.HasPrefix(k, "on") || k == "href" || k == "src" || strings.Contains(k, ":") ||
			strings.Contains(strings.ToLower(a.Val), "url(") {
			return fmt.Errorf("the attribute %s=%q of <%s> in math", a.Key, a.Val, tok.Data)
		}
	}
	return nil
}

// TestOnlyKnownMarkup: the fuzz test's check refuses what a browser would
// run, and not text that only looks like it.
func TestOnlyKnownMarkup(t *testing.T) {
	for in, bad := range map[string]bool{
		`<p>href="jAvAsCript:0 &lt;b&gt;</p>`:        false,
		`<p>&lt;a href="javascript:x"&gt;</p>`:       false,
		`<a href="https://example.com">x</a>`:        false,
		`<a href=" java&#x09;script:alert(1)">x</a>`: true,
		`<a href="DATA:text/html,x">x</a>`:           true,
		`<p title="x">y</p>`:                         true,
		`<p>x</p><script>alert(1)</script>`:          true,
		`<span class="katex"><math xmlns="x"><mi>a</mi></math><span style="height:1em">a</span></span>`: false,
		`<span class="katex"><span>a</span></span><span style="x">b</span>`:                             true,
		`<span class="katex"><math><mi><a href="https://example.com">a</a></mi></math></span>`:          true,
		`<span class="katex-display"><span class="katex"><svg onload="x"></svg></span></span>`:          true,
		`<span class="katex"><span style="background:url(x)">a</span></span>`:                           true,
		`<div class="codehilite" onclick="x">y</div>`:                                                   true,
		`<span class="k">def</span><!-- comment -->`:                                                    true,
		`<a href="#narrow/channel/1-general">g</a><br>`:                                                 false,
	} {
		if err := onlyKnownMarkup(in); (err != nil) != bad {
			t.Errorf("onlyKnownMarkup(%s) = %v, want an error: %v", in, err, bad)
		}
	}
}
