package markdown

import (
	"slices"
	"testing"
)

// TestRenderTextAsTheReference: text is escaped as the reference's
// serializer escapes it (&, < and > only, character references as typed),
// attribute values with their quotes escaped too, and "![" is text.
func TestRenderTextAsTheReference(t *testing.T) {
	env := &Env{
		UserByName: func(name string) (User, bool) { return User{ID: 1, FullName: `O'Brien "Ob"`}, name == `O'Brien "Ob"` },
		Group:      func(name string) (Group, bool) { return Group{ID: 2, Name: name}, name == `a&b's` },
		Channel:    func(name string) (Channel, bool) { return Channel{ID: 3, Name: name}, name == `Tom's "team"` },
	}
	for _, c := range []struct{ in, want string }{
		{`he said "hi" & it's <b>`, `<p>he said "hi" &amp; it's &lt;b&gt;</p>`},
		{`**"bold"** *'it'* ~~"gone"~~`, `<p><strong>"bold"</strong> <em>'it'</em> <del>"gone"</del></p>`},
		{"# \"head\"\n> 'quoted'", "<h1>\"head\"</h1>\n<blockquote>\n<p>'quoted'</p>\n</blockquote>"},
		// Code spans escape every &; code blocks escape as the highlighter does.
		{"`'a' \"b\" &nbsp; <c>`", `<p><code>'a' "b" &amp;nbsp; &lt;c&gt;</code></p>`},
		{"```\n'a' \"b\"\n```", `<div class="codehilite"><pre><span></span><code>&#39;a&#39; &quot;b&quot;` + "\n</code></pre></div>"},
		// Character references stay as typed; what is not one is escaped.
		{`& &amp; &amp;amp; &copy; &#65; &#x41; &#X41; &foo; &#; &x`, `<p>&amp; &amp; &amp;amp; &copy; &#65; &#x41; &amp;#X41; &foo; &amp;#; &amp;x</p>`},
		// A backslash is text: the reference has no backslash escapes.
		{`\"x\" \* \\ \<b\> \&amp; \~ \|`, `<p>\"x\" \* \\ \&lt;b\&gt; \&amp; \~ \|</p>`},
		{`\*hello\* \# x`, `<p>\<em>hello\</em> \# x</p>`},
		{"\\# not a heading\n\\- not an item\n\\`not code`", "<p>\\# not a heading<br>\n\\- not an item<br>\n\\`not code`</p>"},
		// Before a backtick, a pair of backslashes is one, and the backtick
		// opens a span; after an odd run it is text, as in the reference.
		{"\\\\`code` \\\\\\`x` \\\\\\\\``y`` \\\\", "<p>\\<code>code</code> \\\\\\`x` \\\\<code>y</code> \\\\</p>"},
		{`[a "b"](https://ex.org/x "it's \"t\" &amp; <u>")`, `<p><a href="https://ex.org/x" title="it's &quot;t&quot; &amp; &lt;u&gt;">a "b"</a></p>`},
		{`https://ex.org/?a=1&amp;b=2 "x"`, `<p><a href="https://ex.org/?a=1&amp;b=2">https://ex.org/?a=1&amp;b=2</a> "x"</p>`},
		{`@**O'Brien "Ob"** @*a&b's*`, `<p><span class="user-mention" data-user-id="1">@O'Brien "Ob"</span> <span class="user-group-mention" data-user-group-id="2">@a&amp;b's</span></p>`},
		{`#**Tom's "team"**`, `<p><a class="stream" data-stream-id="3" href="/#narrow/channel/3-Tom.27s-.22team.22">#Tom's "team"</a></p>`},
		{`<time:"x">`, `<p><span class="timestamp-error">Invalid time format: "x"</span></p>`},
		// The reference has no image syntax.
		{`![a "b"](https://ex.org/x.png "t")`, `<p>![a "b"](<a href="https://ex.org/x.png">https://ex.org/x.png</a> "t")</p>`},
		{"a\x00b", "<p>a\uFFFDb</p>"},
	} {
		if got := RenderMessage(c.in, env).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestHasImage: a message has an image when it links an uploaded image
// file; other uploads are attachments, and "![…](…)" is no image.
func TestHasImage(t *testing.T) {
	for _, c := range []struct {
		in                string
		image, attachment bool
	}{
		{"[pic.PNG](/user_uploads/2/ab/pic.PNG)", true, true},
		{"[a](/user_uploads/2/ab/a.jpeg) and /user_uploads/x", true, true},
		{"[doc.pdf](/user_uploads/2/ab/doc.pdf)", false, true},
		{"![x](https://ex.org/x.png)", false, false},
		{"[pic.png](https://ex.org/pic.png)", false, false},
		// The organization's own uploads, linked in full, are made relative.
		{"https://chat.example.com/user_uploads/2/ab/p.gif", true, true},
	} {
		r := RenderMessage(c.in, &Env{RealmURL: "https://chat.example.com"})
		if r.HasImage != c.image || r.HasAttachment != c.attachment {
			t.Errorf("RenderMessage(%q): image %v, attachment %v; want %v, %v", c.in, r.HasImage, r.HasAttachment, c.image, c.attachment)
		}
	}
}

// TestLinkedTopics: the topic links a content may hold, as the renderer
// reads them, message links and channel links left out.
func TestLinkedTopics(t *testing.T) {
	var got []string
	LinkedTopics("#**a>b** #**a>b@5** #**c** #**a>** `#**d>e f**` #**x*y>z** #**>t** #**g>h", func(channel, topic string) bool {
		got = append(got, channel+"|"+topic)
		return true
	})
	want := []string{"a|b", "a|", "d|e f"}
	if !slices.Equal(got, want) {
		t.Errorf("LinkedTopics yielded %q, want %q", got, want)
	}
	n := 0
	LinkedTopics("#**a>b** #**a>c**", func(string, string) bool { n++; return false })
	if n != 1 {
		t.Errorf("LinkedTopics went on after yield returned false: %d calls", n)
	}
}
