package storage

import (
	"strings"
	"unicode"
)

// SearchWords splits a search query into the words every match must
// contain: runs of letters and digits, lower-cased. Backends match whole
// words of a message's topic and content (its Markdown source).
// Backends may also cut a whole message with it, so duplicates are found
// with a map rather than by scanning the words so far.
func SearchWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, SeparatesWords) {
		w = strings.ToLower(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// SeparatesWords reports whether r separates the words of a search: any
// rune but a letter or a number.
func SeparatesWords(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// SearchMatches reports whether a message's topic or content contains
// every word, as whole words without regard to case; it is the reference
// for backends' full-text search.
func SearchMatches(words []string, m *MessageRecord) bool {
	if len(words) == 0 {
		return true
	}
	have := map[string]bool{}
	for _, text := range []string{m.Topic, m.Content} {
		for _, w := range strings.FieldsFunc(text, SeparatesWords) {
			have[strings.ToLower(w)] = true
		}
	}
	for _, w := range words {
		if !have[w] {
			return false
		}
	}
	return true
}
