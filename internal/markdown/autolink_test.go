package markdown

import (
	"regexp"
	"testing"
)

func TestRenderWebLinks(t *testing.T) {
	a := func(href, text string) string { return `<a href="` + href + `">` + text + `</a>` }
	for _, c := range []struct{ in, want string }{
		{"see example.com now", "<p>see " + a("http://example.com", "example.com") + " now</p>"},
		{"notes in readme.md, views.py and a.commandstuff()", "<p>notes in readme.md, views.py and a.commandstuff()</p>"},
		{"www.example.org/a/b, ucl.ac.uk.", "<p>" + a("http://www.example.org/a/b", "www.example.org/a/b") + ", " + a("http://ucl.ac.uk", "ucl.ac.uk") + ".</p>"},
		{"end https://t.co. (http://a.cc/i/X)", "<p>end " + a("https://t.co", "https://t.co") + ". (" + a("http://a.cc/i/X", "http://a.cc/i/X") + ")</p>"},
		{"(https://en.wikipedia.org/wiki/Go_(language))", "<p>(" + a("https://en.wikipedia.org/wiki/Go_(language)", "https://en.wikipedia.org/wiki/Go_(language)") + ")</p>"},
		{"https://x.org/(1(2(3(4(5(6(7)))))))", "<p>" + a("https://x.org/(1(2(3(4(5(6(7)))))))", "https://x.org/(1(2(3(4(5(6(7)))))))") + "</p>"},
		{"https://x.org/(1(2(3(4(5(6(7(8))))))))", "<p>https://x.org/(1(2(3(4(5(6(7(8))))))))</p>"},
		{"sorry,https://example.com/ x*example.com", "<p>sorry," + a("https://example.com/", "https://example.com/") + " x*example.com</p>"},
		{"**https://example.com** *example.com*", "<p><strong>https://example.com</strong> <em>example.com</em></p>"},
		{"http://localhost:9991/?debug=1&x=2", "<p>" + a("http://localhost:9991/?debug=1&amp;x=2", "http://localhost:9991/?debug=1&amp;x=2") + "</p>"},
		{"http://example.com/q?a,b,c, then", "<p>" + a("http://example.com/q?a,b,c", "http://example.com/q?a,b,c") + ", then</p>"},
		{"javascript:foo.com about:blank", "<p>javascript:" + a("http://foo.com", "foo.com") + " about:blank</p>"},
		{"mail a@b.com. <c@d.org> e@f.com/x", "<p>mail " + a("mailto:a@b.com", "a@b.com") + ". &lt;" + a("mailto:c@d.org", "c@d.org") + "&gt; e@f.com/x</p>"},
		{"http://leo@foo.com/my/file", "<p>" + a("http://leo@foo.com/my/file", "http://leo@foo.com/my/file") + "</p>"},
		{"bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT", "<p>" + a("bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT", "bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT") + "</p>"},
		{"`example.com` [x](https://example.com) love...it", `<p><code>example.com</code> ` + a("https://example.com", "x") + " love...it</p>"},
		{"line one example.com\nexample.org", "<p>line one " + a("http://example.com", "example.com") + "<br>\n" + a("http://example.org", "example.org") + "</p>"},
		{"<https://example.com>", "<p>&lt;" + a("https://example.com", "https://example.com") + "&gt;</p>"},
	} {
		res := RenderMessage(c.in, &Env{})
		if res.HTML != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, res.HTML, c.want)
		}
		if hasLink := regexp.MustCompile(`<a `).MatchString(c.want); res.HasLink != hasLink {
			t.Errorf("RenderMessage(%q).HasLink = %v", c.in, res.HasLink)
		}
	}
}

// TestWebLinksBeforeLinkifiers pins the reference's order: web links are
// found first, and linkifiers match only the text between them.
func TestWebLinksBeforeLinkifiers(t *testing.T) {
	issue := regexp.MustCompile(`#(\d+)`)
	env := &Env{Linkify: func(text string) []Link {
		var links []Link
		for _, m := range issue.FindAllStringSubmatchIndex(text, -1) {
			links = append(links, Link{Start: m[0], End: m[1], URL: "https://tracker.example/" + text[m[2]:m[3]]})
		}
		return links
	}}
	got := RenderMessage("https://github.com/o/r/issues#12 fixes #12, see example.com#3", env).HTML
	want := `<p><a href="https://github.com/o/r/issues#12">https://github.com/o/r/issues#12</a> fixes ` +
		`<a href="https://tracker.example/12">#12</a>, see example.com<a href="https://tracker.example/3">#3</a></p>`
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestRenderLinkTargets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[a](example.com/x)", `<p><a href="http://example.com/x">a</a></p>`},
		{"[a](me@example.com)", `<p><a href="mailto:me@example.com">a</a></p>`},
		{"[a](/user_uploads/1/x.png) [b](#narrow/channel/1)", `<p><a href="/user_uploads/1/x.png">a</a> <a href="#narrow/channel/1">b</a></p>`},
		{"[a](HTTPS://example.com) [b](ftp://example.com) [c](tel:+1555)", `<p><a href="https://example.com">a</a> <a href="ftp://example.com">b</a> <a href="tel:+1555">c</a></p>`},
		{"[a](javascript:alert(1)) [](foo://) [b](localhost:9991/x)", `<p>[a](javascript:alert(1)) [](foo://) [b](localhost:9991/x)</p>`},
		{"[](example.com)", `<p><a href="http://example.com">http://example.com</a></p>`},
		{"Hello [world]\n\n[world]: https://example.com", `<p>Hello [world]</p>` + "\n" + `<p>[world]: <a href="https://example.com">https://example.com</a></p>`},
		{"[x][ref]\n\n[ref]: https://example.com", `<p>[x][ref]</p>` + "\n" + `<p>[ref]: <a href="https://example.com">https://example.com</a></p>`},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestEmphasisEndsOnItsLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"check **any time\nleave** now", "<p>check **any time<br>\nleave** now</p>"},
		{"*a\nb* and ***c*** **d *e***", "<p>*a<br>\nb* and <strong><em>c</em></strong> <strong>d <em>e</em></strong></p>"},
		{"**bold *it\nalic* still** *it*", "<p>**bold *it<br>\nalic* still** <em>it</em></p>"},
		// Strikethrough is two tildes, spaces inside allowed, on one line.
		{"~~a\nb~~ ~~ c ~~ a~~**b**~~c", "<p>~~a<br>\nb~~ <del> c </del> a<del><strong>b</strong></del>c</p>"},
		{"about ~5 min, or ~10; ~~~x~~~ ~~y~~~", "<p>about ~5 min, or ~10; ~~~x~~~ ~~y~~~</p>"},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestEmphasisAsTheReference: **strong** is any text between two pairs of
// stars on a line, spaces included, and *emphasis* holds no star or caret
// of its own, as the reference's patterns read them.
func TestEmphasisAsTheReference(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"** note ** and **a **", "<p><strong> note </strong> and <strong>a </strong></p>"},
		{"2 ** 3 is 8", "<p>2 ** 3 is 8</p>"},
		{"**x*", "<p>*<em>x</em></p>"},
		{"*x**", "<p><em>x</em>*</p>"},
		{"*x^2* *a ** b* *a **b** c*", "<p>*x^2* *a ** b* <em>a <strong>b</strong> c</em></p>"},
		{"*see `x^2`* *[l^](https://example.com)*", `<p><em>see <code>x^2</code></em> <em><a href="https://example.com">l^</a></em></p>`},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
