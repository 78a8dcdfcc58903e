package chat

import (
	"bytes"
	"html"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// messageMarkdown is the Markdown renderer of message content: the
// renderer of markdown.go (no raw HTML, safe link schemes) plus mentions,
// channel and message links, :emoji: names, and the organization's
// linkifiers.
var messageMarkdown = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(without(parser.DefaultBlockParsers(), parser.NewHTMLBlockParser())...),
		parser.WithInlineParsers(append(without(parser.DefaultInlineParsers(), parser.NewRawHTMLParser()),
			util.Prioritized(referenceParser{}, 50), util.Prioritized(emojiParser{}, 60))...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		parser.WithASTTransformers(util.Prioritized(linkifierTransformer{}, 100)),
	)),
	goldmark.WithExtensions(extension.Strikethrough, extension.Linkify, extension.Table),
	goldmark.WithRendererOptions(ghtml.WithHardWraps(),
		renderer.WithNodeRenderers(util.Prioritized(referenceRenderer{}, 100))),
)

// renderKey is where a render's context lives in goldmark's parser
// context.
var renderKey = parser.NewContextKey()

// renderContext is what one message's rendering reads (the organization's
// users, channels and linkifiers) and what it finds out (mentions, links).
type renderContext struct {
	realmID int64
	// usersByName holds users by folded full name; an ambiguous name maps
	// to nil. usersByID holds them by ID.
	usersByName map[string]*storage.UserRecord
	usersByID   map[int64]*storage.UserRecord
	// channels holds the channels that may be linked, by name key.
	channels   map[string]*storage.Channel
	linkifiers []compiledWithID

	mentioned      map[int64]bool
	streamWildcard bool
	topicWildcard  bool
	hasLink        bool
	hasImage       bool
	hasAttachment  bool
}

type compiledWithID struct {
	c  compiledLinkifier
	id int64
}

// compileLinkifiers compiles the stored linkifiers once per render.
func compileLinkifiers(ls []Linkifier) []compiledWithID {
	out := make([]compiledWithID, 0, len(ls))
	for _, l := range ls {
		if c, ok := compileForUse(l); ok {
			out = append(out, compiledWithID{c, l.ID})
		}
	}
	return out
}

// linkify finds the linkifier matches of text (see Linkify).
func (rc *renderContext) linkify(s string) []LinkMatch {
	var out []LinkMatch
	for _, l := range rc.linkifiers {
		out = l.c.apply(s, l.id, out)
	}
	slices.SortFunc(out, func(a, b LinkMatch) int { return a.Start - b.Start })
	return out
}

