package storage_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/teamchat/chat/storage"
)

// TestParseGroupSettingForms checks the forms ParseGroupSetting reads
// without the JSON decoder (those MarshalJSON writes): a group ID, and an
// object that gives what the decoder gives for the same object spaced
// out, which the decoder alone reads. Near misses keep the decoder's
// answers.
func TestParseGroupSettingForms(t *testing.T) {
	for text, want := range map[string]int64{`0`: 0, `7`: 7, `123456789012345678`: 123456789012345678} {
		got, err := storage.ParseGroupSetting("v", []byte(text))
		if err != nil || !reflect.DeepEqual(got, storage.GroupSetting{GroupID: want}) {
			t.Errorf("%s: %+v, %v", text, got, err)
		}
	}
	for _, text := range []string{`{"direct_members":[],"direct_subgroups":[]}`,
		`{"direct_members":[3,1,3],"direct_subgroups":[5]}`, `{"direct_members":[-1],"direct_subgroups":[0,0]}`} {
		spaced := strings.NewReplacer(`[`, `[ `, `,`, ` , `, `:`, ` : `, `{`, `{ `).Replace(text)
		fast, err := storage.ParseGroupSetting("v", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		slow, err := storage.ParseGroupSetting("v", []byte(spaced))
		if err != nil {
			t.Fatalf("%s: %v", spaced, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s gives %+v, spaced out %+v", text, fast, slow)
		}
	}
	for text, want := range map[string]string{
		`007`: "", `5 6`: "", `1e3`: "v is not an integer or a dict",
		`{"direct_members":[01],"direct_subgroups":[]}`:       "v is not valid JSON",
		`{"direct_members":[1,],"direct_subgroups":[]}`:       "v is not valid JSON",
		`{"direct_members":[1],"direct_subgroups":[2]}x`:      "v is not valid JSON",
		`{"direct_members":[1],"direct_subgroups":[2],"x":1}`: `Argument "x" at v is unexpected`,
	} {
		got := ""
		if _, err := storage.ParseGroupSetting("v", []byte(text)); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: error %q, want %q", text, got, want)
		}
	}
}
