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

// unsafeHTML matches what a rendered message must never hold: raw HTML
// that the content could inject, and links to schemes a client should not
// follow.
var unsafeHTML = regexp.MustCompile(`(?i)<(script|iframe|img[^>]* on|style|object)|href="(javascript|data|vbscript):`)

// FuzzRenderMessage: any content renders without panicking, to HTML
// without injected markup, as valid UTF-8 when the content is, and the
// same way twice (mentions and groups resolved through an Env).
func FuzzRenderMessage(f *testing.F) {
	for _, s := range []string{"```quote\nhi **x**\n```", "```spoiler T\n> q\n```", "~~~ .python\nx\n~~~",
		"<time:2024-01-01T00:00:00Z> <time:<b>>", "💩🤷\u200D♀\uFE0F #\uFE0F\u20E3 🇺🇸", "@*team* @_*old* @**Ann**",
		"[](javascript:alert(1)) <script>x</script>", "[a](javascript&#58;alert(1)) [b](&#106;avascript:x)", "```a\"onmouseover=alert(1)\nx\n```", "```quote\n```spoiler\n```\n```", "_a_ __b__ *c*",
		"```python\nx = '<b>' + \"\"\"a\n\nb\"\"\"\n```", "```html\n<script>alert(1)</script><a href=\"javascript:x\">\n```", "```\n#!js\n'<' // x\n```"} {
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
		HighlightBudget: 10 * time.Second,
	}
	f.Fuzz(func(t *testing.T, content string) {
		r := RenderMessage(content, env)
		if unsafeHTML.MatchString(r.HTML) {
			t.Fatalf("%q rendered unsafe HTML: %s", content, r.HTML)
		}
		if err := onlyKnownMarkup(r.HTML); err != nil {
			t.Fatalf("%q rendered %v: %s", content, err, r.HTML)
		}
		if utf8.ValidString(content) && !utf8.ValidString(r.HTML) {
			t.Fatalf("%q rendered invalid UTF-8: %q", content, r.HTML)
		}
		if html := Render(content); unsafeHTML.MatchString(html) {
			t.Fatalf("%q rendered as a description unsafe HTML: %s", content, html)
		} else if err := onlyKnownMarkup(html); err != nil {
			t.Fatalf("%q rendered as a description %v: %s", content, err, html)
		}
		if again := RenderMessage(content, env); again.HTML != r.HTML {
			t.Fatalf("%q rendered twice differently:\n%s\n%s", content, r.HTML, again.HTML)
		}
	})
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
// markup (a quote ending an attribute value early, say).
func onlyKnownMarkup(out string) error {
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			attrs, ok := knownTags[tok.Data]
			if !ok {
				return fmt.Errorf("the element <%s>", tok.Data)
			}
			for _, a := range tok.Attr {
				if !attrs[a.Key] {
					return fmt.Errorf("the attribute %s of <%s>", a.Key, tok.Data)
				}
			}
		case html.CommentToken, html.DoctypeToken:
			return fmt.Errorf("markup %q", z.Token().String())
		}
	}
}
