package chat

import "testing"

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
