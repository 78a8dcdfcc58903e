package slackimport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage"
)

// exportedMessage is what the round trip expects of one message of the
// generated export.
type exportedMessage struct {
	folder, ts string
	// sender is the full name the sender gets; to the channel's name, or
	// the participants' names of a direct conversation, sorted and joined
	// with ",".
	sender, to, topic, content string
	// root is the timestamp of the thread's first message, for replies.
	root string
}

// slackDecorations are pieces of Slack markup and what they become.
var slackDecorations = [][2]string{
	{"", ""},
	{" *b*", " **b**"},
	{" ~s~", " ~~s~~"},
	{" <https://e.example/x|link>", " [link](https://e.example/x)"},
	{" a &amp; b &lt;c&gt;", " a & b <c>"},
	{"\n```code```", "\n```\ncode\n```"},
	{"\n&gt; q", "\n> q"},
	{" <!here>", " @**channel**"},
	{" <#C0|alpha>", " #**alpha**"},
}

// roundTripExport generates an export of n messages of every kind the
// import handles in 6 conversations (two public channels, a private one,
// a direct and a group direct conversation, and a folder no list names),
// with timestamps as strings or numbers, and returns it with what each
// message should become.
func roundTripExport(n int) (map[string]any, []exportedMessage) {
	rng := rand.New(rand.NewPCG(22, 7))
	name := func(u int) string { return fmt.Sprintf("User %d", u) }
	var users []obj
	for u := range 4 {
		users = append(users, obj{"id": fmt.Sprintf("U%d", u), "name": fmt.Sprintf("user%d", u), "is_primary_owner": u == 0,
			"profile": obj{"real_name": name(u), "email": fmt.Sprintf("user%d@example.com", u)}})
	}
	all := []string{"U0", "U1", "U2", "U3"}
	type conv struct {
		folder, to string
		members    []int
		channel    bool
	}
	convs := []conv{
		{"alpha", "alpha", []int{0, 1, 2, 3}, true},
		{"beta", "beta", []int{0, 1, 2, 3}, true},
		{"hidden", "hidden", []int{0, 1}, true},
		{"D0", "User 0,User 1", []int{0, 1}, false},
		{"mpdm-user0--user1--user2-1", "User 0,User 1,User 2", []int{0, 1, 2}, false},
		{"orphans", "orphans", []int{0, 1, 2, 3}, true},
	}
	files := map[string]any{
		"users.json": users,
		"channels.json": []obj{{"id": "C0", "name": "alpha", "members": all, "created": 1704067200},
			{"id": "C1", "name": "beta", "members": all, "created": "1704067200"}},
		"groups.json": []obj{{"id": "G0", "name": "hidden", "members": []string{"U0", "U1"}}},
		"dms.json":    []obj{{"id": "D0", "members": []string{"U0", "U1"}}},
		"mpims.json":  []obj{{"id": "G1", "name": "mpdm-user0--user1--user2-1", "members": []string{"U0", "U1", "U2"}}},
	}
	days := map[string][]obj{}
	roots := map[string][]exportedMessage{}
	var want []exportedMessage
	for i := range n {
		c := convs[rng.IntN(len(convs))]
		if i == 0 {
			c = convs[5] // user 0 writes first in the unlisted folder, so is among its members
		}
		at := 1704067200 + int64(i)*600
		ts := fmt.Sprintf("%d.%06d", at, i)
		var stamp any = ts
		if rng.IntN(2) == 0 {
			stamp = json.Number(ts)
		}
		u := c.members[rng.IntN(len(c.members))]
		if i == 0 {
			u = 0
		}
		m := obj{"type": "message", "user": fmt.Sprintf("U%d", u), "ts": stamp}
		e := exportedMessage{folder: c.folder, ts: ts, sender: name(u), to: c.to}
		dec := slackDecorations[rng.IntN(len(slackDecorations))]
		kind := rng.IntN(10)
		if i == 0 {
			kind = 0
		}
		switch {
		case kind == 1 && c.channel: // a thread's first message
			m["text"], m["thread_ts"] = fmt.Sprintf("root %d", i), stamp
			e.content, e.topic = fmt.Sprintf("root %d", i), fmt.Sprintf("root %d", i)
			roots[c.folder] = append(roots[c.folder], e)
		case kind == 2 && c.channel: // a thread with the text of others
			m["text"], m["thread_ts"] = "same topic", stamp
			e.content, e.topic = "same topic", "same topic"
			roots[c.folder] = append(roots[c.folder], e)
		case kind == 3 && len(roots[c.folder]) > 0: // a reply
			root := roots[c.folder][rng.IntN(len(roots[c.folder]))]
			m["text"], m["thread_ts"] = fmt.Sprintf("m%d reply", i), root.ts
			e.content, e.topic, e.root = fmt.Sprintf("m%d reply", i), root.topic, root.ts
		case kind == 3 && !c.channel: // a thread reply in a direct conversation
			m["text"], m["thread_ts"] = fmt.Sprintf("m%d dm reply", i), "1704067200.000000"
			e.content = fmt.Sprintf("m%d dm reply", i)
		case kind == 4 && c.channel: // an integration
			b := rng.IntN(2)
			delete(m, "user")
			m["subtype"], m["bot_id"], m["username"], m["text"] = "bot_message", fmt.Sprintf("B%d", b), fmt.Sprintf("bot%d", b), fmt.Sprintf("m%d", i)
			e.sender, e.content = fmt.Sprintf("bot%d", b), fmt.Sprintf("m%d", i)
		case kind == 5 && c.channel: // a sender missing from users.json
			g := rng.IntN(3)
			m["user"], m["user_profile"], m["text"] = fmt.Sprintf("UX%d", g), obj{"real_name": fmt.Sprintf("Ghost %d", g)}, fmt.Sprintf("m%d", i)
			e.sender, e.content = fmt.Sprintf("Ghost %d", g), fmt.Sprintf("m%d", i)
		case kind == 6: // a channel event
			m["subtype"], m["text"] = "channel_join", "<@U1> has joined the channel"
			e.content = ""
		case kind == 7: // no sender at all
			delete(m, "user")
			m["text"] = fmt.Sprintf("m%d orphan", i)
			e.content = ""
		case kind == 8: // a file the export does not carry
			m["text"] = fmt.Sprintf("m%d file", i)
			m["files"] = []obj{{"id": fmt.Sprintf("F%d", i), "name": fmt.Sprintf("f%d.txt", i), "url_private": fmt.Sprintf("https://files.example/f%d.txt", i)}}
			e.content = fmt.Sprintf("m%d file\n[f%d.txt](https://files.example/f%d.txt)", i, i, i)
		default:
			m["text"] = fmt.Sprintf("m%d", i) + dec[0]
			e.content = fmt.Sprintf("m%d", i) + dec[1]
		}
		day := c.folder + "/" + time.Unix(at, 0).UTC().Format("2006-01-02") + ".json"
		days[day] = append(days[day], m)
		want = append(want, e)
	}
	for day, ms := range days {
		files[day] = ms
	}
	return files, want
}