// render renders message content to HTML.
func (rc *renderContext) render(src string) string {
	if rc.mentioned == nil {
		rc.mentioned = map[int64]bool{}
	}
	pc := parser.NewContext()
	pc.Set(renderKey, rc)
	var b bytes.Buffer
	if err := messageMarkdown.Convert([]byte(src), &b, parser.WithContext(pc)); err != nil {
		panic(err) // a bytes.Buffer never fails
	}
	return sanitizeLinks(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// sanitizeLinks empties link targets whose scheme a chat client should not
// follow (see renderMarkdown).
func sanitizeLinks(out []byte) string {
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

// kindReference is the AST kind of a resolved mention or channel link.
var kindReference = ast.NewNodeKind("Reference")

// referenceNode is a resolved mention, channel link or message link,
// rendered as the HTML it carries.
type referenceNode struct {
	ast.BaseInline
	html string
}

func (n *referenceNode) Kind() ast.NodeKind { return kindReference }
func (n *referenceNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"html": n.html}, nil)
}

// referenceParser parses @**Full Name**, @**Full Name|id**, @_**…**
// (silent), the wildcards @**all**, @**everyone**, @**channel**,
// @**stream** and @**topic**, and #**channel**, #**channel>topic** and
// #**channel>topic@id**. A reference to nobody known stays text.
type referenceParser struct{}

func (referenceParser) Trigger() []byte { return []byte{'@', '#'} }

func (referenceParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	rc, _ := pc.Get(renderKey).(*renderContext)
	if rc == nil {
		return nil
	}
	line, _ := block.PeekLine()
	s := string(line)
	silent := false
	start := 1
	if s[0] == '@' && strings.HasPrefix(s[1:], "_") {
		silent, start = true, 2
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
		out = rc.mention(name, silent)
	} else if !silent {
		out = rc.channelReference(name)
	}
	if out == "" {
		return nil
	}
	block.Advance(start + 2 + end + 2)
	return &referenceNode{html: out}
}

// mention resolves a user or wildcard mention to its HTML, recording whom
// it mentions; "" when it names nobody.
func (rc *renderContext) mention(name string, silent bool) string {
	class, prefix := "user-mention", "@"
	if silent {
		class, prefix = "user-mention silent", ""
	}
	switch name {
	case "all", "everyone", "channel", "stream":
		if !silent {
			rc.streamWildcard = true
		}
		return `<span class="` + class + ` channel-wildcard-mention" data-user-id="*">` + prefix + name + `</span>`
	case "topic":
		if !silent {
			rc.topicWildcard = true
		}
		c := "topic-mention"
		if silent {
			c += " silent"
		}
		return `<span class="` + c + `">` + prefix + name + `</span>`
	}
	var u *storage.UserRecord
	if i := strings.LastIndexByte(name, '|'); i >= 0 {
		id, err := strconv.ParseInt(name[i+1:], 10, 64)
		if err != nil {
			return ""
		}
		u = rc.usersByID[id]
	} else {
		u = rc.usersByName[strings.ToLower(name)]
	}
	if u == nil {
		return ""
	}
	if !silent {
		rc.mentioned[u.ID] = true
	}
	return `<span class="` + class + `" data-user-id="` + strconv.FormatInt(u.ID, 10) + `">` +
		prefix + html.EscapeString(u.FullName) + `</span>`
}

// channelReference resolves #**channel**, #**channel>topic** and
// #**channel>topic@id** to links; "" when the channel is unknown.
func (rc *renderContext) channelReference(ref string) string {
	name, topic, hasTopic := strings.Cut(ref, ">")
	c := rc.channels[storage.ChannelNameKey(name)]
	if c == nil {
		return ""
	}
	id := strconv.FormatInt(c.ID, 10)
	base := "/#narrow/channel/" + channelSlug(c)
	if !hasTopic {
		return `<a class="stream" data-stream-id="` + id + `" href="` + base + `">#` + html.EscapeString(c.Name) + `</a>`
	}
	if at := strings.LastIndexByte(topic, '@'); at >= 0 {
		if msgID, err := strconv.ParseInt(topic[at+1:], 10, 64); err == nil && msgID > 0 {
			t := topic[:at]
			return `<a class="message-link" href="` + base + "/topic/" + hashComponent(t) + "/near/" +
				strconv.FormatInt(msgID, 10) + `">#` + html.EscapeString(c.Name) + " &gt; " +
				html.EscapeString(topicDisplay(t)) + " @ 💬</a>"
		}
	}
	return `<a class="stream-topic" data-stream-id="` + id + `" href="` + base + "/topic/" + hashComponent(topic) +
		`">#` + html.EscapeString(c.Name) + " &gt; " + html.EscapeString(topicDisplay(topic)) + `</a>`
}

// topicDisplay is a topic as shown in text: the empty topic has its display
// name.
func topicDisplay(t string) string {
	if t == "" {
		return EmptyTopicDisplayName
	}
	return t
}

// channelSlug is the channel's part of a narrow URL: ID, dash, and the
// name with spaces as dashes, hash-encoded.
func channelSlug(c *storage.Channel) string {
	return strconv.FormatInt(c.ID, 10) + "-" + hashComponent(strings.ReplaceAll(c.Name, " ", "-"))
}

// hashComponent encodes a narrow URL component as the reference clients
// do: encodeURIComponent, with . ( ) ' * encoded too, and every '%'
// written '.'.
func hashComponent(s string) string {
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

// linkifierTransformer applies the organization's linkifiers to the text
// outside code, links and references, and notes links, images and
// attachments for the "has" narrow.
type linkifierTransformer struct{}

func (linkifierTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	rc, _ := pc.Get(renderKey).(*renderContext)
	if rc == nil {
		return
	}
	source := reader.Source()
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			rc.noteLink(string(n.Destination))
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			rc.noteLink(string(n.URL(source)))
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			rc.hasImage = true
			rc.noteLink(string(n.Destination))
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *referenceNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, n)
		}
		return ast.WalkContinue, nil
	})
	if len(rc.linkifiers) == 0 {
		return
	}
	for i := 0; i < len(texts); i++ {
		t := texts[i]
		if t.Parent() == nil {
			continue // merged into its predecessor
		}
		// Join the text nodes that continue t in the source, so a pattern
		// is matched across the places where inline parsing split text.
		for !t.SoftLineBreak() && !t.HardLineBreak() {
			next, ok := t.NextSibling().(*ast.Text)
			if !ok || next.Segment.Start != t.Segment.Stop || next.IsRaw() != t.IsRaw() {
				break
			}
			t.Segment = t.Segment.WithStop(next.Segment.Stop)
			t.SetSoftLineBreak(next.SoftLineBreak())
			t.SetHardLineBreak(next.HardLineBreak())
			next.Parent().RemoveChild(next.Parent(), next)
		}
		rc.linkifyText(t, source)
	}
}

