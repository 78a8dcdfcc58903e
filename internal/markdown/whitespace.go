package markdown

import (
	"strings"
	"unicode/utf8"
)

// tabWidth is the reference's tab stop: its Markdown expands tabs to every
// fourth column before it parses anything, code blocks included.
const tabWidth = 4

// normalizeWhitespace does to a text what the reference's Markdown does
// before parsing it: line ends become "\n", tabs become spaces to the next
// tab stop (columns counted in characters, from each line's start), and a
// line of spaces only after another line becomes empty. So Go code pasted
// with tabs reads as the reference shows it, four columns a level, and a
// blank line holding spaces in a code block is a blank line.
func normalizeWhitespace(src string) string {
	if !strings.ContainsAny(src, "\t\r") && !strings.Contains(src, "\n ") {
		return src
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); {
		end := strings.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		line := src[i:end]
		if i > 0 && line != "" && strings.Trim(line, " \t") == "" {
			line = "" // spaces only, tabs expanded or not
		}
		writeExpanded(&b, line)
		if end < len(src) {
			b.WriteByte('\n')
		}
		i = end + 1
	}
	return b.String()
}

// writeExpanded writes line with its tabs expanded to tabWidth stops.
func writeExpanded(b *strings.Builder, line string) {
	if strings.IndexByte(line, '\t') < 0 {
		b.WriteString(line)
		return
	}
	column := 0
	for len(line) > 0 {
		r, size := utf8.DecodeRuneInString(line)
		if r == '\t' {
			spaces := tabWidth - column%tabWidth
			b.WriteString("    "[:spaces])
			column += spaces
		} else {
			b.WriteString(line[:size])
			column++
		}
		line = line[size:]
	}
}
