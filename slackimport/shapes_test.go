package slackimport_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage"
)

// realWorldShape rewrites an export the way real exports differ from the
// sample: channels' "created" as strings, message timestamps as JSON
// numbers, and every file inside one top-level folder.
func realWorldShape(t *testing.T, files map[string]any) map[string]any {
	t.Helper()
	created := regexp.MustCompile(`"created":(\d+)`)
	ts := regexp.MustCompile(`"ts":"(\d+\.\d+)"`)
	out := map[string]any{}
	for name, v := range files {
		var data []byte
		switch v := v.(type) {
		case string:
			data = []byte(v)
		case []byte:
			data = v
		default:
			var err error
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		data = created.ReplaceAll(data, []byte(`"created":"$1"`))
		data = ts.ReplaceAll(data, []byte(`"ts":$1`))
		out["slack-export/"+name] = data
	}
	return out
}

func TestImportSlackRealWorldShapes(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		want, err := importSample(t, svc, sampleExport(), slackimport.Options{Name: "Acme", Host: "acme.example.com"})
		wantNoErr(t, "ImportSlack of the sample", err)
		got, err := importSample(t, svc, realWorldShape(t, sampleExport()), slackimport.Options{Name: "Acme", Host: "other.example.com"})
		wantNoErr(t, "ImportSlack of the real-world shape", err)
		want.RealmID, want.RealmURL = got.RealmID, "http://other.example.com"
		diff(t, "result", got, want)
	})
}
