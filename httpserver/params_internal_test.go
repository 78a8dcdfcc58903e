package httpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONScalar: the decoder-free path gives what the decoder gives, for
// the integers and booleans clients send, and leaves everything else to
// the decoder (and its errors).
func TestJSONScalar(t *testing.T) {
	fast := []string{"0", "-0", "7", "-12", "1234567890", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "123456789012345678901234567890", "true", "false"}
	slow := []string{"", "-", "--1", "05", "-05", "00", "+5", " 5", "5 ", "1e3", "1.0", "1-", "0x10",
		"True", "FALSE", "null", `"5"`, "[5]", "٣"}
	for _, raw := range fast {
		got, ok := jsonScalar(raw)
		if !ok {
			t.Errorf("%q: left to the decoder", raw)
			continue
		}
		want, err := decodeStrictJSON(raw)
		if err != nil {
			t.Errorf("%q: the decoder refuses it (%v), the fast path took it", raw, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-decoder +fast path):\n%s", raw, diff)
		}
	}
	for _, raw := range slow {
		if v, ok := jsonScalar(raw); ok {
			t.Errorf("%q: taken as %#v, should be left to the decoder", raw, v)
		}
	}
}
