package markdown

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"
)

// Web links in message text are found as the reference finds them, which
// differs from CommonMark's autolinks and goldmark's Linkify: a bare domain
// is a link when it ends in a top-level domain ("example.com", "ucl.ac.uk",
// but not "readme.md"), a link starts only after whitespace or one of
// '"(,:< (so "javascript:foo.com" links foo.com and "x*foo.com" nothing),
// it ends before trailing punctuation that whitespace or the end follows,
// and its path may hold parentheses nested up to seven deep.

// linkStartAfter are the characters besides whitespace that a web link may
// follow.
const linkStartAfter = `'"(,:<`

// linkTrailing are the characters that may stand between a web link and the
// whitespace (or end) after it without being part of it.
const linkTrailing = `!:;?),.'">`

// maxLinkParens is how deep parentheses in a link's path may nest.
const maxLinkParens = 7

// fileExtensionTLDs are top-level domains that are far more often file
// extensions ("views.py", "notes.md"), so never end a bare domain.
var fileExtensionTLDs = map[string]bool{"java": true, "md": true, "mov": true, "py": true, "zip": true}

// webLinks finds the web links and e-mail addresses in the text
// src[start:stop], judging their boundaries by the characters around it in
// src: a text that an emphasis or a code span ends or begins is not
// separated from it by whitespace. Offsets are relative to start.
func webLinks(src []byte, start, stop int) []Link {
	var links []Link
	s := &linkScan{src: src}
	for i := start; i < stop; {
		if mayStartLink(src, i) {
			if end, href := s.webLinkAt(i, stop); end > i {
				links = append(links, Link{Start: i - start, End: end - start, URL: href})
				i = end
				continue
			}
		}
		_, size := utf8.DecodeRune(src[i:stop])
		i += size
	}
	return links
}

// mayStartLink reports whether a web link may start at src[i].
func mayStartLink(src []byte, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(src[:i])
	return unicode.IsSpace(r) || strings.ContainsRune(linkStartAfter, r)
}

// linkScan is the search for web links in one message's source.
type linkScan struct {
	src []byte
	// The last run of trailing punctuation that mayEndLink looked at:
	// every position in [trailFrom, trailTo) has the same answer, so that
	// long runs of dots or colons are read once.
	trailFrom, trailTo int
	trailEnds          bool
}

// mayEndLink reports whether a web link may end at src[i]: what follows is
// trailing punctuation, then whitespace or the end of the message.
func (s *linkScan) mayEndLink(i int) bool {
	if i >= s.trailFrom && i < s.trailTo {
		return s.trailEnds
	}
	k := i
	for k < len(s.src) && strings.IndexByte(linkTrailing, s.src[k]) >= 0 {
		k++
	}
	ends := k == len(s.src)
	if !ends {
		r, _ := utf8.DecodeRune(s.src[k:])
		ends = unicode.IsSpace(r)
	}
	s.trailFrom, s.trailTo, s.trailEnds = i, k, ends
	return ends
}

// isWordRune is a character of a word, as the reference's \w: a letter, a
// number or the underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// runOf returns the end of the run of characters from i (before stop) that
// keep answers true for.
func runOf(src []byte, i, stop int, keep func(rune) bool) int {
	for i < stop {
		r, size := utf8.DecodeRune(src[i:stop])
		if !keep(r) {
			break
		}
		i += size
	}
	return i
}

// webLinkAt matches a web link, an e-mail address or a bitcoin address
// starting at src[i] and ending by stop: it returns the end of the match
// and the link's target, or i when nothing matches.
func (s *linkScan) webLinkAt(i, stop int) (int, string) {
	src := s.src
	if end := s.schemeLinkAt(i, stop); end > i {
		return end, string(src[i:end])
	}
	if end := s.domainLinkAt(i, stop); end > i {
		return end, "http://" + string(src[i:end])
	}
	if end := s.emailAt(i, stop); end > i {
		return end, "mailto:" + string(src[i:end])
	}
	if end := s.bitcoinAt(i, stop); end > i {
		return end, string(src[i:end])
	}
	return i, ""
}

