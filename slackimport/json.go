package slackimport

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// slackStamp is a Slack timestamp or creation time. Real exports write
// these as strings ("1700000000.000100", "1451606400") or as JSON numbers
// depending on the exporter and its era; both decode to the same text.
type slackStamp string

// UnmarshalJSON accepts a string, a number or null.
func (s *slackStamp) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = ""
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = slackStamp(v)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*s = slackStamp(n.String())
	}
	return nil
}

// seconds gives the whole seconds of the stamp, 0 when it is absent or
// unreadable.
func (s slackStamp) seconds() int64 {
	whole, _, _ := strings.Cut(strings.TrimSpace(string(s)), ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
