package markdown

import (
	"strings"
	"testing"
)

// TestRenderMessageBlocks: quote and spoiler fences hold Markdown, code
// blocks come as the reference's clients expect them, <time:…> is a
// moment or an error, each as the reference renders it.
func TestRenderMessageBlocks(t *testing.T) {
	quote := func(inner string) string { return "<blockquote>\n" + inner + "</blockquote>" }
	code := func(lang, body string) string {
		attr := ""
		if lang != "" {
			attr = ` data-code-language="` + lang + `"`
		}
		return `<div class="codehilite"` + attr + `><pre><span></span><code>` + body + `</code></pre></div>`
	}
	spoiler := func(header, content string) string {
		return `<div class="spoiler-block"><div class="spoiler-header">` + "\n" + header +
			`</div><div class="spoiler-content" aria-hidden="true">` + "\n" + content + `</div></div>`
	}
	for _, c := range []struct{ in, want string }{
		{"Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~",
			"<p>Hamlet said:</p>\n" + quote("<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n")},
		{"```quote\nText in\nmultiple lines.\n```\n\n> Text in a single line.",
			quote("<p>Text in<br>\nmultiple lines.</p>\n") + "\n" + quote("<p>Text in a single line.</p>\n")},
		{"```quoted\n# line 1\n#line 2\n```", quote("<h1>line 1</h1>\n<p>#line 2</p>\n")},
		{"~~~ quote\nsee:\n```\nx = 1\n```\n~~~", quote("<p>see:</p>\n" + code("", "x = 1\n") + "\n")},
		{"```quote\nunclosed", quote("<p>unclosed</p>\n")},
		// A closing line closes the innermost fence, as in the reference.
		{"~~~ quote\nouter\n~~~ quote\ninner\n~~~\nstill outer\n~~~\nafter",
			quote("<p>outer</p>\n"+quote("<p>inner</p>\n")+"\n<p>still outer</p>\n") + "\n<p>after</p>"},
		{strings.Repeat("```quote\n", 17) + "deep", strings.Repeat("<blockquote>\n", 16) + code("quote", "deep\n") + "\n" +
			strings.Repeat("</blockquote>\n", 15) + "</blockquote>"},
		{"```spoiler Check **this** out\nThis is a spoiler\n```",
			spoiler("<p>Check <strong>this</strong> out</p>\n", "<p>This is a spoiler</p>\n")},
		{"```spoiler\n> hidden\n```", spoiler("", quote("<p>hidden</p>\n")+"\n")},
		{"Hamlet said:\n~~~~.python \ndef speak(self):\n    x = 1\n~~~~",
			"<p>Hamlet said:</p>\n" + code("Python", `<span class="k">def</span> <span class="nf">speak</span><span class="p">(</span><span class="bp">self</span><span class="p">):</span>`+
				"\n    "+`<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>`+"\n")},
		{"``` inventedlanguage\nx\n```", code("inventedlanguage", "x\n")},
		{"```InventedLanguage extra words\nx\n```", code("inventedlanguage", "x\n")},
		// A fence opens only as the reference's would: a language and a
		// header without backticks or tildes may follow it, nothing else.
		{"~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~", "<p>~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~</p>"},
		{"~~~~ section ~~~~\ntext\n\nmore", "<p>~~~~ section ~~~~<br>\ntext</p>\n<p>more</p>"},
		{"~~~spoiler a ~ b\nx", "<p>~~~spoiler a ~ b<br>\nx</p>"},
		// (Its backticks then open a code span: none later as many, the
		// reference's pattern takes one, and the rest is code.)
		{"```spoiler a ` b\nx", "<p><code>``spoiler a </code> b<br>\nx</p>"},
		// A fence opens at a line's first column only, and a block closes
		// only on its own fence: the reference reads fences from the
		// message's lines before any block. Elsewhere its backticks open
		// a code span, which holds line ends and indentation.
		{"- item\n  ```\n  code\n  ```", "<ul>\n<li>item<br>\n  <code>\n  code\n  </code></li>\n</ul>"},
		{"> ```\n> code\n> ```", quote("<p><code>\ncode\n</code></p>\n")},
		{"  ```\ncode\n  ```", "<p><code>\ncode\n  </code></p>"},
		{"- a\n```\ncode\n```\n- b", "<ul>\n<li>a</li>\n</ul>\n" + code("", "code\n") + "\n<ul>\n<li>b</li>\n</ul>"},
		{"```\ncode\n````\nmore\n```", code("", "code\n````\nmore\n")},
		{"```\ncode\n  ```\nmore", code("", "code\n  ```\nmore\n")},
		{"~~~\na\n~~~~\n~~~  ", code("", "a\n~~~~\n")},
		{"```quote\nq\n````\n```", quote("<p>q</p>\n" + code("", "```\n") + "\n")},
		{"```quote\nq\n  ```\nstill", quote("<p>q<br>\n  ```<br>\nstill</p>\n")},
		{"``` {.Quote}\nq\n```", quote("<p>q</p>\n")},
		{"```js\nlet s = \"<a>\" + 'b' & c;\n```", code("JavaScript", `<span class="kd">let</span> <span class="nx">s</span> <span class="o">=</span> <span class="s2">&quot;&lt;a&gt;&quot;</span> `+
			`<span class="o">+</span> <span class="s1">&#39;b&#39;</span> <span class="o">&amp;</span> <span class="nx">c</span><span class="p">;</span>`+"\n")},
		{"~~~~\ndef func():\n    y = 2\t\t\n\n    z = 3       \n~~~~", code("", "def func():\n    y = 2\n\n    z = 3\n")},
		{"    def foo(): pass", code("", "def foo(): pass\n")},
		{"at <time:2024-01-01T10:00:00+02:00>", `<p>at <time datetime="2024-01-01T08:00:00Z">2024-01-01T10:00:00+02:00</time></p>`},
		{"[](https://github.com) [  ](https://example.com)", `<p><a href="https://github.com">https://github.com</a> <a href="https://example.com">https://example.com</a></p>`},
		{"<time:2024-01-01T00:00:00Z>", `<p><time datetime="2024-01-01T00:00:00Z">2024-01-01T00:00:00Z</time></p>`},
		{"<time:1700000000.5>", `<p><time datetime="2023-11-14T22:13:20.500000Z">1700000000.5</time></p>`},
		{"<time:next week>", `<p><span class="timestamp-error">Invalid time format: next week</span></p>`},
		{"<time:Jun 5th 2017, 10:30PM>", `<p><time datetime="2017-06-05T22:30:00Z">Jun 5th 2017, 10:30PM</time></p>`},
		{"<time:31 Dec 2017 5:30 am IST>", `<p><time datetime="2017-12-31T00:00:00Z">31 Dec 2017 5:30 am IST</time></p>`},
		{"<time:<alert(1)>>", `<p><span class="timestamp-error">Invalid time format: &lt;alert(1)</span>&gt;</p>`},
		{"`<time:1>` <https://example.com>", `<p><code>&lt;time:1&gt;</code> &lt;<a href="https://example.com">https://example.com</a>&gt;</p>`},
		// Code spans keep their spaces, as the reference's do.
		{"` outer ` ```    space    ``` `a` `` `x` `` `  `", `<p><code> outer </code> <code>    space    </code> <code>a</code> <code> ` + "`x`" + ` </code> <code>  </code></p>`},
		// And their lines: the reference's code spans match across lines
		// and keep what they hold, indentation included.
		{"`one\n  two`", "<p><code>one\n  two</code></p>"},
		// With no later run as long, the reference's pattern opens with
		// fewer backticks, the others being code; a closing run is one of
		// exactly as many.
		{"``a`", "<p><code>`a</code></p>"},
		{"`a``b`", "<p><code>a``b</code></p>"},
		{"a `` b ` c `` d", "<p>a <code> b ` c </code> d</p>"},
		{"x ``` y", "<p>x ``` y</p>"},
		{"`a\n\nb`", "<p>`a</p>\n<p>b`</p>"},
		// Bullets of any kind make one list, as in the reference, after a
		// blank line too. Only the items beside a blank line hold
		// paragraphs.
		{"Combine:\n\n* One\n- Two\n+ Three\n- Four", "<p>Combine:</p>\n<ul>\n<li>One</li>\n<li>Two</li>\n<li>Three</li>\n<li>Four</li>\n</ul>"},
		{"* One\n\n- Two", "<ul>\n<li>\n<p>One</p>\n</li>\n<li>\n<p>Two</p>\n</li>\n</ul>"},
		{"- a\n- b\n\n- c\n- d", "<ul>\n<li>a</li>\n<li>\n<p>b</p>\n</li>\n<li>\n<p>c</p>\n</li>\n<li>d</li>\n</ul>"},
		{"1. a\n\n   more\n2. b\n3. c", "<ol>\n<li>\n<p>a</p>\n<p>more</p>\n</li>\n<li>\n<p>b</p>\n</li>\n<li>c</li>\n</ol>"},
		{"1. A\n- B", "<ol>\n<li>A</li>\n</ol>\n<ul>\n<li>B</li>\n</ul>"},
		// A nested list follows its item's text, as the reference writes it.
		{"* outer\n  * inner\n  * more", "<ul>\n<li>outer<ul>\n<li>inner</li>\n<li>more</li>\n</ul>\n</li>\n</ul>"},
		// Two more spaces nest an item, as in the reference, also under a
		// numbered item (whose text CommonMark would start a column later).
		// Before an item of the other kind the reference puts a blank line
		// (hangingLists): the items around it hold paragraphs.
		{"1. Step\n  - detail\n  - more\n2. Next", "<ol>\n<li>\n<p>Step</p>\n<ul>\n<li>detail</li>\n<li>more</li>\n</ul>\n</li>\n<li>\n<p>Next</p>\n</li>\n</ol>"},
		{"1. A\n  1. sub\n    - deep\n2. B", "<ol>\n<li>\n<p>A</p>\n<ol>\n<li>\n<p>sub</p>\n<ul>\n<li>deep</li>\n</ul>\n</li>\n</ol>\n</li>\n<li>\n<p>B</p>\n</li>\n</ol>"},
		// Outside a list, an item indented two spaces or more is text, and
		// two spaces nest an item under one indented one space.
		{"text\n  - after text", "<p>text</p>\n<p>- after text</p>"},
		{"  - one\n  - two", "<p>- one<br>\n  - two</p>"},
		{" - one space\n  - two spaces", "<ul>\n<li>one space<ul>\n<li>two spaces</li>\n</ul>\n</li>\n</ul>"},
		// A nested numbered list keeps its first number.
		{"1. A\n2. B\n  3. C", "<ol>\n<li>A</li>\n<li>B<ol start=\"3\">\n<li>C</li>\n</ol>\n</li>\n</ol>"},
		{"1. A\n  10. ten\n  11. eleven\n2. B", "<ol>\n<li>\n<p>A</p>\n<ol start=\"10\">\n<li>ten</li>\n<li>eleven</li>\n</ol>\n</li>\n<li>\n<p>B</p>\n</li>\n</ol>"},
		{"1. A\n  2. B\n  3. C", "<ol>\n<li>A<ol start=\"2\">\n<li>B</li>\n<li>C</li>\n</ol>\n</li>\n</ol>"},
		// Tables align as the reference's do.
		{"| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |", "<table>\n<thead>\n<tr>\n" +
			`<th style="text-align: left;">a</th>` + "\n" + `<th style="text-align: center;">b</th>` + "\n" +
			`<th style="text-align: right;">c</th>` + "\n<th>d</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n" +
			`<td style="text-align: left;">1</td>` + "\n" + `<td style="text-align: center;">2</td>` + "\n" +
			`<td style="text-align: right;">3</td>` + "\n<td>4</td>\n</tr>\n</tbody>\n</table>"},
		// A quote of quote marks only quotes nothing: its last mark is text.
		{">", "<p>&gt;</p>"},
		{">>>", "<blockquote>\n<blockquote>\n<p>&gt;</p>\n</blockquote>\n</blockquote>"},
		{"para\n>\n>", "<p>para<br>\n&gt;<br>\n&gt;</p>"},
		{"> quote\n>\n\n>", "<blockquote>\n<p>quote</p>\n</blockquote>\n<p>&gt;</p>"},
		{"~~~\n>\n~~~", code("", "&gt;\n")},
		// A line after quote marks only is in the quote, as in the reference.
		{">\n>\ntext", quote("<p>text</p>\n")},
		{"> a\n>\ntext", quote("<p>a</p>\n<p>text</p>\n")},
		// But not an item: the reference puts a blank line before it.
		{"> >\n- item", quote("<p>&gt;</p>\n") + "\n<ul>\n<li>item</li>\n</ul>"},
		// Code is left as written.
		{"para:\n\n    1. x\n      2. y", "<p>para:</p>\n" + code("", "1. x\n  2. y\n")},
		{"1. a\n  1. b\n```\n  - in code\n```\n    - c", "<ol>\n<li>a<ol>\n<li>b</li>\n</ol>\n</li>\n</ol>\n" + code("", "  - in code\n") + "\n" + code("", "- c\n")},
	} {
		if got := RenderMessage(c.in, untimed).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestRenderMessageGroupMentions: @*group* and @_*group* as the reference
// renders them, by name in any case; a deactivated group is mentioned
// silently; an unknown one stays text; @**name** stays a user mention.
func TestRenderMessageGroupMentions(t *testing.T) {
	groups := map[string]Group{"support": {ID: 7, Name: "Support"}, "old": {ID: 8, Name: "old", Deactivated: true}}
	env := &Env{Group: func(name string) (Group, bool) {
		g, ok := groups[strings.ToLower(name)]
		return g, ok
	}}
	for _, c := range []struct {
		in, want string
		groups   []int64
	}{
		{"@*SUPPORT* help", `<p><span class="user-group-mention" data-user-group-id="7">@Support</span> help</p>`, []int64{7}},
		{"@_*support*", `<p><span class="user-group-mention silent" data-user-group-id="7">Support</span></p>`, nil},
		{"@*old*", `<p><span class="user-group-mention silent" data-user-group-id="8">old</span></p>`, nil},
		{"@*nobody* x", `<p>@<em>nobody</em> x</p>`, nil},
		{"@**support**", `<p>@<strong>support</strong></p>`, nil},
	} {
		r := RenderMessage(c.in, env)
		if r.HTML != c.want || len(r.MentionedGroups) != len(c.groups) {
			t.Errorf("RenderMessage(%q) = %q, groups %v; want %q, %v", c.in, r.HTML, r.MentionedGroups, c.want, c.groups)
		}
		for _, id := range c.groups {
			if !r.MentionedGroups[id] {
				t.Errorf("RenderMessage(%q): group %d not mentioned", c.in, id)
			}
		}
	}
}

// TestMentionsInQuotesAreSilent: a mention quoted (> or ```quote) is
// silent and mentions nobody, as in the reference, so that quoting a
// message notifies no one again; channel links still link.
func TestMentionsInQuotesAreSilent(t *testing.T) {
	env := &Env{
		UserByName: func(name string) (User, bool) { return User{ID: 1, FullName: "Ann"}, name == "Ann" },
		Group:      func(name string) (Group, bool) { return Group{ID: 2, Name: "team"}, name == "team" },
		Channel:    func(name string) (Channel, bool) { return Channel{ID: 3, Name: "dev"}, name == "dev" },
	}
	ann := `<span class="user-mention silent" data-user-id="1">Ann</span>`
	team := `<span class="user-group-mention silent" data-user-group-id="2">team</span>`
	all := `<span class="user-mention silent channel-wildcard-mention" data-user-id="*">all</span>`
	dev := `<a class="stream" data-stream-id="3" href="/#narrow/channel/3-dev">#dev</a>`
	for _, in := range []string{"> @**Ann** @*team* @**all** #**dev**", "```quote\n@**Ann** @*team* @**all** #**dev**\n```",
		"> ~~~quote\n> * @**Ann** @*team* @**all** #**dev**\n> ~~~"} {
		r := RenderMessage(in, env)
		if !strings.Contains(r.HTML, ann+" "+team+" "+all+" "+dev) {
			t.Errorf("RenderMessage(%q) = %q", in, r.HTML)
		}
		if len(r.Mentioned) != 0 || len(r.MentionedGroups) != 0 || r.StreamWildcard {
			t.Errorf("RenderMessage(%q) mentions %v, groups %v, wildcard %v", in, r.Mentioned, r.MentionedGroups, r.StreamWildcard)
		}
	}
	if r := RenderMessage("@**Ann** > not a quote", env); !r.Mentioned[1] {
		t.Errorf("a mention outside quotes mentions nobody")
	}
}

// TestOnlyTheReferenceBlocks: the reference has headings by "#" only and
// numbered items by "1." only, so an underlined title is text ("---" under
// it a rule) and "1)" is text, in a list item as well.
func TestOnlyTheReferenceBlocks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Title\n=====\ntext", "<p>Title<br>\n=====<br>\ntext</p>"},
		{"text\n---", "<p>text</p>\n<hr>"},
		{"1) first\n2) second", "<p>1) first<br>\n2) second</p>"},
		{"1. first\n2) second", "<ol>\n<li>first<br>\n2) second</li>\n</ol>"},
		{"1. A\n  1) x", "<ol>\n<li>A<br>\n  1) x</li>\n</ol>"},
		{"# Title\n1. first", "<h1>Title</h1>\n<ol>\n<li>first</li>\n</ol>"},
		// A list follows a line of text where the reference's list
		// preprocessor puts a blank line: at any number, in a quote fence,
		// and not in code, a spoiler or a ">" quote.
		{"Steps:\n3. a\n4. b", "<p>Steps:</p>\n<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>"},
		{"Steps:\n10. a", "<p>Steps:<br>\n10. a</p>"},
		{"```quote\ntext\n- a\n```", "<blockquote>\n<p>text</p>\n<ul>\n<li>a</li>\n</ul>\n</blockquote>"},
		{"> text\n> - item", "<blockquote>\n<p>text<br>\n- item</p>\n</blockquote>"},
		{"```\ntext\n- a\n```", `<div class="codehilite"><pre><span></span><code>text` + "\n- a\n</code></pre></div>"},
		{"```spoiler h\ntext\n- a\n```", `<div class="spoiler-block"><div class="spoiler-header">` + "\n<p>h</p>\n" +
			`</div><div class="spoiler-content" aria-hidden="true">` + "\n<p>text<br>\n- a</p>\n</div></div>"},
		// A line of text between items is a blank line's worth: the list
		// holds paragraphs.
		{"- a\ntext\n- b", "<ul>\n<li>\n<p>a<br>\ntext</p>\n</li>\n<li>\n<p>b</p>\n</li>\n</ul>"},
	} {
		if got := RenderMessage(c.in, &Env{}).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestHangingLists: a blank line goes before an item that follows text,
// in quote fences too, and never in code fences, nested ones included;
// "<>" marks where.
func TestHangingLists(t *testing.T) {
	for _, marked := range []string{
		"Groceries:<>\n* milk\n* eggs",
		"```quote\nQuoted list:<>\n- a\n- b\n\n~~~\nCode, left alone:\n- a\n````quote\nA quote inside code:\n- a\n````\n~~~\n\nQuoted again:<>\n- c\n```\n\nOutside:<>\n- d",
		"```quote\nx:<>\n* one\n```python\nin code:\n* one\n```quote\nstill code:\n* one\n```\n```\nback:<>\n* two\n```",
		"- bullet<>\n1. number<>\n- bullet",
		"Not one digit:\n10. ten",
	} {
		in := strings.ReplaceAll(marked, "<>", "")
		want := strings.ReplaceAll(marked, "<>", "\n")
		if got := hangingLists(in); got != want {
			t.Errorf("hangingLists(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
