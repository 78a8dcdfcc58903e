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
// sample: channels' "created" as strings, message timestamps and thread
// timestamps as JSON numbers, the carried file in slackdump's
// attachments folder, a canvas and an empty day (null) in conversation
// folders, and every file inside one top-level folder.
func realWorldShape(t *testing.T, files map[string]any) map[string]any {
	t.Helper()
	created := regexp.MustCompile(`"created":(\d+)`)
	ts := regexp.MustCompile(`"(ts|thread_ts)":"(\d+\.\d+)"`)
	out := map[string]any{}
	files["general/attachments/F1-report.txt"] = files["__uploads/F1/report.txt"]
	delete(files, "__uploads/F1/report.txt")
	files["general/canvas_in_the_conversation.json"] = `{"title": "not messages"}`
	files["random/2024-01-03.json"] = "null"
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
		data = ts.ReplaceAll(data, []byte(`"$1":$2`))
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
