package markdown

import "testing"

// TestWhitespaceAsTheReference: tabs and line ends are normalized before
// parsing, as the reference's Markdown does, so code pasted with tabs comes
// out with spaces to every fourth column; a line of spaces is blank.
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

// TestLineSpacesAsTheReference: a paragraph's lines keep the spaces at
// their ends and their indentation, as the reference's paragraphs keep
// their lines as typed; the first line's indentation, headings and the
// paragraphs of list items after their first do not.
func TestLineSpacesAsTheReference(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Each line end is a break, and no two-space break eats spaces.
		{"a  \nb", "<p>a  <br>\nb</p>"},
		{"a \nb\n\nlast  ", "<p>a <br>\nb</p>\n<p>last  </p>"},
		{"**b**  \n`c`  ", "<p><strong>b</strong>  <br>\n<code>c</code>  </p>"},
		{"* One \n  * Two\n* opened vs2013 ", "<ul>\n<li>One <ul>\n<li>Two</li>\n</ul>\n</li>\n<li>opened vs2013 </li>\n</ul>"},
		{"# heading  ", "<h1>heading</h1>"},
		// Continuation lines keep their indentation...
		{"  first\n    second\n  *third*", "<p>first<br>\n    second<br>\n  <em>third</em></p>"},
		{">  a\n>   b", "<blockquote>\n<p>a<br>\n  b</p>\n</blockquote>"},
		{"* I am outer list\n  I am something inside", "<ul>\n<li>I am outer list<br>\n  I am something inside</li>\n</ul>"},
		{"> * x\n>   y", "<blockquote>\n<ul>\n<li>x<br>\n  y</li>\n</ul>\n</blockquote>"},
		// ...but not in an item's later paragraphs, or a nested list's items.
		{"* c\n\n  d\n  e", "<ul>\n<li>\n<p>c</p>\n<p>d<br>\ne</p>\n</li>\n</ul>"},
		{"* One\n  * Two\n\n    Two continued\n    This shouldn't be a code block",
			"<ul>\n<li>One<ul>\n<li>\n<p>Two</p>\n<p>Two continued<br>\nThis shouldn't be a code block</p>\n</li>\n</ul>\n</li>\n</ul>"},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
