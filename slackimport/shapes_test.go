package slackimport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
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
	if f, ok := files["__uploads/F1/report.txt"]; ok {
		files["general/attachments/F1-report.txt"] = f
		delete(files, "__uploads/F1/report.txt")
	}
	files["general/canvas_in_the_conversation.json"] = `{"title": "not messages"}`
	files["general/2024-01-03.json"] = "null"
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
		// The canvas is the one difference, and is reported.
		canvas := slackimport.ReportItem{Kind: "unread_file", Action: "skipped",
			Reason:  "JSON file in a conversation folder that is not a day file (YYYY-MM-DD.json)",
			Channel: "general", Detail: "canvas_in_the_conversation.json"}
		want.Skipped["unread_file"] = slackimport.KindCount{Count: 1, Reason: canvas.Reason}
		want.Report = append([]slackimport.ReportItem{canvas}, want.Report...)
		diff(t, "result", got, want)
	})
}

// An export without an active owner or administrator needs the owner
// named; the named user becomes owner, whatever the export's roles.
func TestImportSlackOwner(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{JWTSecret: testSecret})
		ownerless := sampleExport()
		ownerless["users.json"] = []obj{
			{"id": "U1", "name": "alice", "is_admin": true, "deleted": true, "profile": obj{"real_name": "Alice Archer", "email": "alice@example.com"}},
			{"id": "U2", "name": "bob", "profile": obj{"real_name": "Bob Baker", "email": "Bob@Example.com"}},
		}
		_, err := importSample(t, svc, ownerless, slackimport.Options{Host: "acme.example.com"})
		wantCodeMsg(t, "no owner", err, chat.CodeBadRequest, "users.json: no active owner or administrator; "+
			"name the user who becomes owner by their email address with --owner EMAIL (Options.Owner)")
		_, err = importSample(t, svc, ownerless, slackimport.Options{Host: "acme.example.com", Owner: "alice@example.com"})
		wantCodeMsg(t, "deactivated owner", err, chat.CodeBadRequest,
			"No active user of users.json has the address alice@example.com to become owner")

		_, err = importSample(t, svc, ownerless, slackimport.Options{Host: "acme.example.com", Owner: "bob@example.com"})
		wantNoErr(t, "import with an owner", err)
		owners, err := svc.Users(context.Background(), chat.AsUser(loginID(t, svc, "acme.example.com", "bob@example.com")), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		var roles []string
		for _, u := range owners {
			if strings.HasPrefix(u.FullName, "Slack user ") {
				continue // placeholders of the members users.json now lacks
			}
			roles = append(roles, fmt.Sprintf("%s/%v", u.FullName, u.Role))
		}
		diff(t, "roles", roles, []string{fmt.Sprintf("Alice Archer/%v", chat.RoleAdmin), fmt.Sprintf("Bob Baker/%v", chat.RoleOwner)})

		// With owners in the export, the named user becomes one more.
		_, err = importSample(t, svc, sampleExport(), slackimport.Options{Host: "other.example.com", Owner: "bob@example.com"})
		wantNoErr(t, "import with owners and --owner", err)
		bob, err := svc.UserByEmail(context.Background(), chat.AsUser(loginID(t, svc, "other.example.com", "alice@example.com")),
			"bob@example.com", chat.UserQuery{})
		wantNoErr(t, "UserByEmail", err)
		if bob.Role != chat.RoleOwner {
			t.Errorf("bob's role = %v, want owner", bob.Role)
		}
	})
}

// testSecret is the JWT key of the tests that log in to imported
// organizations.
var testSecret = []byte("jwt-secret")

// loginID logs the user with the address in by JWT and returns their ID.
func loginID(t *testing.T, svc *chat.Service, host, email string) int64 {
	t.Helper()
	key, err := svc.FetchAPIKeyJWT(context.Background(), host, jwtFor(t, testSecret, email), true)
	wantNoErr(t, "login of "+email, err)
	return key.User.UserID
}
