package chat

import (
	"regexp"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/teamchat/chat/internal/uritemplate"
)

// compiledLinkifier is a validated linkifier ready to apply.
type compiledLinkifier struct {
	re       *regexp.Regexp // the pattern wrapped by wrapPattern
	actual   int            // index of the group holding the whole match
	template *uritemplate.Template
	groups   []string // the pattern's named groups, by index; "" for unnamed
}

// wrapForUse is wrapPattern for a search over the text preceded by a
// newline, which stands for the start of the text (see apply).
func wrapForUse(pattern string) string {
	return `(?P<` + groupBefore + `>\s|['"\(,:<])(?P<` + groupActual + `>` + pattern + `)(?P<` + groupAfter + `>$|[^\pL\pN])`
}

// LinkMatch is a piece of text that a linkifier turns into a link.
type LinkMatch struct {
	// Start and End are the byte offsets of the linked text.
	Start, End int
	// URL is the link's target, with the group values percent-encoded as
	// UTF-8.
	URL string
	// LinkifierID is the ID of the linkifier that matched.
	LinkifierID int64
}

// Linkify finds the pieces of text that the linkifiers turn into links,
// ordered by position, for rendering messages and topics. Linkifiers apply
// in their order: a piece that an earlier linkifier links is not matched by
// a later one, and pieces never overlap. A match counts only at the start
// of the text or after white space or one of ' " ( , : <, and only when no
// letter or digit follows it. Linkifiers that fail to compile (none are
// stored that way) are skipped.
//
// Each linkifier's search skips a link already made whole rather than
// retrying inside it, and finds overlaps by binary search, so that the
// work grows with the length of the text and the number of linkifiers,
// not with their product by the number of links.
func Linkify(text string, linkifiers []Linkifier) []LinkMatch {
	var out []LinkMatch
	for _, l := range linkifiers {
		c, ok := compileForUse(l)
		if !ok {
			continue
		}
		out = c.apply(text, l.ID, out, nil)
	}
	return out
}

// compileForUse compiles a stored linkifier, or returns the copy compiled
// before from the same pattern and URL template.
func compileForUse(l Linkifier) (compiledLinkifier, bool) {
	key := linkifierKey{l.Pattern, l.URLTemplate}
	if c, ok := linkifierCache.get(key); ok {
		return c.compiled, c.ok
	}
	c := compiledOnce{}
	if t, ok := parseURLTemplate(l.URLTemplate); ok {
		if re, err := regexp.Compile(wrapForUse(l.Pattern)); err == nil {
			c = compiledOnce{compiledLinkifier{re: re, actual: re.SubexpIndex(groupActual), template: t, groups: re.SubexpNames()}, true}
		}
	}
	linkifierCache.put(key, c)
	return c.compiled, c.ok
}

// linkifierCache holds the linkifiers compiled for use. Every send, edit
// and read of messages needs all of its organization's linkifiers
// compiled; compiling them each time (up to MaxLinkifiers regular
// expressions) cost more than the rest of a send, inside its write
// transaction, and slowed every read. A compiled linkifier is never
// changed and a regexp.Regexp may be used concurrently, so one copy
// serves every request of every organization.
var linkifierCache = compileCache{limit: 10 * MaxLinkifiers}

// linkifierKey is what a compiled linkifier depends on.
type linkifierKey struct{ pattern, urlTemplate string }

// compiledOnce is a compilation's outcome: ok is false for a linkifier
// that does not compile, which is skipped.
type compiledOnce struct {
	compiled compiledLinkifier
	ok       bool
}

// compileCache is a map of compiled linkifiers bounded to limit entries:
// when full, it is emptied, so that patterns no longer stored do not stay
// forever. Past limit linkifiers in use, requests compile some of them
// again, as they all did before.
type compileCache struct {
	mu    sync.Mutex
	limit int
	m     map[linkifierKey]compiledOnce
}

func (c *compileCache) get(k linkifierKey) (compiledOnce, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *compileCache) put(k linkifierKey, v compiledOnce) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.limit {
		c.m = make(map[linkifierKey]compiledOnce)
	}
	c.m[k] = v
}

// apply adds to taken, which is ordered by position, the matches of c in
// text that overlap none of taken, and returns it still ordered. With
// room, it stops after the match whose URL takes the last of *room bytes:
// each URL is the whole template, so a short text could otherwise expand
// a long template thousands of times over.
func (c compiledLinkifier) apply(text string, id int64, taken []LinkMatch, room *int) []LinkMatch {
	// The search runs over "\n" + text, with a pattern whose before-group
	// has no ^: the newline stands for the start of the text. So a search
	// can resume anywhere (on the character before the next candidate)
	// without a false start-of-text there.
	s := "\n" + text
	base := 0
	for base < len(s) {
		m := c.re.FindStringSubmatchIndex(s[base:])
		if m == nil {
			break
		}
		matchStart := base + m[0]
		start, end := base+m[2*c.actual], base+m[2*c.actual+1]
		if start == end {
			base = nextRune(s, matchStart)
			continue
		}
		if i, hit := overlapping(taken, start-1, end-1); hit {
			// A match that begins inside a link overlaps it wherever it
			// begins there: resume on the link's last character, as after
			// a link of one's own. One that begins before it may have a
			// shorter neighbour that does not: resume one character on.
			if t := taken[i]; matchStart-1 >= t.Start {
				_, size := utf8.DecodeLastRuneInString(s[:t.End+1])
				base = max(t.End+1-size, nextRune(s, matchStart))
			} else {
				base = nextRune(s, matchStart)
			}
			continue
		}
		values := map[string]string{}
		for i, name := range c.groups {
			if name == "" || name == groupBefore || name == groupActual || name == groupAfter || m[2*i] < 0 {
				continue
			}
			values[name] = s[base+m[2*i] : base+m[2*i+1]]
		}
		match := LinkMatch{Start: start - 1, End: end - 1, URL: c.template.Expand(values), LinkifierID: id}
		at, _ := slices.BinarySearchFunc(taken, match.Start, func(t LinkMatch, start int) int { return t.Start - start })
		taken = slices.Insert(taken, at, match)
		if room != nil {
			if *room -= len(match.URL); *room < 0 {
				break
			}
		}
		// Resume on the last character of the link, which the next
		// match's before-group may take only if it is a delimiter.
		_, size := utf8.DecodeLastRuneInString(s[:end])
		base = end - size
	}
	return taken
}

// nextRune returns the offset of the character after the one at i.
func nextRune(s string, i int) int {
	_, size := utf8.DecodeRuneInString(s[i:])
	return i + max(size, 1)
}

// overlapping finds, by binary search in taken (ordered by position, no
// two overlapping), a link that overlaps [start, end): the first one that
// ends after start, when it begins before end.
func overlapping(taken []LinkMatch, start, end int) (int, bool) {
	i, _ := slices.BinarySearchFunc(taken, start, func(t LinkMatch, start int) int {
		if t.End <= start {
			return -1
		}
		return 1
	})
	return i, i < len(taken) && taken[i].Start < end
}
