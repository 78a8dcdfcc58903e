package markdown

import (
	"strings"
	"testing"
)

// BenchmarkRenderMessage renders messages of the shapes chat has most:
// a line, a paragraph with a link and emphasis, a list after text, a
// quote and a reply, and a pasted log with indented lines.
func BenchmarkRenderMessage(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"line", "sounds good, see you at 3"},
		{"paragraph", "The **deploy** of v2.3 is done: https://example.com/releases/2.3 has the notes.\nPing me if *anything* looks off :)"},
		{"list", "Agenda:\n- review the *open* issues\n- plan the release\n  - notes\n  - dates\n- retro"},
		{"quote", "> can we ship today?\n> the tests are green\n\nyes, after lunch"},
		{"log", "It fails with:\n" + strings.Repeat("  at handler (server.go:42)\n\tcaused by: timeout  \n", 20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := &Env{}
			for b.Loop() {
				RenderMessage(c.src, env)
			}
		})
	}
}
