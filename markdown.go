package chat

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// markdown is the one Markdown renderer of the service. Raw HTML in the
// source is escaped (html.WithUnsafe is off), and goldmark already drops
// link and image destinations with dangerous schemes (javascript:,
// vbscript:, file:, data: other than images); safeLinks below narrows links
// further to the schemes a chat client may follow.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Strikethrough, extension.Linkify, extension.Table),
	goldmark.WithRendererOptions(html.WithHardWraps()),
)

// schemeAttr matches an href or src attribute whose value has a scheme.
// goldmark escapes '"' inside attribute values, so [^"]* ends at the value's
// end.
var schemeAttr = regexp.MustCompile(`(?i)\s(href|src)="([a-z][a-z0-9+.\-]*):[^"]*"`)

// renderMarkdown renders user-written Markdown to HTML that is safe to show
// as user-generated content: no raw HTML, and links only to http, https
// and mailto URLs (others keep their text but get an empty target).
func renderMarkdown(src string) string {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		// goldmark fails only on writer errors, and a bytes.Buffer has none.
		panic(err)
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
	out = schemeAttr.ReplaceAllFunc(out, func(m []byte) []byte {
		sub := schemeAttr.FindSubmatch(m)
		switch string(bytes.ToLower(sub[2])) {
		case "http", "https", "mailto":
			return m
		}
		return append(append([]byte(` `), sub[1]...), `=""`...)
	})
	return string(out)
}
