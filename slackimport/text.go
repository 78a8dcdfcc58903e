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
}

// slackConverter turns Slack's message format ("mrkdwn") into our
// Markdown: references in angle brackets become mentions, channel links
// and Markdown links; *bold* and ~strike~ take our syntax; code is left
// as it is.
type slackConverter struct{ refs slackRefs }

// slackRef matches one reference in angle brackets: <@U1>, <#C1|name>,
// <!here>, <https://x|text>.
var slackRef = regexp.MustCompile(`<([^<>\s][^<>]*)>`)

// slackBold and slackStrike match Slack's emphasis between word
// boundaries, as Slack reads it: the markers hug non-space text.
var (
	slackBold   = regexp.MustCompile(`(^|[\s(\[{>"'])\*([^\s*](?:[^*\n]*[^\s*])?)\*($|[\s)\]}.,!?:;"'])`)
	slackStrike = regexp.MustCompile(`(^|[\s(\[{>"'])~([^\s~](?:[^~\n]*[^\s~])?)~($|[\s)\]}.,!?:;"'])`)
)

// markdown converts Slack text to our Markdown.
func (c *slackConverter) markdown(text string) string {
	var b strings.Builder
	for _, seg := range splitCode(text) {
		if seg.code {
			// Code keeps its characters; Slack escapes &, < and > there too.
			b.WriteString(html.UnescapeString(seg.text))
			continue
		}
		s := slackRef.ReplaceAllStringFunc(seg.text, func(m string) string { return c.reference(m[1:len(m)-1], false) })
		s = slackBold.ReplaceAllString(s, "$1**$2**$3")
		s = slackStrike.ReplaceAllString(s, "$1~~$2~~$3")
		b.WriteString(unescapeSlack(s))
	}
	return b.String()
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
		if label != "" {
			return "@" + strings.TrimPrefix(label, "@")
		}
		return "@" + target[1:]
	case strings.HasPrefix(target, "#"):
		name, ok := c.refs.channelName(target[1:])
		if !ok {
			name = label
		}
		if name == "" {
			return "#" + target[1:]
		}
		if plain {
			return "#" + name
		}
		return "#**" + name + "**"
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
