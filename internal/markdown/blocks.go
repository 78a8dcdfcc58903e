package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// renderCodeSpan writes a code span's text as typed (referenceCodeSpans):
// its line ends and the spaces inside its backticks stay.
func renderCodeSpan(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		_, _ = w.WriteString("</code>")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<code>")
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			writeRaw(w, t.Segment.Value(src), false)
		}
	}
	return ast.WalkSkipChildren, nil
}

// renderCode writes a code block as the reference does: <div
// class="codehilite" data-code-language="Python"><pre><span></span><code>…
// </code></pre></div>, its lines as highlightTransformer highlighted them,
// or escaped, without trailing whitespace and without blank lines before
// or after; clients style and find code blocks by that class.
func renderCode(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering || n.Lines().Len() == 0 {
		// The reference writes nothing for a block of no lines at all
		// ("```" and its closing fence).
		return ast.WalkSkipChildren, nil
	}
	if html, ok := n.AttributeString(string(texKey)); ok {
		_, _ = w.Write(html.([]byte))
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(`<div class="codehilite"`)
	lang := fenceLanguage(n, src)
	if v, ok := n.AttributeString(string(languageKey)); ok {
		lang = v.(string)
	}
	if lang != "" {
		_, _ = w.WriteString(` data-code-language="` + escapeAttr(codeLanguageName(lang)) + `"`)
	}
	_, _ = w.WriteString(`><pre><span></span><code>`)
	if html, ok := n.AttributeString(string(highlightedKey)); ok {
		_, _ = w.Write(html.([]byte))
	} else {
		_, _ = w.WriteString(codeEscaper.Replace(codeText(n, src)) + "\n")
	}
	_, _ = w.WriteString("</code></pre></div>\n")
	return ast.WalkSkipChildren, nil
}

// codeEscaper escapes code as the reference's highlighter does.
var codeEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// codeLanguageNames are the names the reference (Pygments) gives the
// languages of code blocks, by the aliases people write, where chroma's
// lexers are named otherwise or not at all.
var codeLanguageNames = map[string]string{
	"bash": "Bash", "sh": "Bash", "shell": "Bash", "zsh": "Bash", "console": "Bash Session",
	"c": "C", "cpp": "C++", "c++": "C++", "csharp": "C#", "c#": "C#", "cs": "C#",
	"clojure": "Clojure", "css": "CSS", "dart": "Dart", "diff": "Diff", "patch": "Diff",
	"docker": "Docker", "dockerfile": "Docker", "elixir": "Elixir", "erlang": "Erlang",
	"go": "Go", "golang": "Go", "graphql": "GraphQL", "haskell": "Haskell", "html": "HTML",
	"ini": "INI", "java": "Java", "javascript": "JavaScript", "js": "JavaScript", "json": "JSON",
	"julia": "Julia", "kotlin": "Kotlin", "latex": "TeX", "tex": "TeX", "lua": "Lua",
	"make": "Makefile", "makefile": "Makefile", "markdown": "Markdown", "md": "Markdown",
	"objective-c": "Objective-C", "ocaml": "OCaml", "perl": "Perl", "php": "PHP",
	"powershell": "PowerShell", "py": "Python", "python": "Python", "python3": "Python",
	"py2": "Python 2.x", "r": "R", "ruby": "Ruby", "rb": "Ruby", "rust": "Rust", "rs": "Rust",
	"scala": "Scala", "sql": "SQL", "swift": "Swift", "text": "Text only", "toml": "TOML",
	"ts": "TypeScript", "typescript": "TypeScript", "xml": "XML", "yaml": "YAML", "yml": "YAML",
	"fsharp": "F#", "f#": "F#", "jsx": "JSX", "react": "JSX", "tsx": "TSX", "hcl": "Terraform",
}

// codeLanguageName is the name the reference gives a fence's language:
// Pygments' name for its lexer, or the language in lower case when it has
// none.
func codeLanguageName(lang string) string {
	lang = strings.ToLower(lang)
	if name, ok := codeLanguageNames[lang]; ok {
		return name
	}
	if l := lexersByAlias()[lang]; l != nil {
		return l.Config().Name
	}
	return lang
}

// timeParser parses <time:…>, a moment that each reader's client shows in
// their own time zone: <time datetime="2024-01-01T00:00:00Z">…</time>, or
// an error span when the text is no time it knows.
type timeParser struct{}

func (timeParser) Trigger() []byte { return []byte{'<'} }

func (timeParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	s := string(line)
	if !strings.HasPrefix(s, "<time:") {
		return nil
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return nil
	}
	input := s[len("<time:"):end]
	if input == "" || strings.ContainsRune(input, '\n') {
		return nil
	}
	block.Advance(end + 1)
	t, ok := parseMoment(input)
	if !ok {
		return &referenceNode{html: `<span class="timestamp-error">Invalid time format: ` + escapeText(input) + `</span>`}
	}
	// As Python's isoformat: microseconds only when there are some, and
	// then all six digits.
	layout := "2006-01-02T15:04:05Z"
	if t.Nanosecond()/1000 != 0 {
		layout = "2006-01-02T15:04:05.000000Z"
	}
	datetime := t.UTC().Format(layout)
	return &referenceNode{html: `<time datetime="` + datetime + `">` + escapeText(input) + `</time>`}
}

// momentLayouts are the forms of a moment that <time:…> takes, besides
// Unix seconds; one without a zone is UTC. Written dates ("Jun 5th 2017,
// 10:30PM", "31 Dec 2017 5:30 am IST") are read after writtenDate has
// tidied them.
var momentLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02",
	time.RFC1123Z, time.RFC1123, time.RFC822Z, time.RFC850, time.ANSIC,
}

