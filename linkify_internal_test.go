package chat

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// linkifyNaive is the matcher as it was first written: every retry one
// character on, every overlap checked against every link. It is the
// specification Linkify is checked against.
func linkifyNaive(text string, linkifiers []Linkifier) []LinkMatch {
	var out []LinkMatch
	for _, l := range linkifiers {
		c, ok := compileForUse(l)
		if !ok {
			continue
		}
		s := "\n" + text
		base := 0
		for base < len(s) {
			m := c.re.FindStringSubmatchIndex(s[base:])
			if m == nil {
				break
			}
			matchStart := base + m[0]
			start, end := base+m[2*c.actual], base+m[2*c.actual+1]
			overlap := false
			for _, t := range out {
				if start-1 < t.End && t.Start < end-1 {
					overlap = true
				}
			}
			if start == end || overlap {
				base = nextRune(s, matchStart)
				continue
			}
			values := map[string]string{}
			for i, name := range c.groups {
				if name == "" || name == groupBefore || name == groupActual || name == groupAfter || m[2*i] < 0 {
					continue
				}
				values[name] = s[base+m[2*i] : base+m[2*i+1]]
			}
			out = append(out, LinkMatch{Start: start - 1, End: end - 1, URL: c.template.Expand(values), LinkifierID: l.ID})
			_, size := utf8.DecodeLastRuneInString(s[:end])
			base = end - size
		}
	}
	slices.SortFunc(out, func(a, b LinkMatch) int { return a.Start - b.Start })
	return out
}

// matcherPatterns are patterns whose matches overlap in many ways.
var matcherPatterns = []string{`#(?P<id>[0-9]+)`, `(?P<w>[a-z]+)`, `(?P<w>[a-z]+ [a-z]+)`, `(?P<x>.+)`,
	`(?P<x>[a-z]*#[0-9]*)`, `(?P<n>[0-9]+)x?`, `(?P<u>ü+)`, `(?P<a>a)(?P<b>b)?`}

// FuzzLinkifyMatcher checks Linkify against linkifyNaive: the same links,
// in the same order, for any text and any choice of linkifiers.
func FuzzLinkifyMatcher(f *testing.F) {
	f.Add("see #42 and #7! abc def #9x", uint8(0b111))
	f.Add("aaa bbb ccc, :ab (ab) ü üü #1", uint8(0xff))
	f.Add("", uint8(1))
	f.Fuzz(func(t *testing.T, text string, choice uint8) {
		var ls []Linkifier
		for i, p := range matcherPatterns {
			if choice&(1<<i) != 0 {
				ls = append(ls, Linkifier{ID: int64(i + 1), Pattern: p, URLTemplate: "https://example.org/{+x}"})
			}
		}
		got, want := Linkify(text, ls), linkifyNaive(text, ls)
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Linkify(%q) = %v, want %v", text, got, want)
		}
	})
}

// TestLinkifyMatchesNaive runs the comparison on random texts over the
// characters the patterns care about.
func TestLinkifyMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", " ", "#", "1", "2", ",", ":", "(", "ü", "x", "\n"}
	for n := range 300 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		var ls []Linkifier
		for i, p := range matcherPatterns {
			if r.IntN(2) == 0 {
				ls = append(ls, Linkifier{ID: int64(i + 1), Pattern: p, URLTemplate: "https://example.org/"})
			}
		}
		r.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		got, want := Linkify(b.String(), ls), linkifyNaive(b.String(), ls)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("case %d: Linkify(%q) = %v, want %v", n, b.String(), got, want)
		}
	}
}

// BenchmarkLinkifyLength measures the matcher per character with 50
// broad linkifiers, at 1 000 and 10 000 characters; the time per
// character should stay flat (compare the two as a ratio).
func BenchmarkLinkifyLength(b *testing.B) {
	var ls []Linkifier
	for i := range 50 {
		ls = append(ls, Linkifier{ID: int64(i + 1), Pattern: fmt.Sprintf(`(?P<w>[a-z]+%d?)`, i), URLTemplate: "https://example.org/{w}"})
	}
	for _, n := range []int{1000, 10000} {
		text := strings.Repeat("word ", n/5)
		b.Run(fmt.Sprintf("chars=%d", n), func(b *testing.B) {
			for b.Loop() {
				Linkify(text, ls)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/char")
		})
	}
}

// TestLinkifierCompiledOnce checks that a linkifier is compiled once for
// every request that uses it, that one that does not compile is skipped
// every time, and that the cache of compiled linkifiers stays within its
// limit.
func TestLinkifierCompiledOnce(t *testing.T) {
	l := Linkifier{ID: 1, Pattern: `soak-(?P<id>[0-9]+)`, URLTemplate: "https://example.com/{id}"}
	a, ok := compileForUse(l)
	if !ok {
		t.Fatal("the linkifier did not compile")
	}
	b, _ := compileForUse(l)
	if a.re != b.re {
		t.Error("the second use compiled the linkifier again")
	}
	other, ok := compileForUse(Linkifier{ID: 1, Pattern: l.Pattern, URLTemplate: "https://example.org/{id}"})
	if !ok || other.re == a.re || other.template == a.template {
		t.Error("a linkifier with another URL template shares the first one's compilation")
	}
	if got := Linkify("see soak-12", []Linkifier{l}); len(got) != 1 || got[0].URL != "https://example.com/12" {
		t.Errorf("Linkify with the cached linkifier = %+v", got)
	}
	bad := Linkifier{ID: 2, Pattern: `(?P<id>[0-9]+)`, URLTemplate: "https://example.com/{id"}
	for range 2 {
		if _, ok := compileForUse(bad); ok {
			t.Error("a linkifier with a malformed URL template compiled")
		}
	}

	c := compileCache{limit: 3}
	for i := range 10 {
		c.put(linkifierKey{pattern: fmt.Sprint(i)}, compiledOnce{})
		if len(c.m) > c.limit {
			t.Fatalf("after %d entries the cache holds %d, over its limit of %d", i+1, len(c.m), c.limit)
		}
	}
	if _, ok := c.get(linkifierKey{pattern: "9"}); !ok {
		t.Error("the newest entry is not in the cache")
	}
}
