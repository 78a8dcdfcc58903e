package chat_test

import (
	"fmt"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

func TestLinkify(t *testing.T) {
	issues := chat.Linkifier{ID: 1, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://github.com/zulip/zulip/issues/{id}"}
	repo := chat.Linkifier{ID: 2, Pattern: `(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)`,
		URLTemplate: "https://github.com/{org}/{repo}/pull/{id}"}
	wiki := chat.Linkifier{ID: 3, Pattern: `wiki:(?P<page>\S+)`, URLTemplate: "https://de.wikipedia.org/wiki/{page}"}
	query := chat.Linkifier{ID: 4, Pattern: `search:(?P<q>\pL+)`, URLTemplate: "https://example.com/s{?q}"}
	for _, c := range []struct {
		name  string
		text  string
		ls    []chat.Linkifier
		wants []chat.LinkMatch
	}{
		{"named group", "see #123 now", []chat.Linkifier{issues},
			[]chat.LinkMatch{{Start: 4, End: 8, URL: "https://github.com/zulip/zulip/issues/123", LinkifierID: 1}}},
		{"start and end of text", "#1", []chat.Linkifier{issues},
			[]chat.LinkMatch{{Start: 0, End: 2, URL: "https://github.com/zulip/zulip/issues/1", LinkifierID: 1}}},
		{"adjacent matches share a space", "#1 #2", []chat.Linkifier{issues}, []chat.LinkMatch{
			{Start: 0, End: 2, URL: "https://github.com/zulip/zulip/issues/1", LinkifierID: 1},
			{Start: 3, End: 5, URL: "https://github.com/zulip/zulip/issues/2", LinkifierID: 1}}},
		{"not inside a word", "abc#12 #12a", []chat.Linkifier{issues}, nil},
		{"after an opening delimiter", "(#7)", []chat.Linkifier{issues},
			[]chat.LinkMatch{{Start: 1, End: 3, URL: "https://github.com/zulip/zulip/issues/7", LinkifierID: 1}}},
		{"several groups, earlier linkifier first", "zulip/zulip#42 and #43", []chat.Linkifier{repo, issues}, []chat.LinkMatch{
			{Start: 0, End: 14, URL: "https://github.com/zulip/zulip/pull/42", LinkifierID: 2},
			{Start: 19, End: 22, URL: "https://github.com/zulip/zulip/issues/43", LinkifierID: 1}}},
		{"non-ASCII value is UTF-8 percent-encoded", "lies wiki:Köln_Straße", []chat.Linkifier{wiki},
			[]chat.LinkMatch{{Start: 5, End: 23, URL: "https://de.wikipedia.org/wiki/K%C3%B6ln_Stra%C3%9Fe", LinkifierID: 3}}},
		{"non-ASCII around the match", "ü search:日本 ü", []chat.Linkifier{query},
			[]chat.LinkMatch{{Start: 3, End: 16, URL: "https://example.com/s?q=%E6%97%A5%E6%9C%AC", LinkifierID: 4}}},
		{"a letter after a non-ASCII match blocks it", "#12é", []chat.Linkifier{issues}, nil},
		{"no linkifiers", "#1", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			diff(t, "Linkify", chat.Linkify(c.text, c.ls), c.wants)
		})
	}
}

// TestURLTemplateExamples checks expansion against examples of RFC 6570
// (section 1.2, levels 1 to 4) through Linkify, so that the template
// library's behaviour that linkifiers depend on is pinned.
func TestURLTemplateExamples(t *testing.T) {
	// Each pattern captures var="value" and hello="Hello World!" from the
	// text "value Hello World!" and path="/foo/bar".
	pattern := `(?P<var>value) (?P<hello>Hello World!) (?P<path>/foo/bar)`
	text := "value Hello World! /foo/bar"
	for _, c := range []struct{ template, want string }{
		{"http://x/{var}/{hello}/{path}", "http://x/value/Hello%20World%21/%2Ffoo%2Fbar"},
		{"http://x/{+path}/here?{var}{hello}", "http://x//foo/bar/here?valueHello%20World%21"},
		{"http://x/{+var}{+hello}{path}", "http://x/valueHello%20World!%2Ffoo%2Fbar"},
		{"http://x/{#hello}{path}{var}", "http://x/#Hello%20World!%2Ffoo%2Fbarvalue"},
		{"http://x{/var,hello}{path}", "http://x/value/Hello%20World%21%2Ffoo%2Fbar"},
		{"http://x/{.var}{;hello}{?path}", "http://x/.value;hello=Hello%20World%21?path=%2Ffoo%2Fbar"},
		{"http://x/{var:3}{&hello}{path}", "http://x/val&hello=Hello%20World%21%2Ffoo%2Fbar"},
	} {
		got := chat.Linkify(text, []chat.Linkifier{{ID: 1, Pattern: pattern, URLTemplate: c.template}})
		if len(got) != 1 || got[0].URL != c.want {
			t.Errorf("%s: got %+v, want URL %s", c.template, got, c.want)
		}
	}
}

// TestLinkifierLimit checks MaxLinkifiers on every backend: the last one
// that fits is stored, the next is refused and stores nothing.
func TestLinkifierLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		add := func(i int) error {
			_, err := f.svc.AddLinkifier(ctx, owner, chat.LinkifierRequest{Pattern: fmt.Sprintf(`L%d-(?P<id>[0-9]+)`, i),
				URLTemplate: "https://example.org/{id}"})
			return err
		}
		for i := range chat.MaxLinkifiers {
			wantNoErr(t, "AddLinkifier", add(i))
		}
		wantErr(t, "one too many", add(chat.MaxLinkifiers), chat.ErrTooManyLinkifiers)
		list, err := f.svc.Linkifiers(ctx, owner)
		wantNoErr(t, "Linkifiers", err)
		if len(list) != chat.MaxLinkifiers {
			t.Errorf("%d linkifiers stored, want %d", len(list), chat.MaxLinkifiers)
		}
	})
}

// TestTopicLinks pins a topic's links as the reference lists them: the
// linkifiers' matches, then the web links that none of them overlaps
// (written without a scheme, they get https://), in the topic's order.
func TestTopicLinks(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner := chat.AsUser(f.owner.ID)
		_, err := f.svc.AddLinkifier(ctx, owner, chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://tracker.example/{id}"})
		wantNoErr(t, "AddLinkifier", err)
		_, err = f.svc.AddLinkifier(ctx, owner, chat.LinkifierRequest{Pattern: `(?P<host>docs\.example\.org)`, URLTemplate: "https://{host}/home"})
		wantNoErr(t, "AddLinkifier", err)
		_, err = f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "links"}}})
		wantNoErr(t, "Subscribe", err)
		topic := "#7 ex.com/a,http://x.org/b! docs.example.org x.md a@b.io"
		id, err := f.svc.PostChannelMessage(ctx, owner, channelIDOf(t, f, "links"), topic, "hi")
		wantNoErr(t, "PostChannelMessage", err)
		v, _, err := f.svc.GetMessage(ctx, owner, id, chat.MessageFormat{ApplyMarkdown: true})
		wantNoErr(t, "GetMessage", err)
		diff(t, "topic_links", v.TopicLinks, []chat.TopicLink{
			{Text: "#7", URL: "https://tracker.example/7"},
			{Text: "ex.com/a", URL: "https://ex.com/a"},
			{Text: "http://x.org/b", URL: "http://x.org/b"},
			{Text: "docs.example.org", URL: "https://docs.example.org/home"},
			{Text: "a@b.io", URL: "https://a@b.io"},
		})
	})
}
