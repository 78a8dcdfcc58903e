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
