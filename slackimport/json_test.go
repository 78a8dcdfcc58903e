package slackimport

import (
	"encoding/json"
	"testing"
)

func TestSlackStamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want slackStamp
		sec  int64
	}{
		{`"1700000000.000100"`, "1700000000.000100", 1700000000},
		{`1700000000.000100`, "1700000000.000100", 1700000000},
		{`"1451606400"`, "1451606400", 1451606400},
		{`1451606400`, "1451606400", 1451606400},
		{`null`, "", 0},
		{`"soon"`, "soon", 0},
	} {
		var got slackStamp
		if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want || got.seconds() != tc.sec {
			t.Errorf("%s = %q (%d s), want %q (%d s)", tc.in, got, got.seconds(), tc.want, tc.sec)
		}
	}
	var s slackStamp
	if err := json.Unmarshal([]byte(`true`), &s); err == nil {
		t.Errorf("a boolean decoded as %q", s)
	}
}
