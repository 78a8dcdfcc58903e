package slackimport

import "testing"

type testRefs struct{}

func (testRefs) user(id string) (*slackUser, bool) {
	if id == "U1" {
		return &slackUser{id: 7, name: "Ann Lee"}, true
	}
	return nil, false
}

func (testRefs) channelName(id string) (string, bool) {
	if id == "C1" {
		return "design team", true
	}
	return "", false
}

func (testRefs) unresolved(string) {}

func TestSlackMarkdown(t *testing.T) {
	c := slackConverter{refs: testRefs{}}
	for _, tc := range []struct{ in, md, plain string }{
		{"hi <@U1>!", "hi @**Ann Lee|7**!", "hi @Ann Lee!"},
		{"<@U1|ann> and <@U9|zed> and <@U8>", "@**Ann Lee|7** and @zed and @U8", "@Ann Lee and @zed and @U8"},
		{"see <#C1|design>, <#C9|gone>, <#C8>", "see #**design team**, #gone, #C8", "see #design team, #gone, #C8"},
		{"<!here> <!channel> <!everyone>", "@**channel** @**channel** @**everyone**", "@here @channel @everyone"},
		{"<!subteam^S1|@devs> on <!date^1392734382^{date}|Feb 18>", "@devs on Feb 18", "@devs on Feb 18"},
		{"<https://a.example/x?y=1&amp;z=2|the [docs]> <https://b.example>", "[the \\[docs\\]](https://a.example/x?y=1&z=2) https://b.example", "the [docs] https://b.example"},
		{"<mailto:a@b.example|a@b.example>", "[a@b.example](mailto:a@b.example)", "a@b.example"},
		{"*bold* _it_ ~gone~ 2*3*4 a * b *", "**bold** *it* ~~gone~~ 2*3*4 a * b *", "*bold* _it_ ~gone~ 2*3*4 a * b *"},
		{"`*x* <@U1>` and ```\n*y* &lt;b&gt;\n``` *z*", "`*x* <@U1>` and\n```\n*y* <b>\n```\n**z**", "`*x* @Ann Lee` and ``` *y* <b> ``` *z*"},
		{"a &lt;b&gt; &amp;amp;", "a <b> &amp;", "a <b> &amp;"},
		{"line one\n\n  line two", "line one\n\n  line two", "line one line two"},
		{"```Traceback (most recent call last):\n  File x\nError```", "```\nTraceback (most recent call last):\n  File x\nError\n```",
			"```Traceback (most recent call last): File x Error```"},
		{"```python\nprint(1)\n```\nafter", "```\npython\nprint(1)\n```\nafter", "```python print(1) ``` after"},
		{"a\n```x```\n\n```y```", "a\n```\nx\n```\n\n```\ny\n```", "a ```x``` ```y```"},
		{"see ```x = 1``` done", "see\n```\nx = 1\n```\ndone", "see ```x = 1``` done"},
		{"&gt; quoted\nnot quoted\n&gt; again", "> quoted\n\nnot quoted\n> again", "> quoted not quoted > again"},
		{"&gt;&gt;&gt; all\n\nquoted", "> all\n>\n> quoted", ">>> all quoted"},
		{"&gt;&gt;&gt; all\n\nquoted ```code```", "~~~quote\nall\n\nquoted\n```\ncode\n```\n~~~", ">>> all quoted ```code```"},
		{"before\n&gt;&gt;&gt; ~~~\n~~~~~\n```x```", "before\n~~~~~~quote\n~~~\n~~~~~\n```\nx\n```\n~~~~~~", "before >>> ~~~ ~~~~~ ```x```"},
		{"intro\n• one\n    ◦ nested\n• two", "intro\n- one\n    - nested\n- two", "intro • one ◦ nested • two"},
	} {
		if got := c.markdown(tc.in); got != tc.md {
			t.Errorf("markdown(%q) = %q, want %q", tc.in, got, tc.md)
		}
		if got := c.plain(tc.in); got != tc.plain {
			t.Errorf("plain(%q) = %q, want %q", tc.in, got, tc.plain)
		}
	}
}

func TestParseSlackTS(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1704103200.000100", 1704103200000100, true},
		{"1704103200.5", 1704103200500000, true},
		{"1704103200", 1704103200000000, true},
		{"1704103200.1234567", 0, false},
		{"-1.0", 0, false},
		{"x", 0, false},
		{"", 0, false},
	} {
		got, ok := parseSlackTS(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseSlackTS(%q) = %d, %v, want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
