package markdown

import "testing"

// TestWhitespaceAsTheReference: tabs, line ends and lines of spaces are
// normalized before parsing, as the reference's Markdown does, so code
// pasted with tabs comes out with spaces to every fourth column.
func TestWhitespaceAsTheReference(t *testing.T) {
	code := func(body string) string {
		return `<div class="codehilite"><pre><span></span><code>` + body + `</code></pre></div>`
	}
	for _, c := range []struct{ in, want string }{
		{"a\tb\tcc\td", "<p>a   b   cc  d</p>"},
		{"é\tx", "<p>é   x</p>"}, // columns are characters, not bytes
		{"`x\ty`", "<p><code>x  y</code></p>"},
		{"```\nfunc f() {\n\treturn\n}\n```", code("func f() {\n    return\n}\n")},
		{"```\na\n \t \nb\n```", code("a\n\nb\n")},
		{"\tindented", code("indented\n")},
		{"a\r\nb\rc", "<p>a<br>\nb<br>\nc</p>"},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
