package markdown

import "testing"

// TestRenderMarkdown: raw HTML is text, and a link goes only to the URL
// schemes the reference allows: with another, "[text](url)" stays text, as
// the reference leaves a link it does not make.
func TestRenderMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"**bold** *it* ~~gone~~ ~5 min ~~ spaced ~~", "<p><strong>bold</strong> <em>it</em> <del>gone</del> ~5 min <del> spaced </del></p>"},
		{"_it_ __not__ snake_case_name", "<p>_it_ __not__ snake_case_name</p>"},
		{"<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"<div onclick=x>\nhi\n</div>", "<p>&lt;div onclick=x&gt;<br>\nhi<br>\n&lt;/div&gt;</p>"},
		{"[a](javascript:alert(1))", `<p>[a](javascript:alert(1))</p>`},
		{"[a](JaVaScRiPt:alert(1))", `<p>[a](JaVaScRiPt:alert(1))</p>`},
		// A reference in a target is not resolved: without a scheme the
		// target is a host, as the reference's sanitizer reads it.
		{"[a](javascript&#58;alert(1)) [b](&#106;avascript:x) [c](<java\tscript:x>)", `<p><a href="http://javascript:alert(1)">a</a> <a href="http://javascript:x">b</a> <a href="http://java%20%20%20script:x">c</a></p>`},
		// An info string is an attribute value: its quotes are escaped.
		{"```a\"onmouseover=alert(1)\nx\n```", `<div class="codehilite" data-code-language="a&quot;onmouseover=alert(1)"><pre><span></span><code>x` + "\n</code></pre></div>"},
		{"[a](gopher://example.com/x) [b](ftp://example.com/x)", `<p>[a](gopher://example.com/x) <a href="ftp://example.com/x">b</a></p>`},
		{"[call me](tel:+14155551234) [or not](sms:+14155551234)", `<p><a href="tel:+14155551234">call me</a> <a href="sms:+14155551234">or not</a></p>`},
		{"[a](https://example.com/?q=\"x\")", `<p><a href="https://example.com/?q=%22x%22">a</a></p>`},
		{"[mail](mailto:me@example.com) [rel](/path)", `<p><a href="mailto:me@example.com">mail</a> <a href="/path">rel</a></p>`},
		// No images: "![" is text, as in the reference's messages.
		{"![img](data:image/png;base64,AAAA)", `<p>![img](data:image/png;base64,AAAA)</p>`},
		// No <url> autolinks: the brackets stay, around a web link.
		{"<javascript:alert(1)> <https://example.com>", `<p>&lt;javascript:alert(1)&gt; &lt;<a href="https://example.com">https://example.com</a>&gt;</p>`},
		{`"quoted" it's &copy; [t](/x "a\"b")`, `<p>"quoted" it's &copy; <a href="/x" title="a&quot;b">t</a></p>`},
		{"see https://example.com", `<p>see <a href="https://example.com">https://example.com</a></p>`},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