// noteLink records a link target for the "has" narrow.
func (rc *renderContext) noteLink(dest string) {
	rc.hasLink = true
	if strings.HasPrefix(dest, "/user_uploads/") {
		rc.hasAttachment = true
	}
}

// linkifyText replaces the linkifier matches in t with links.
func (rc *renderContext) linkifyText(t *ast.Text, source []byte) {
	value := string(t.Segment.Value(source))
	matches := rc.linkify(value)
	if len(matches) == 0 {
		return
	}
	rc.hasLink = true
	parent := t.Parent()
	seg := t.Segment
	pos := 0
	for _, m := range matches {
		if m.Start > pos {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+pos, seg.Start+m.Start)))
		}
		link := ast.NewLink()
		link.Destination = []byte(m.URL)
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(seg.Start+m.Start, seg.Start+m.End)))
		parent.InsertBefore(parent, t, link)
		pos = m.End
	}
	if pos < len(value) {
		rest := ast.NewTextSegment(text.NewSegment(seg.Start+pos, seg.Stop))
		rest.SetSoftLineBreak(t.SoftLineBreak())
		rest.SetHardLineBreak(t.HardLineBreak())
		parent.InsertBefore(parent, t, rest)
	} else if t.SoftLineBreak() || t.HardLineBreak() {
		br := ast.NewTextSegment(text.NewSegment(seg.Stop, seg.Stop))
		br.SetSoftLineBreak(t.SoftLineBreak())
		br.SetHardLineBreak(t.HardLineBreak())
		parent.InsertBefore(parent, t, br)
	}
	parent.RemoveChild(parent, t)
}

// newRenderContext loads what rendering content needs: the users and
// channels only when the content may mention them. canLink decides which
// channels may be linked (those the sender can see).
func newRenderContext(tx storage.Tx, realmID int64, content string, canLink func(*storage.Channel) bool) (*renderContext, error) {
	rc := &renderContext{realmID: realmID, mentioned: map[int64]bool{}}
	if strings.Contains(content, "@**") || strings.Contains(content, "@_**") {
		users, err := tx.Users(realmID, nil)
		if err != nil {
			return nil, err
		}
		rc.usersByName = make(map[string]*storage.UserRecord, len(users))
		rc.usersByID = make(map[int64]*storage.UserRecord, len(users))
		for i := range users {
			u := &users[i]
			rc.usersByID[u.ID] = u
			key := strings.ToLower(u.FullName)
			if _, dup := rc.usersByName[key]; dup {
				rc.usersByName[key] = nil
			} else {
				rc.usersByName[key] = u
			}
		}
	}
	if strings.Contains(content, "#**") {
		channels, err := tx.Channels(realmID)
		if err != nil {
			return nil, err
		}
		rc.channels = map[string]*storage.Channel{}
		for i := range channels {
			c := &channels[i]
			if canLink == nil || canLink(c) {
				rc.channels[storage.ChannelNameKey(c.Name)] = c
			}
		}
	}
	ls, err := realmLinkifiers(tx, realmID)
	if err != nil {
		return nil, err
	}
	rc.linkifiers = compileLinkifiers(ls)
	return rc, nil
}

// TopicLink is a linkifier match in a topic, as message objects list them.
type TopicLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// topicLinks returns the linkifier matches of a topic.
func topicLinks(topic string, ls []compiledWithID) []TopicLink {
	out := []TopicLink{}
	if topic == "" || len(ls) == 0 {
		return out
	}
	rc := renderContext{linkifiers: ls}
	for _, m := range rc.linkify(topic) {
		out = append(out, TopicLink{Text: topic[m.Start:m.End], URL: m.URL})
	}
	return out
}
