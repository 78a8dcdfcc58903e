package markdown

import "testing"

// TestEmoticons: with TranslateEmoticons, an emoticon between bounds
// (spaces, some punctuation, line ends, the text's ends) is the span of
// its emoji, outside code, as the reference renders it; without, text.
func TestEmoticons(t *testing.T) {
	emoji := map[string]string{"smile": "1f642", "frown": "1f641", "heart": "2764", "wink": "1f609", "confused": "1f615"}
	env := &Env{TranslateEmoticons: true, Emoji: func(name string) (string, bool) { c, ok := emoji[name]; return c, ok }}
	span := func(name, code string) string {
		return `<span aria-label="` + name + `" class="emoji emoji-` + code + `" role="img" title="` + name + `">:` + name + `:</span>`
	}
	smile := span("smile", "1f642")
	for _, c := range []struct{ in, want string }{
		{":) hi (: bye :( <3", "<p>" + smile + " hi " + smile + " bye " + span("frown", "1f641") + " " + span("heart", "2764") + "</p>"},
		{"so:) and ;)x", "<p>so:) and ;)x</p>"},
		{"(:) end!:)?", "<p>" + smile + ") end!" + smile + "?</p>"},
		{":)\n;)", "<p>" + smile + "<br>\n" + span("wink", "1f609") + "</p>"},
		{"`:)` **:)** https://example.com/:/", `<p><code>:)</code> <strong>` + smile + `</strong> <a href="https://example.com/:/">https://example.com/:/</a></p>`},
		{":/", "<p>" + span("confused", "1f615") + "</p>"},
	} {
		if got := RenderMessage(c.in, env).HTML; got != c.want {
			t.Errorf("RenderMessage(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if got, want := RenderMessage(":)", &Env{Emoji: env.Emoji}).HTML, "<p>:)</p>"; got != want {
		t.Errorf("untranslated: got %q, want %q", got, want)
	}
	for in, want := range map[string]bool{":)": true, "a :) b": true, "**:)**": true, "https://x": false, "a:)": false, "x:Dy": false} {
		if got := MayHaveEmoticon(in); got != want {
			t.Errorf("MayHaveEmoticon(%q) = %v", in, got)
		}
	}
}
