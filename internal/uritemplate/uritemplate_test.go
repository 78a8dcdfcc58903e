package uritemplate

import (
	"slices"
	"testing"
)

// The string examples of RFC 6570 section 3.2.1, with its variables.
var rfcValues = map[string]string{
	"var": "value", "hello": "Hello World!", "half": "50%", "base": "http://example.com/home/",
	"path": "/foo/bar", "empty": "", "x": "1024", "y": "768", "who": "fred", "v": "6",
	"dub": "me/too", "semi": ";x=y",
}

func TestRFC6570Examples(t *testing.T) {
	for _, c := range []struct{ template, want string }{
		// 3.2.2 simple string expansion
		{"{var}", "value"}, {"{hello}", "Hello%20World%21"}, {"{half}", "50%25"},
		{"O{empty}X", "OX"}, {"O{undef}X", "OX"}, {"{x,y}", "1024,768"}, {"{x,hello,y}", "1024,Hello%20World%21,768"},
		{"?{x,empty}", "?1024,"}, {"?{x,undef}", "?1024"}, {"?{undef,y}", "?768"}, {"{var:3}", "val"}, {"{var:30}", "value"},
		// 3.2.3 reserved expansion
		{"{+var}", "value"}, {"{+hello}", "Hello%20World!"}, {"{+half}", "50%25"},
		{"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"}, {"{+base}index", "http://example.com/home/index"},
		{"O{+empty}X", "OX"}, {"{+path}/here", "/foo/bar/here"}, {"here?ref={+path}", "here?ref=/foo/bar"},
		{"up{+path}{var}/here", "up/foo/barvalue/here"}, {"{+x,hello,y}", "1024,Hello%20World!,768"},
		{"{+path:6}/here", "/foo/b/here"},
		// 3.2.4 fragment expansion
		{"{#var}", "#value"}, {"{#hello}", "#Hello%20World!"}, {"{#half}", "#50%25"}, {"foo{#empty}", "foo#"},
		{"foo{#undef}", "foo"}, {"{#x,hello,y}", "#1024,Hello%20World!,768"}, {"{#path:6}/here", "#/foo/b/here"},
		// 3.2.5 label expansion
		{"{.who}", ".fred"}, {"{.who,who}", ".fred.fred"}, {"{.half,who}", ".50%25.fred"}, {"X{.var}", "X.value"},
		{"X{.empty}", "X."}, {"X{.undef}", "X"}, {"X{.var:3}", "X.val"},
		// 3.2.6 path segments
		{"{/who}", "/fred"}, {"{/who,who}", "/fred/fred"}, {"{/half,who}", "/50%25/fred"},
		{"{/who,dub}", "/fred/me%2Ftoo"}, {"{/var}", "/value"}, {"{/var,empty}", "/value/"},
		{"{/var,undef}", "/value"}, {"{/var,x}/here", "/value/1024/here"}, {"{/var:1,var}", "/v/value"},
		// 3.2.7 path-style parameters
		{"{;who}", ";who=fred"}, {"{;half}", ";half=50%25"}, {"{;empty}", ";empty"}, {"{;v,empty,who}", ";v=6;empty;who=fred"},
		{"{;v,bar,who}", ";v=6;who=fred"}, {"{;x,y}", ";x=1024;y=768"}, {"{;x,y,empty}", ";x=1024;y=768;empty"},
		{"{;x,y,undef}", ";x=1024;y=768"}, {"{;hello:5}", ";hello=Hello"},
		// 3.2.8 form-style query
		{"{?who}", "?who=fred"}, {"{?half}", "?half=50%25"}, {"{?x,y}", "?x=1024&y=768"}, {"{?x,y,empty}", "?x=1024&y=768&empty="},
		{"{?x,y,undef}", "?x=1024&y=768"}, {"{?var:3}", "?var=val"},
		// 3.2.9 form-style query continuation
		{"{&who}", "&who=fred"}, {"{&half}", "&half=50%25"}, {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
		{"{&x,y,empty}", "&x=1024&y=768&empty="}, {"{&var:3}", "&var=val"},
		// Explode is the identity for strings.
		{"{/who*}", "/fred"},
	} {
		tm, err := Parse(c.template)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.template, err)
			continue
		}
		if got := tm.Expand(rfcValues); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.template, got, c.want)
		}
	}
}

func TestNonASCII(t *testing.T) {
	for _, c := range []struct{ template, want string }{
		{"https://de.wikipedia.org/wiki/{page}", "https://de.wikipedia.org/wiki/K%C3%B6ln"},
		{"https://x/{+page}", "https://x/K%C3%B6ln"},
		{"https://x/{page:2}", "https://x/K%C3%B6"},
		{"https://x/straße/{page}", "https://x/stra%C3%9Fe/K%C3%B6ln"},
		{"{?q}", "?q=%E6%97%A5%E6%9C%AC"},
	} {
		tm, err := Parse(c.template)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.template, err)
		}
		if got := tm.Expand(map[string]string{"page": "Köln", "q": "日本"}); got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.template, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{
		"{id", "id}", "{}", "{=x}", "{,x}", "{!x}", "{@x}", "{|x}", "{a b}", "{a,}", "{.a.}", "{a..b}",
		"{x:0}", "{x:10000}", "{x:}", "{x:a}", "{x*3}", "a b", "a<b", "%zz", "50%", "a\"b", "{x}}", "\xff",
	} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded", s)
		}
	}
}

func TestVarnames(t *testing.T) {
	tm, err := Parse("https://x/{org}/{repo}/{?id,org}{#frag:3}")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tm.Varnames(), []string{"org", "repo", "id", "frag"}; !slices.Equal(got, want) {
		t.Errorf("Varnames = %q, want %q", got, want)
	}
}
