package markdown

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// kindReference is the AST kind of a resolved mention, channel link or
// emoji.
var kindReference = ast.NewNodeKind("Reference")

// referenceNode is a resolved reference, rendered as the HTML it carries.
type referenceNode struct {
	ast.BaseInline
	html string
}

func (n *referenceNode) Kind() ast.NodeKind { return kindReference }
func (n *referenceNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"html": n.html}, nil)
}

// referenceRenderer writes reference nodes.
type referenceRenderer struct{}

func (referenceRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindReference, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(n.(*referenceNode).html)
		}
		return ast.WalkSkipChildren, nil
	})
}

// referenceParser parses @**Full Name**, @**Full Name|id**, @_**…**
// (silent), the wildcards @**all**, @**everyone**, @**channel**,
// @**stream** and @**topic**, the group mentions @*group* and @_*group*,
// and #**channel**, #**channel>topic** and #**channel>topic@id**. A
// reference to nobody known stays text.
type referenceParser struct{}

func (referenceParser) Trigger() []byte { return []byte{'@', '#'} }

func (referenceParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	r := stateOf(pc)
	if r == nil {
		return nil
	}
	line, _ := block.PeekLine()
	s := string(line)
	// A mention in a quote is silent, as in the reference: quoting a
	// message notifies nobody again.
	silent := inQuote(parent)
	start := 1
	if s[0] == '@' && strings.HasPrefix(s[1:], "_") {
		silent, start = true, 2
	}
	if s[0] == '@' && strings.HasPrefix(s[start:], "*") && !strings.HasPrefix(s[start:], "**") {
		return groupMention(r, block, s, start, silent)
	}
	if !strings.HasPrefix(s[start:], "**") {
		return nil
	}
	body := s[start+2:]
	end := strings.Index(body, "**")
	if end <= 0 || strings.ContainsAny(body[:end], "*\n") {
		return nil
	}
	name := body[:end]
	var out string
	if s[0] == '@' {
		out = r.mention(name, silent)
	} else if start == 1 {
		out = r.channelReference(name)
	}
	if out == "" {
		return nil
	}
	block.Advance(start + 2 + end + 2)
	return &referenceNode{html: out}
}

// inQuote reports whether n is inside a block quote (> or ```quote).
func inQuote(n ast.Node) bool {
	for ; n != nil; n = n.Parent() {
		if n.Kind() == ast.KindBlockquote {
			return true
		}
	}
	return false
}

// groupMention parses @*group* (or @_*group*, silent) at the start of s,
// whose name starts after start and the opening star.
func groupMention(r *render, block text.Reader, s string, start int, silent bool) ast.Node {
	body := s[start+1:]
	end := strings.IndexByte(body, '*')
	if end <= 0 || strings.ContainsRune(body[:end], '\n') || r.env.Group == nil {
		return nil
	}
	g, ok := r.env.Group(body[:end])
	if !ok {
		return nil
	}
	silent = silent || g.Deactivated
	class, prefix := "user-group-mention", "@"
	if silent {
		class, prefix = "user-group-mention silent", ""
	} else {
		r.res.MentionedGroups[g.ID] = true
	}
	block.Advance(start + 1 + end + 1)
	return &referenceNode{html: `<span class="` + class + `" data-user-group-id="` + strconv.FormatInt(g.ID, 10) + `">` +
		prefix + escapeText(g.Name) + `</span>`}
}

// mention resolves a user or wildcard mention to its HTML, recording whom
// it mentions; "" when it names nobody.
func (r *render) mention(name string, silent bool) string {
	class, prefix := "user-mention", "@"
	if silent {
		class, prefix = "user-mention silent", ""
	}
	switch name {
	case "all", "everyone", "channel", "stream":
		if !silent {
			r.res.StreamWildcard = true
		}
		return `<span class="` + class + ` channel-wildcard-mention" data-user-id="*">` + prefix + name + `</span>`
	case "topic":
		if !silent {
			r.res.TopicWildcard = true
		}
		c := "topic-mention"
		if silent {
			c += " silent"
		}
		return `<span class="` + c + `">` + prefix + name + `</span>`
	}
	var (
		u  User
		ok bool
	)
	if i := strings.LastIndexByte(name, '|'); i >= 0 {
		id, err := strconv.ParseInt(name[i+1:], 10, 64)
		if err != nil || r.env.UserByID == nil {
			return ""
		}
		u, ok = r.env.UserByID(id)
	} else if r.env.UserByName != nil {
		u, ok = r.env.UserByName(name)
	}
	if !ok {
		return ""
	}
	if u.Deactivated && !silent {
		class, prefix = "user-mention silent", ""
		silent = true
	}
	if !silent {
		r.res.Mentioned[u.ID] = true
	}
	return `<span class="` + class + `" data-user-id="` + strconv.FormatInt(u.ID, 10) + `">` +
		prefix + escapeText(u.FullName) + `</span>`
}

