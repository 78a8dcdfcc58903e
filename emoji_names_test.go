package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
)

// TestReferenceEmojiNames checks the emoji names of the reference's table:
// its names and aliases are accepted with its codes, its canonical names
// are the ones reported, its codes keep a variation selector where it
// does, and the dataset's names stay aliases where the reference does not
// use them for another emoji.
func TestReferenceEmojiNames(t *testing.T) {
	for _, tc := range []struct{ name, code, canonical string }{
		{"thumbs_up", "1f44d", "+1"}, {"like", "1f44d", "+1"}, {"+1", "1f44d", "+1"},
		{"check", "2705", "check"}, {"working_on_it", "1f6e0", "working_on_it"},
		// The reference's code wins over the dataset's for its names.
		{"smile", "1f642", "smile"}, {"cat", "1f408", "cat"},
		{"man_detective", "1f575-fe0f-200d-2642-fe0f", "man_detective"},
	} {
		code, ok := chat.UnicodeEmojiCode(tc.name)
		if !ok || code != tc.code {
			t.Errorf("UnicodeEmojiCode(%q) = %q, %v; want %q", tc.name, code, ok, tc.code)
		}
		if name, ok := chat.UnicodeEmojiName(tc.code); !ok || name != tc.canonical {
			t.Errorf("UnicodeEmojiName(%q) = %q, %v; want %q", tc.code, name, ok, tc.canonical)
		}
	}
	// The dataset's code of a reference emoji with variation selectors is
	// still named, and a dataset-only name stays an alias.
	if name, ok := chat.UnicodeEmojiName("1f575-200d-2642"); !ok || name != "man_detective" {
		t.Errorf("UnicodeEmojiName(dataset code) = %q, %v", name, ok)
	}
	if code, ok := chat.UnicodeEmojiCode("smiley_cat"); !ok || code != "1f63a" {
		t.Errorf("UnicodeEmojiCode(smiley_cat) = %q, %v", code, ok)
	}
	if _, ok := chat.UnicodeEmojiCode("no_such_emoji"); ok {
		t.Error("an unknown name has a code")
	}
}
