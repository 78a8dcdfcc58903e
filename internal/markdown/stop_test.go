package markdown

import (
	"strings"
	"testing"
)

// TestRenderMessageStops checks that Env.Stop ends a rendering between
// texts, and that the result says so.
func TestRenderMessageStops(t *testing.T) {
	src := strings.Repeat("see #1 here\n\n", 10)
	calls := 0
	env := func(stopAfter int) *Env {
		calls = 0
		return &Env{
			Linkify: func(text string) []Link {
				calls++
				i := strings.Index(text, "#1")
				if i < 0 {
					return nil
				}
				return []Link{{Start: i, End: i + 2, URL: "https://example.com/1"}}
			},
			Stop: func() bool { return stopAfter >= 0 && calls >= stopAfter },
		}
	}
	full := RenderMessage(src, env(-1))
	if full.Stopped || calls != 10 || strings.Count(full.HTML, "<a ") != 10 {
		t.Errorf("never stopped: Stopped %v after %d texts, %d links", full.Stopped, calls, strings.Count(full.HTML, "<a "))
	}
	part := RenderMessage(src, env(3))
	if !part.Stopped || calls != 3 || strings.Count(part.HTML, "<a ") != 3 {
		t.Errorf("stopped after 3 texts: Stopped %v after %d texts, %d links", part.Stopped, calls, strings.Count(part.HTML, "<a "))
	}
}

// TestMaxHTML checks Env.MaxHTML: HTML as long as the bound is kept, one
// byte longer is TooLong and empty, links whose targets alone pass the
// bound stop the rendering before the next text is linkified, and math
// past it is TooLong too.
func TestMaxHTML(t *testing.T) {
	const html = "<p>some text</p>"
	if res := RenderMessage("some text", &Env{MaxHTML: len(html)}); res.TooLong || res.HTML != html {
		t.Errorf("at the bound: TooLong %v, %q", res.TooLong, res.HTML)
	}
	if res := RenderMessage("some text", &Env{MaxHTML: len(html) - 1}); !res.TooLong || res.HTML != "" {
		t.Errorf("a byte past the bound: TooLong %v, %q", res.TooLong, res.HTML)
	}

	calls := 0
	target := "https://example.com/" + strings.Repeat("a", 100)
	env := &Env{MaxHTML: 250, Linkify: func(text string) []Link {
		calls++
		i := strings.Index(text, "#1")
		if i < 0 {
			return nil
		}
		return []Link{{Start: i, End: i + 2, URL: target}}
	}}
	res := RenderMessage(strings.Repeat("see #1 here\n\n", 10), env)
	if !res.TooLong || res.HTML != "" || calls != 3 {
		t.Errorf("links past the bound: TooLong %v after %d texts, %.80q", res.TooLong, calls, res.HTML)
	}
	env.MaxHTML = 0
	if res := RenderMessage(strings.Repeat("see #1 here\n\n", 10), env); res.TooLong || strings.Count(res.HTML, target) != 10 {
		t.Errorf("no bound: TooLong %v, %d targets", res.TooLong, strings.Count(res.HTML, target))
	}

	inline := RenderMessage("$$x$$", patient).HTML
	bounded := *patient
	bounded.MaxHTML = 2 * len(inline)
	res = RenderMessage(strings.Repeat("$$x$$ ", 3)+`$$\error{x}$$`, &bounded)
	if !res.TooLong || res.HTML != "" {
		t.Errorf("math past the bound: TooLong %v, %.80q", res.TooLong, res.HTML)
	}
}
