package slackimport

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// slackRefs resolves the Slack IDs that message text names.
type slackRefs interface {
	// user returns the imported user of a Slack user ID.
	user(slackID string) (*slackUser, bool)
	// channelName returns our name of the channel with the Slack ID.
	channelName(slackID string) (string, bool)
	// unresolved is told of a mention ("@U1", "#C1") that neither
	// resolves, in Markdown conversions.
	unresolved(ref string)
}

// slackConverter turns Slack's message format ("mrkdwn") into our
// Markdown: references in angle brackets become mentions, channel links
// and Markdown links; *bold*, _italic_ and ~strike~ take our syntax (the
// reference's Markdown, like ours, leaves _underscores_ as typed); code is
// left as it is.
type slackConverter struct{ refs slackRefs }

// slackRef matches one reference in angle brackets: <@U1>, <#C1|name>,
// <!here>, <https://x|text>.
var slackRef = regexp.MustCompile(`<([^<>\s][^<>]*)>`)

// slackBold, slackItalic and slackStrike match Slack's emphasis between
// word boundaries, as Slack reads it: the markers hug non-space text.
var (
	slackBold   = regexp.MustCompile(`(^|[\s(\[{>"'])\*([^\s*](?:[^*\n]*[^\s*])?)\*($|[\s)\]}.,!?:;"'])`)
	slackItalic = regexp.MustCompile(`(^|[\s(\[{>"'])_([^\s_](?:[^_\n]*[^\s_])?)_($|[\s)\]}.,!?:;"'])`)
	slackStrike = regexp.MustCompile(`(^|[\s(\[{>"'])~([^\s~](?:[^~\n]*[^\s~])?)~($|[\s)\]}.,!?:;"'])`)
)

// markdown converts Slack text to our Markdown.
func (c *slackConverter) markdown(text string) string {
	var lines []mdLine
	cur, open := "", false // the line being built, and whether it has begun
	endLine := func() {
		if open {
			lines = append(lines, mdLine{text: cur})
		}
		cur, open = "", false
	}
	afterBlock := false
	for _, seg := range splitCode(text) {
		if seg.code {
			// Code keeps its characters; Slack escapes &, < and > there too.
			code := html.UnescapeString(seg.text)
			if !strings.HasPrefix(code, "```") {
				cur, open, afterBlock = cur+code, true, false
				continue
			}
			// Slack shows everything between the fences as code, the
			// text on the fences' lines included; Markdown wants each
			// fence on a line of its own.
			if cur = strings.TrimRight(cur, " \t"); cur != "" {
				endLine()
			}
			cur, open = "", false // a line the block starts is not a line
			inner := strings.TrimPrefix(code[3:len(code)-3], "\n")
			inner = strings.TrimSuffix(inner, "\n")
			lines = append(lines, mdLine{text: "```", code: true})
			if inner != "" {
				for _, l := range strings.Split(inner, "\n") {
					lines = append(lines, mdLine{text: l, code: true})
				}
			}
			lines = append(lines, mdLine{text: "```", code: true})
			afterBlock = true
			continue
		}
		s := slackRef.ReplaceAllStringFunc(seg.text, func(m string) string { return c.reference(m[1:len(m)-1], false) })
		s = slackBold.ReplaceAllString(s, "$1**$2**$3")
		s = slackItalic.ReplaceAllString(s, "$1*$2*$3")
		s = slackStrike.ReplaceAllString(s, "$1~~$2~~$3")
		s = unescapeSlack(s)
		if afterBlock {
			// The block ended the line.
			s = strings.TrimPrefix(strings.TrimLeft(s, " \t"), "\n")
		}
		afterBlock = false
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			if i > 0 {
				open = true
				endLine()
			}
			if p != "" || i > 0 {
				cur, open = cur+p, true
			}
		}
	}
	endLine()
	return joinMarkdown(lines)
}

// mdLine is a line of converted text; code lines belong to a code block.
type mdLine struct {
	text string
	code bool
}

// slackBullet matches a bullet that Slack's editor writes at the start of
// a list item.
var slackBullet = regexp.MustCompile(`^(\s*)[•◦▪▫‣⁃]\s+`)