// The round trip: every message of a generated export is either returned
// by the API with its converted text, in its conversation and topic, or
// named by the report.
func TestImportSlackRoundTrip(t *testing.T) {
	files, want := roundTripExport(400)
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{JWTSecret: testSecret})
		res, err := importSample(t, svc, files, slackimport.Options{Host: "trip.example.com", BatchSize: 64})
		wantNoErr(t, "import", err)
		type key struct{ folder, ts string }
		skipped := map[key]string{}
		renamed := map[key]string{}
		for _, r := range res.Report {
			switch {
			case r.Action == "skipped" && r.TS != "" && !strings.HasPrefix(r.Kind, "reaction_"):
				skipped[key{r.Channel, r.TS}] = r.Kind
			case r.Kind == "topic_renamed":
				renamed[key{r.Channel, r.TS}] = r.Detail
			}
		}
		owner := loginID(t, svc, "trip.example.com", "user0@example.com")
		got, err := svc.GetMessages(context.Background(), chat.AsUser(owner), chat.GetMessagesRequest{Anchor: ptr("oldest"),
			IncludeAnchor: ptr(true), NumAfter: ptr[int64](5000), Format: chat.MessageFormat{AllowEmptyTopicName: true}})
		wantNoErr(t, "GetMessages", err)
		byTime := map[int64]chat.MessageView{}
		for _, m := range got.Messages {
			byTime[m.Timestamp] = m
		}
		imported, missing := 0, 0
		for _, e := range want {
			var at int64
			fmt.Sscanf(e.ts, "%d.", &at)
			m, found := byTime[at]
			if kind, ok := skipped[key{e.folder, e.ts}]; ok {
				if found {
					t.Errorf("%s %s: reported %s, but imported as %q", e.folder, e.ts, kind, m.Content)
				}
				missing++
				continue
			}
			if !found {
				t.Errorf("%s %s (%q): neither imported nor reported", e.folder, e.ts, e.content)
				continue
			}
			imported++
			topic := e.topic
			root := e.ts
			if e.root != "" {
				root = e.root
			}
			if name, ok := renamed[key{e.folder, root}]; ok {
				topic = name
			}
			to, ok := m.DisplayRecipient.(string)
			if !ok {
				var names []string
				for _, r := range m.DisplayRecipient.([]chat.DirectRecipient) {
					names = append(names, r.FullName)
				}
				slices.Sort(names)
				to = strings.Join(names, ",")
			}
			if m.SenderFullName != e.sender || to != e.to || m.Subject != topic || m.Content != e.content {
				t.Errorf("%s %s: got %s > %s > %s: %q, want %s > %s > %s: %q", e.folder, e.ts,
					m.SenderFullName, to, m.Subject, m.Content, e.sender, e.to, topic, e.content)
			}
		}
		if imported != len(got.Messages) || imported != res.Messages || imported+missing != len(want) {
			t.Errorf("%d imported of %d, %d reported; the API has %d, the result counts %d",
				imported, len(want), missing, len(got.Messages), res.Messages)
		}
		if len(renamed) == 0 || missing == 0 || res.Altered["direct_thread_flattened"].Count == 0 {
			t.Errorf("the generated export lacks a kind: %d renamed topics, %d skipped, %v", len(renamed), missing, res.Altered)
		}
	})
}
