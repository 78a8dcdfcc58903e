package slackimport_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage"
)

// Slack markup as real messages write it, through the import and the
// renderer: code fences with text on their lines, quotes, lists, emphasis
// inside links, wildcard mentions, and mentions of users and channels the
// export does not have, whose names stay visible.
func TestImportSlackMarkup(t *testing.T) {
	cases := []struct{ text, html string }{
		{"```Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad```",
			"<div class=\"codehilite\"><pre><span></span><code>Traceback (most recent call last):\n  File &quot;x.py&quot;, line 1\nValueError: bad\n</code></pre></div>"},
		{"run ```make test``` now", "<p>run</p>\n<div class=\"codehilite\"><pre><span></span><code>make test\n</code></pre></div>\n<p>now</p>"},
		// In Slack, text after the opening fence is code, not a language.
		{"```python\nprint(1)```", "<div class=\"codehilite\"><pre><span></span><code>python\nprint(1)\n</code></pre></div>"},
		{"&gt; quoted\nnot quoted", "<blockquote>\n<p>quoted</p>\n</blockquote>\n<p>not quoted</p>"},
		{"&gt;&gt;&gt; all\nquoted\n```code```", "<blockquote>\n<p>all<br>\nquoted</p>\n<div class=\"codehilite\"><pre><span></span><code>code\n</code></pre></div>\n</blockquote>"},
		{"intro\n• one\n    ◦ nested\n• two", "<p>intro</p>\n<ul>\n<li>one<ul>\n<li>nested</li>\n</ul>\n</li>\n<li>two</li>\n</ul>"},
		{"1. first\n2. second", "<ol>\n<li>first</li>\n<li>second</li>\n</ol>"},
		{"<https://x.example/a_b|*bold* and _it_ link> *<https://y.example|bolded>*",
			`<p><a href="https://x.example/a_b"><strong>bold</strong> and <em>it</em> link</a> <strong><a href="https://y.example">bolded</a></strong></p>`},
		{"<!here> <!channel> <!here|@here> <!everyone>", "<p>" + wildcard("channel") + " " + wildcard("channel") + " " +
			wildcard("channel") + " " + wildcard("everyone") + "</p>"},
		{"<@U9> <@U9|zed> <#C9|gone> <#C8> <@U1|alice>",
			`<p>@U9 @zed #gone #C8 <span class="user-mention" data-user-id="{alice}">@Alice Archer</span></p>`},
		{"_italic_ ~strike~ *bold*", "<p><em>italic</em> <del>strike</del> <strong>bold</strong></p>"},
	}
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{JWTSecret: testSecret})
		var msgs []obj
		for i, c := range cases {
			msgs = append(msgs, obj{"type": "message", "user": "U1", "ts": fmt.Sprintf("17041032%02d.000000", i), "text": c.text})
		}
		files := map[string]any{
			"users.json": []obj{{"id": "U1", "name": "alice", "is_primary_owner": true,
				"profile": obj{"real_name": "Alice Archer", "email": "alice@example.com"}}},
			"channels.json":           []obj{{"id": "C1", "name": "general", "members": []string{"U1"}}},
			"general/2024-01-01.json": msgs,
		}
		_, err := importSample(t, svc, files, slackimport.Options{Host: "acme.example.com"})
		wantNoErr(t, "import", err)
		alice := loginID(t, svc, "acme.example.com", "alice@example.com")
		got, err := svc.GetMessages(context.Background(), chat.AsUser(alice), chat.GetMessagesRequest{Anchor: ptr("oldest"),
			IncludeAnchor: ptr(true), NumAfter: ptr[int64](100), Format: chat.MessageFormat{ApplyMarkdown: true, AllowEmptyTopicName: true}})
		wantNoErr(t, "GetMessages", err)
		if len(got.Messages) != len(cases) {
			t.Fatalf("%d messages, want %d", len(got.Messages), len(cases))
		}
		for i, m := range got.Messages {
			want := strings.ReplaceAll(cases[i].html, "{alice}", fmt.Sprint(alice))
			if m.Content != want {
				t.Errorf("%q rendered as\n%q, want\n%q", cases[i].text, m.Content, want)
			}
		}
	})
}

// wildcard is a rendered wildcard mention.
func wildcard(name string) string {
	return `<span class="user-mention channel-wildcard-mention" data-user-id="*">@` + name + `</span>`
}
