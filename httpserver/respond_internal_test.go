package httpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendValueStrings: strings written without an encoder (plain
// ASCII) and with one are written as encoding/json writes them.
func TestAppendValueStrings(t *testing.T) {
	for _, s := range []string{"", "abc", "11d51ae1-3e25-47c5-b8b7-db65bec9edfa", "<&>", `a"b`, `a\b`, "é", "\x7f", "\x00", "a\nb", "\u2028"} {
		got, err := appendValue(nil, s)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err != nil || enc.Encode(s) != nil || !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte{'\n'})) {
			t.Errorf("%q: %s, %v; want %s", s, got, err, want.Bytes())
		}
	}
}
