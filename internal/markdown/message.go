package markdown

import (
	"bytes"
	"errors"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// User is a user that a mention may name.
type User struct {
	ID       int64
	FullName string
	// Deactivated users are mentioned silently.
	Deactivated bool
}

// Group is a user group that a group mention may name.
type Group struct {
	ID int64
	// Name is the group's name as a mention shows it.
	Name string
	// Deactivated groups are mentioned silently.
	Deactivated bool
}

// Channel is a channel that a channel link may name.
type Channel struct {
	ID   int64
	Name string
}

// Link is a linkifier match in a piece of text: bytes [Start, End) link to
// URL.
type Link struct {
	Start, End int
	URL        string
}

// Env resolves the names a message refers to. A nil function resolves
// nothing, so the reference stays text.
type Env struct {
	// UserByName finds a user by full name, compared case-insensitively;
	// a name that several users share finds none.
	UserByName func(name string) (User, bool)
	// UserByID finds a user named as "Full Name|id".
	UserByID func(id int64) (User, bool)
	// Group finds a user group by name, compared case-insensitively.
	Group func(name string) (Group, bool)
	// Channel finds a channel the sender may link, by name.
	Channel func(name string) (Channel, bool)
	// TopicWith gives the ID of a topic's first message that the sender
	// may read, which a topic link names after "/with/" so that it
	// follows the topic when it moves; false leaves it out (a topic with
	// no such message). Nil leaves it out of every link.
	TopicWith func(channelID int64, topic string) (int64, bool)
	// Emoji gives the code of a Unicode emoji name or alias.
	Emoji func(name string) (code string, ok bool)
	// EmojiName gives the canonical name of a Unicode emoji's code.
	EmojiName func(code string) (name string, ok bool)
	// Linkify gives the organization's linkifier matches of a text, in
	// order and without overlaps.
	Linkify func(text string) []Link
	// EmptyTopicName is how the empty topic reads in a topic link.
	EmptyTopicName string
	// RealmURL is the organization's URL, without a trailing slash: links
	// to its "#narrow" views and its uploads are made relative, so that
	// clients open them in place. Empty leaves links as written.
	RealmURL string
	// DefaultCodeLanguage is the language of code blocks whose fence names
	// none (the organization's default_code_block_language), as the
	// reference gives them outside spoilers; "" for none.
	DefaultCodeLanguage string
	// TranslateEmoticons renders emoticons as the emoji they stand for
	// (":)" as :smile:), as the reference does for a sender with the
	// translate_emoticons setting on.
	TranslateEmoticons bool
	// HighlightBudget is the time the code blocks may spend in the lexers;
	// 0 means the package's HighlightBudget.
	HighlightBudget time.Duration
	// TeXBudget is the time the math may spend in KaTeX; 0 means the
	// package's TeXBudget.
	TeXBudget time.Duration
	// Stop, when not nil, is asked before each text is linkified (the
	// rendering's costly part); when it answers true the rendering stops
	// there and its Result is Stopped.
	Stop func() bool
	// MaxHTML bounds the HTML in bytes: a rendering that would be longer
	// stops as soon as it is known (the links' targets and the math are
	// counted as they are made, before any is written), and its Result
	// is TooLong. 0 sets no bound.
	MaxHTML int
}

// Result is a rendered message and what its rendering found out.
type Result struct {
	HTML string
	// Mentioned holds the users mentioned by name (silent mentions
	// excluded).
	Mentioned map[int64]bool
	// MentionedGroups holds the user groups mentioned (silent mentions
	// and deactivated groups excluded).
	MentionedGroups map[int64]bool
	// StreamWildcard and TopicWildcard report non-silent @**all** (and its
	// synonyms) and @**topic**.
	StreamWildcard, TopicWildcard bool
	// HasLink, HasImage and HasAttachment serve the "has" narrows; an
	// attachment is a link to /user_uploads/.
	HasLink, HasImage, HasAttachment bool
	// Stopped says Env.Stop ended the rendering early: the HTML lacks
	// some of its links and must not be stored.
	Stopped bool
	// HighlightCut says the highlighting budget passed before every code
	// block was highlighted: those after it are plain.
	HighlightCut bool
	// TeXCut says the TeX budget passed before all the math was rendered:
	// what is left is its source in tex-error spans.
	TeXCut bool
	// TooLong says the HTML would have been longer than Env.MaxHTML: the
	// rendering stopped and HTML is empty.
	TooLong bool
}

// messages is the renderer of messages and descriptions: goldmark's
// CommonMark made the reference's, with mentions, channel and message
// links, :emoji: names and typed emoji, linkifiers, <time:…>, the quote and
// spoiler fences, and code blocks as the reference writes them.
var messages = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(append(blockParsers(),
			util.Prioritized(fenceContainerParser{}, 690))...),
		// No <url> autolinks and no link reference definitions: the
		// reference has neither ("[x]: url" is text and a web link).
		parser.WithInlineParsers(append(without(inlineParsers(), parser.NewAutoLinkParser()),
			util.Prioritized(referenceParser{}, 50), util.Prioritized(emojiParser{}, 60), util.Prioritized(timeParser{}, 90), util.Prioritized(texParser{}, 90))...),
		parser.WithASTTransformers(util.Prioritized(lineSpaces{}, 40), util.Prioritized(referenceEmphasis{}, 50), util.Prioritized(bulletLists{}, 60), util.Prioritized(listStarts{}, 60), util.Prioritized(looseItems{}, 65),
			util.Prioritized(linkifierTransformer{}, 100), util.Prioritized(texTransformer{}, 140), util.Prioritized(highlightTransformer{}, 150),
			util.Prioritized(spoilerHeaderTransformer{}, 200), util.Prioritized(emoticonTransformer{}, 250), util.Prioritized(unicodeEmojiTransformer{}, 300)),
	)),
	// Web links are found by linkifierTransformer, as the reference finds
	// them, rather than by goldmark's Linkify.
	goldmark.WithExtensions(extension.Table),
	goldmark.WithRendererOptions(ghtml.WithHardWraps(), ghtml.WithWriter(referenceWriter{}),
		renderer.WithNodeRenderers(util.Prioritized(referenceRenderer{}, 100), util.Prioritized(spoilerRenderer{}, 100),
			util.Prioritized(referenceHTML{}, 100), util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500))),
)

