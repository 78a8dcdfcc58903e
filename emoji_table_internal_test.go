package chat

import (
	"encoding/json"
	"os"
	"testing"
)

func TestUnicodeEmojiTable(t *testing.T) {
	for name, code := range map[string]string{
		"+1": "1f44d", "thumbsup": "1f44d", "heart": "2764", "octopus": "1f419", "tada": "1f389", "hash": "0023-20e3",
	} {
		if got, ok := UnicodeEmojiCode(name); !ok || got != code {
			t.Errorf("UnicodeEmojiCode(%q) = %q, %v; want %q", name, got, ok, code)
		}
	}
	if name, ok := UnicodeEmojiName("1f44d"); !ok || name != "+1" {
		t.Errorf("UnicodeEmojiName(1f44d) = %q, %v", name, ok)
	}
	if _, ok := UnicodeEmojiName("2764-fe0f"); ok {
		t.Errorf("a code with fe0f is in the table")
	}
	if _, ok := UnicodeEmojiCode("zulip"); ok {
		t.Errorf("zulip is a Unicode emoji name")
	}
}

// TestDatasetOnlyEmojiNames: the names messages leave as text are exactly
// the table's names that the reference's table lacks.
func TestDatasetOnlyEmojiNames(t *testing.T) {
	raw, err := os.ReadFile("../shared/emoji/reference-names.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct{ Aliases []string }
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for name, e := range ref {
		known[name] = true
		for _, a := range e.Aliases {
			known[a] = true
		}
	}
	for name := range unicodeEmojiCodes {
		if datasetOnlyEmojiNames[name] == known[name] {
			t.Errorf("%q: in the reference's table %v, dataset-only %v", name, known[name], datasetOnlyEmojiNames[name])
		}
	}
	for name := range datasetOnlyEmojiNames {
		if _, ok := unicodeEmojiCodes[name]; !ok {
			t.Errorf("dataset-only %q has no code", name)
		}
	}
	if _, ok := referenceEmojiCode("fried_egg"); ok {
		t.Error("a dataset-only name renders")
	}
	if name, ok := referenceEmojiName("1f373"); !ok || name != "cooking" {
		t.Errorf("referenceEmojiName(1f373) = %q, %v", name, ok)
	}
}