// schemeLinkAt matches http:// and https:// links: any host characters,
// ending as early as the link may end, or followed by a path.
func (s *linkScan) schemeLinkAt(i, stop int) int {
	src := s.src
	rest := src[i:stop]
	var hostStart int
	switch {
	case hasPrefix(rest, "http://"):
		hostStart = i + len("http://")
	case hasPrefix(rest, "https://"):
		hostStart = i + len("https://")
	default:
		return i
	}
	hostEnd := runOf(src, hostStart, stop, func(r rune) bool {
		return isWordRune(r) || r == '.' || r == ':' || r == '@' || r == '-'
	})
	for j := hostStart; j < hostEnd; {
		_, size := utf8.DecodeRune(src[j:hostEnd])
		j += size
		if s.mayEndLink(j) {
			return j
		}
	}
	if hostEnd > hostStart && hostEnd < stop && src[hostEnd] == '/' {
		if end := s.pathEnd(hostEnd, stop); end > hostEnd {
			return end
		}
	}
	return i
}

// domainLinkAt matches a bare domain that ends in a top-level domain, with
// an optional path.
func (s *linkScan) domainLinkAt(i, stop int) int {
	src := s.src
	runEnd := runOf(src, i, stop, func(r rune) bool { return isWordRune(r) || r == '-' || r == '.' })
	end := runEnd
	for end > i && src[end-1] == '.' {
		end--
	}
	domain := src[i:end]
	lastDot := bytes.LastIndexByte(domain, '.')
	if lastDot < 1 || domain[0] == '.' || bytes.Contains(domain, []byte("..")) || !isTLD(string(domain[lastDot+1:])) {
		return i // fewer than two labels, an empty one, or no top-level domain
	}
	if end == runEnd && end < stop && src[end] == '/' {
		if pe := s.pathEnd(end, stop); pe > end {
			return pe
		}
		return i
	}
	if s.mayEndLink(end) {
		return end
	}
	return i
}

// isTLD reports whether label is a top-level domain that may end a bare
// domain.
func isTLD(label string) bool {
	if fileExtensionTLDs[label] {
		return false
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false // the reference's list is lower case, and so is its match
		}
	}
	suffix, icann := publicsuffix.PublicSuffix(label)
	return icann && suffix == label
}

// pathEnd matches a path that starts with the '/' at src[slash]: the
// shortest one after which the link may end, without whitespace or '"', and
// with balanced parentheses at most maxLinkParens deep. It returns slash
// when there is none.
func (s *linkScan) pathEnd(slash, stop int) int {
	src := s.src
	depth := 0
	for j := slash + 1; ; {
		if depth == 0 && s.mayEndLink(j) {
			return j
		}
		if j >= stop {
			return slash
		}
		r, size := utf8.DecodeRune(src[j:stop])
		switch {
		case unicode.IsSpace(r) || r == '"':
			return slash
		case r == '(':
			depth++
			if depth > maxLinkParens {
				return slash
			}
		case r == ')':
			if depth == 0 {
				return slash
			}
			depth--
		}
		j += size
	}
}

// emailAt matches an e-mail address: word characters, dots and hyphens
// around an '@', the domain ending in a dot and word characters.
func (s *linkScan) emailAt(i, stop int) int {
	src := s.src
	domainChar := func(r rune) bool { return isWordRune(r) || r == '.' || r == '-' }
	at := runOf(src, i, stop, domainChar)
	if at == i || at >= stop || src[at] != '@' {
		return i
	}
	end := runOf(src, at+1, stop, domainChar)
	for end > at+1 && src[end-1] == '.' {
		end--
	}
	domain := string(src[at+1 : end])
	dot := strings.LastIndexByte(domain, '.')
	if dot < 1 || dot == len(domain)-1 || strings.ContainsRune(domain[dot+1:], '-') {
		return i
	}
	if !s.mayEndLink(end) {
		return i
	}
	return end
}