// renderKey is where a render's state lives in goldmark's parser context.
var renderKey = parser.NewContextKey()

// render is the state of one message's rendering.
type render struct {
	env *Env
	res Result
	// texSpent is the time the message's math has spent in KaTeX.
	texSpent time.Duration
	// made counts the bytes of the links' targets and the math made so
	// far, against Env.MaxHTML.
	made int
}

// grow counts n more bytes of HTML made ahead of writing, and reports
// whether the rendering is still within Env.MaxHTML; past it the Result is
// TooLong.
func (r *render) grow(n int) bool {
	r.made += n
	if r.env.MaxHTML > 0 && r.made > r.env.MaxHTML {
		r.res.TooLong = true
	}
	return !r.res.TooLong
}

// RenderMessage renders message content to HTML, resolving its references
// through env.
func RenderMessage(src string, env *Env) Result {
	r := &render{env: env, res: Result{Mentioned: map[int64]bool{}, MentionedGroups: map[int64]bool{}}}
	pc := parser.NewContext()
	pc.Set(renderKey, r)
	nested, starts := nestLists(emptyQuotes(normalizeWhitespace(hangingLists(src))))
	pc.Set(listStartsKey, starts)
	b := boundedBuffer{max: env.MaxHTML}
	if err := messages.Convert([]byte(nested), &b, parser.WithContext(pc)); err != nil || r.res.TooLong {
		// Only the bound fails a write; what was written is dropped.
		r.res.TooLong, r.res.HTML = true, ""
		return r.res
	}
	html := bytes.TrimSuffix(b.buf, []byte{'\n'})
	if env.MaxHTML > 0 && len(html) > env.MaxHTML {
		r.res.TooLong = true
		return r.res
	}
	r.res.HTML = string(html)
	return r.res
}

// errTooLong is the write past boundedBuffer's bound.
var errTooLong = errors.New("markdown: longer than Env.MaxHTML")

// boundedBuffer holds the HTML written, and refuses a write that would
// make it longer than max (when max > 0) with errTooLong; the renderer's
// buffered writer then drops every later write, so a rendering past the
// bound costs its walk but no more memory.
type boundedBuffer struct {
	buf []byte
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.max > 0 && len(b.buf)+len(p) > b.max+1 { // +1: the final newline
		return 0, errTooLong
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// stateOf returns the render of a parser context, nil outside
// RenderMessage.
func stateOf(pc parser.Context) *render {
	r, _ := pc.Get(renderKey).(*render)
	return r
}
