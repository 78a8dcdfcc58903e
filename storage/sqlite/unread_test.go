package sqlite

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestSplitStrings checks the reading of json_group_array's strings
// against encoding/json: plain, empty, escaped and non-ASCII strings,
// quotes and backslashes in every position, and malformed lists.
func TestSplitStrings(t *testing.T) {
	for _, want := range [][]string{{}, {""}, {"a"}, {"lunch", "Lunch", ""}, {`"`, `\`, `\"`, `a\`, `"a"`, "\\\\\"x"},
		{"tab\there", "line\nbreak", "\x00\x1f", "ünïcödé ✓", "😀 <b>&amp;</b>", "\u2028"}} {
		b, _ := json.Marshal(want)
		got, err := splitStrings(string(b), len(want))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %q, %v", b, got, err)
		}
	}
	for _, bad := range []string{``, `[`, `]`, `["a"`, `["a",]`, `["a" ,"b"]`, `["a"]x`, `[a]`, `["a\"]`, `["a","b","c"]`, `["a","b"]x`, `["a","b"`, `["a"\\,"b"]`} {
		if got, err := splitStrings(bad, 2); err == nil {
			t.Errorf("%s: %q, want an error", bad, got)
		}
	}
}