// bitcoinAt matches a bitcoin: address.
func (s *linkScan) bitcoinAt(i, stop int) int {
	src := s.src
	const prefix = "bitcoin:"
	if !hasPrefix(src[i:stop], prefix) {
		return i
	}
	j := i + len(prefix)
	if j >= stop || (src[j] != '1' && src[j] != '3') {
		return i
	}
	end := runOf(src, j+1, stop, func(r rune) bool {
		return r < utf8.RuneSelf && strings.ContainsRune("123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ", r)
	})
	if n := end - (j + 1); n < 25 || n > 34 || !s.mayEndLink(end) {
		return i
	}
	return end
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// allowedSchemes are the URL schemes a link may have, as the reference
// allows them: the web's, ftp, and the schemes HTML safelists for custom
// handlers (file, which the reference also allows, is left out: a chat
// client should not open its reader's own files).
var allowedSchemes = map[string]bool{
	"http": true, "https": true, "ftp": true,
	"bitcoin": true, "geo": true, "im": true, "irc": true, "ircs": true, "magnet": true, "mailto": true,
	"matrix": true, "mms": true, "news": true, "nntp": true, "openpgp4fpr": true, "sip": true, "sms": true,
	"smsto": true, "ssh": true, "tel": true, "urn": true, "webcal": true, "wtai": true, "xmpp": true,
}

// linkTarget returns the target of a Markdown link to dest as the
// reference writes it, or false when the link is not to be a link (its
// scheme is not one of allowedSchemes): an address without a scheme
// is a mailto: when it has an '@' before any '/', a path when it starts with
// '/', a fragment when it starts with '#', and otherwise gets http://.
func linkTarget(dest string) (string, bool) {
	dest = strings.ReplaceAll(strings.TrimSpace(dest), " ", "%20")
	scheme, rest, ok := splitScheme(dest)
	if !ok {
		switch {
		case strings.HasPrefix(dest, "//"):
			return linkTarget("http:" + dest)
		case strings.ContainsRune(pathOf(dest), '@'):
			return "mailto:" + dest, true
		case strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, "#") && len(dest) > 1:
			return dest, true
		}
		return linkTarget("http://" + dest)
	}
	if !allowedSchemes[scheme] {
		return "", false
	}
	return scheme + ":" + rest, true
}

// splitScheme splits a URL's scheme from the rest, as Python's urlsplit
// does: letters first, then letters, digits, '+', '-' or '.', before the
// first ':'. The scheme comes back in lower case.
func splitScheme(u string) (scheme, rest string, ok bool) {
	colon := strings.IndexByte(u, ':')
	if colon < 1 {
		return "", u, false
	}
	for k, c := range u[:colon] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if k == 0 && !letter || !letter && !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return "", u, false
		}
	}
	return strings.ToLower(u[:colon]), u[colon+1:], true
}

// pathOf returns the path of a URL without scheme or host: what precedes
// its query or fragment.
func pathOf(u string) string {
	if k := strings.IndexAny(u, "?#"); k >= 0 {
		return u[:k]
	}
	return u
}

// topicSplitters separate the pieces of a topic that are searched for a
// web link each, as the reference splits topics.
const topicSplitters = ` !;),'"`

// TopicWebLinks returns the web links of a topic as the reference lists
// them in topic_links: the topic is cut at spaces and at !;),'" and each
// piece gives its first web link, found as in message text; a link written
// without a scheme (a bare domain, an e-mail address) gets https://.
func TopicWebLinks(topic string) []Link {
	var links []Link
	for start := 0; start < len(topic); {
		end := strings.IndexAny(topic[start:], topicSplitters)
		if end < 0 {
			end = len(topic)
		} else {
			end += start
		}
		piece := []byte(topic[start:end])
		if found := webLinks(piece, 0, len(piece)); len(found) > 0 {
			l := found[0]
			text := string(piece[l.Start:l.End])
			if _, _, hasScheme := splitScheme(text); !hasScheme {
				l.URL = "https://" + text
			}
			links = append(links, Link{Start: start + l.Start, End: start + l.End, URL: l.URL})
		}
		start = end + 1
	}
	return links
}