// joinMarkdown applies Slack's line-level markup to the converted lines:
// "> " quotes one line (a blank line then ends the quote, which Markdown
// would otherwise continue), ">>> " quotes the rest of the message, and
// bullets become list items. A rest that holds a code block is quoted by a
// quote fence rather than by "> " on each line: a code fence after ">"
// is text in the reference's Markdown (its fences open at a line's first
// column), and inside a quote fence it opens a block.
func joinMarkdown(lines []mdLine) string {
	var out []string
	quoteRest, fenced := false, ""
	for i, l := range lines {
		text := l.text
		if !l.code && !quoteRest {
			if rest, ok := strings.CutPrefix(text, ">>>"); ok {
				quoteRest, text = true, strings.TrimLeft(rest, " ")
				if fenced = quoteFence(lines[i:]); fenced != "" {
					out = append(out, fenced+"quote")
				}
			} else if m := slackBullet.FindStringSubmatch(text); m != nil {
				text = m[1] + "- " + text[len(m[0]):]
			}
		}
		if quoteRest {
			if fenced == "" {
				text = strings.TrimRight("> "+text, " ")
			}
			out = append(out, text)
			continue
		}
		out = append(out, text)
		if !l.code && strings.HasPrefix(text, ">") && i+1 < len(lines) {
			next := lines[i+1]
			if next.code || (next.text != "" && !strings.HasPrefix(next.text, ">")) {
				out = append(out, "")
			}
		}
	}
	if fenced != "" {
		out = append(out, fenced)
	}
	return strings.Join(out, "\n")
}

// quoteFence returns the fence that quotes lines, the rest of a message,
// when they hold a code block: tildes, more than on any line of tildes
// alone among them, so that only the fence's own closing line closes it;
// "" when they hold none.
func quoteFence(lines []mdLine) string {
	code, longest := false, 2
	for _, l := range lines {
		code = code || l.code
		if t := strings.TrimRight(l.text, " \t"); t != "" && strings.Trim(t, "~") == "" {
			longest = max(longest, len(t))
		}
	}
	if !code {
		return ""
	}
	return strings.Repeat("~", longest+1)
}

// plain converts Slack text to one line of plain text, for topic names:
// references become the names they show.
func (c *slackConverter) plain(text string) string {
	s := slackRef.ReplaceAllStringFunc(text, func(m string) string { return c.reference(m[1:len(m)-1], true) })
	s = unescapeSlack(s)
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// unescapeSlack undoes the only three escapes Slack writes.
func unescapeSlack(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// reference converts the inside of one <...> reference.
func (c *slackConverter) reference(ref string, plain bool) string {
	target, label, _ := strings.Cut(ref, "|")
	switch {
	case strings.HasPrefix(target, "@"):
		if u, ok := c.refs.user(target[1:]); ok {
			if plain {
				return "@" + u.name
			}
			return "@**" + u.name + "|" + strconv.FormatInt(u.id, 10) + "**"
		}
		if !plain {
			c.refs.unresolved(target)
		}
		if label != "" {
			return "@" + strings.TrimPrefix(label, "@")
		}
		return "@" + target[1:]
	case strings.HasPrefix(target, "#"):
		name, ok := c.refs.channelName(target[1:])
		switch {
		case ok && !plain:
			return "#**" + name + "**"
		case ok:
			return "#" + name
		case !plain:
			c.refs.unresolved(target)
		}
		switch {
		case label != "":
			// A channel the export does not have: its name stays
			// visible, as text.
			return "#" + strings.TrimPrefix(label, "#")
		}
		return "#" + target[1:]
	case strings.HasPrefix(target, "!"):
		cmd, _, _ := strings.Cut(target[1:], "^")
		switch cmd {
		case "here", "channel":
			if plain {
				return "@" + cmd
			}
			return "@**channel**"
		case "everyone":
			if plain {
				return "@everyone"
			}
			return "@**everyone**"
		}
		// User groups (<!subteam^S1|@team>) and dates keep their label.
		if label != "" {
			return label
		}
		return "@" + cmd
	}
	if label == "" || label == target || plain {
		if plain && label != "" {
			return label
		}
		return target
	}
	return "[" + escapeLinkText(label) + "](" + target + ")"
}

// escapeLinkText keeps brackets in a link's text from ending it.
func escapeLinkText(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

// codeSegment is a run of text that is or is not code.
type codeSegment struct {
	text string
	code bool
}

// splitCode splits text into code (``` blocks and `spans`) and the rest,
// so that conversions leave code alone.
func splitCode(text string) []codeSegment {
	var out []codeSegment
	for text != "" {
		i := strings.IndexByte(text, '`')
		if i < 0 {
			out = append(out, codeSegment{text: text})
			break
		}
		fence := "`"
		if strings.HasPrefix(text[i:], "```") {
			fence = "```"
		}
		end := strings.Index(text[i+len(fence):], fence)
		if end < 0 {
			out = append(out, codeSegment{text: text})
			break
		}
		end += i + 2*len(fence)
		if i > 0 {
			out = append(out, codeSegment{text: text[:i]})
		}
		out = append(out, codeSegment{text: text[i:end], code: true})
		text = text[end:]
	}
	return out
}