// writtenDates are the forms of a written date, and writtenTimes of the
// time that may follow it.
var (
	writtenDates = []string{"Jan 2 2006", "January 2 2006", "2 Jan 2006", "2 January 2006"}
	writtenTimes = []string{"", " 3:04PM", " 3:04:05PM", " 15:04", " 15:04:05"}
)

// zoneOffsets are the zone abbreviations a written date may end with, as
// offsets from UTC in minutes.
var zoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0, "BST": 60, "CET": 60, "CEST": 120, "EET": 120, "EEST": 180, "MSK": 180,
	"IST": 330, "SGT": 480, "HKT": 480, "JST": 540, "KST": 540, "AEST": 600, "AEDT": 660, "NZST": 720,
	"NZDT": 780, "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360,
	"PST": -480, "PDT": -420, "AKST": -540, "HST": -600,
}

var (
	ordinal  = regexp.MustCompile(`\b(\d{1,2})(st|nd|rd|th)\b`)
	meridiem = regexp.MustCompile(`(?i)\s*\b([ap])\.?m\.?$`)
)

func parseMoment(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range momentLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > -1e11 && f < 1e11 {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)), true
	}
	return writtenDate(s)
}

// writtenDate reads a date written out, with or without a time and a
// zone's abbreviation.
func writtenDate(s string) (time.Time, bool) {
	fields := strings.Fields(strings.ReplaceAll(s, ",", " "))
	offset := 0
	if n := len(fields); n > 1 {
		if o, ok := zoneOffsets[strings.ToUpper(fields[n-1])]; ok {
			offset, fields = o, fields[:n-1]
		}
	}
	s = ordinal.ReplaceAllString(strings.Join(fields, " "), "$1")
	s = meridiem.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ToUpper(strings.TrimSpace(strings.ReplaceAll(m, ".", "")))[:1] + "M"
	})
	for _, d := range writtenDates {
		for _, tm := range writtenTimes {
			if t, err := time.Parse(d+tm, s); err == nil {
				return t.Add(-time.Duration(offset) * time.Minute), true
			}
		}
	}
	return time.Time{}, false
}