// channelReference resolves #**channel**, #**channel>topic** and
// #**channel>topic@id** to links; "" when the channel is unknown.
func (r *render) channelReference(ref string) string {
	name, topic, hasTopic := strings.Cut(ref, ">")
	if r.env.Channel == nil {
		return ""
	}
	c, ok := r.env.Channel(name)
	if !ok {
		return ""
	}
	id := strconv.FormatInt(c.ID, 10)
	base := "/#narrow/channel/" + ChannelSlug(c.ID, c.Name)
	if !hasTopic {
		return `<a class="stream" data-stream-id="` + id + `" href="` + base + `">#` + escapeText(c.Name) + `</a>`
	}
	if t, msgID, ok := messageLink(topic); ok {
		return `<a class="message-link" href="` + base + "/topic/" + HashComponent(t) + "/near/" +
			strconv.FormatInt(msgID, 10) + `">#` + escapeText(c.Name) + " &gt; " +
			r.topicDisplay(t) + " @ 💬</a>"
	}
	href := base + "/topic/" + HashComponent(topic)
	if r.env.TopicWith != nil {
		if first, ok := r.env.TopicWith(c.ID, topic); ok {
			href += "/with/" + strconv.FormatInt(first, 10)
		}
	}
	return `<a class="stream-topic" data-stream-id="` + id + `" href="` + href + `">#` + escapeText(c.Name) +
		" &gt; " + r.topicDisplay(topic) + `</a>`
}

// topicDisplay is a topic as a link shows it, escaped: the empty topic is
// its display name in emphasis, as the reference writes it.
func (r *render) topicDisplay(t string) string {
	if t == "" {
		return "<em>" + escapeText(r.env.EmptyTopicName) + "</em>"
	}
	return escapeText(t)
}

// ChannelSlug is a channel's part of a narrow URL: ID, dash, and the name
// with spaces as dashes, hash-encoded.
func ChannelSlug(id int64, name string) string {
	return strconv.FormatInt(id, 10) + "-" + HashComponent(strings.ReplaceAll(name, " ", "-"))
}

// HashComponent encodes a narrow URL component as the reference clients
// do: encodeURIComponent, with . ( ) ' * encoded too, and every '%'
// written '.'.
func HashComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_!~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('.')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// messageLink reads the topic part of a channel link that names a message
// (#**channel>topic@id**): the topic and the message's ID.
func messageLink(topic string) (string, int64, bool) {
	at := strings.LastIndexByte(topic, '@')
	if at < 0 {
		return "", 0, false
	}
	id, err := strconv.ParseInt(topic[at+1:], 10, 64)
	if err != nil || id <= 0 {
		return "", 0, false
	}
	return topic[:at], id, true
}

// LinkedTopics calls yield with the channel name and topic of each topic
// link that content may hold (#**channel>topic**), in order, repeats
// included, until yield returns false: the references that the renderer
// reads as topic links where the channel is known, message links
// (#**channel>topic@id**) left out. It does not parse the Markdown, so it
// also yields links in code, which render as text.
func LinkedTopics(content string, yield func(channel, topic string) bool) {
	for rest := content; ; {
		i := strings.Index(rest, "#**")
		if i < 0 {
			return
		}
		rest = rest[i+3:]
		end := strings.Index(rest, "**")
		if end < 0 {
			return
		}
		ref := rest[:end]
		channel, topic, ok := strings.Cut(ref, ">")
		if !ok || channel == "" || strings.ContainsAny(ref, "*\n") {
			continue
		}
		if _, _, isMessage := messageLink(topic); isMessage {
			continue
		}
		if !yield(channel, topic) {
			return
		}
	}
}
