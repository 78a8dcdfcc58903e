package chat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// roundTrip writes the events as a process sharing them would (without
// HTML escaping), reads them back, and checks that writing them again
// gives the same bytes.
func roundTrip(t *testing.T, events []chat.Event) []chat.Event {
	t.Helper()
	encode := func(events []chat.Event) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(events); err != nil {
			t.Fatalf("encoding events: %v", err)
		}
		return b.String()
	}
	data := encode(events)
	var got []chat.Event
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		t.Fatalf("decoding events: %v\n%s", err, data)
	}
	if again := encode(got); again != data {
		t.Fatalf("events written again differ:\n got %s\nwant %s", again, data)
	}
	return got
}

// queueVariants lists queues of every kind that changes an event's form:
// each reader (the users, and one who received nothing), the sending
// queue and another, each message format, with and without
// empty_topic_name and bulk_message_deletion, under narrows that match
// some events and not others.
func queueVariants(users []int64, sendingQueue string, narrows [][]chat.NarrowTerm) []chat.QueueInfo {
	var out []chat.QueueInfo
	for _, user := range append(users, 999) {
		for _, id := range []string{sendingQueue, "another-queue"} {
			for format := range 4 {
				for options := range 4 {
					for _, narrow := range narrows {
						out = append(out, chat.QueueInfo{ID: id, UserID: user,
							Format:         chat.MessageFormat{ApplyMarkdown: format&1 != 0, ClientGravatar: format&2 != 0},
							EmptyTopicName: options&1 != 0, BulkMessageDeletion: options&2 != 0, Narrow: narrow})
					}
				}
			}
		}
	}
	return out
}

// eventsOrg makes an organization for the event tests: its owner; Ann,
// whose avatar clients may compute; Hal, whose address is hidden, so his
// avatar URL is always given; a linkifier; and a channel "events" that
// all three are subscribed to (which sends the others the notification
// bot's messages).
func eventsOrg(t *testing.T, svc *chat.Service) (owner, ann, hal, channel int64) {
	t.Helper()
	org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Org", Host: "chat.example.com",
		OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	wantNoErr(t, "CreateOrg", err)
	owner = org.UserID
	provision := func(email, name string, vis chat.EmailVisibility) int64 {
		res, err := svc.ProvisionUser(t.Context(), org.RealmID, chat.NewUser{Email: email, FullName: name, EmailVisibility: vis})
		wantNoErr(t, "ProvisionUser", err)
		return res.UserID
	}
	ann = provision("ann@example.com", "Ann Ämmä", chat.EmailVisibleEveryone)
	hal = provision("hal@example.com", "Hal Hidden", chat.EmailVisibleNobody)
	_, err = svc.AddLinkifier(t.Context(), chat.AsUser(owner), chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`,
		URLTemplate: "https://tracker.example.com/{id}"})
	wantNoErr(t, "AddLinkifier", err)
	_, err = svc.Subscribe(t.Context(), chat.AsUser(owner), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "events"}},
		Principals: &chat.Principals{IDs: []int64{owner, ann, hal}}})
	wantNoErr(t, "Subscribe", err)
	subs, err := svc.Subscriptions(t.Context(), chat.AsUser(owner), false)
	wantNoErr(t, "Subscriptions", err)
	channel = subs[0].StreamID
	return owner, ann, hal, channel
}

// TestPerQueueEventsJSON checks that every event whose form is computed per
// queue, written as JSON and read back (as another process does), gives
// every kind of queue the same bytes as the original, and that the events
// computed alike for everyone travel unchanged.
func TestPerQueueEventsJSON(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc, _ := newService(t, newStore, chat.Config{Events: rec})
		ctx := t.Context()
		owner, ann, hal, channel := eventsOrg(t, svc)
		var err error

		send := func(from int64, req chat.SendMessageRequest) int64 {
			t.Helper()
			req.Client = "test"
			id, err := svc.SendMessage(ctx, chat.AsUser(from), req)
			wantNoErr(t, "SendMessage", err)
			return id
		}
		toChannel := &chat.MessageTo{IDs: []int64{channel}}
		empty, ticket := "", "bug #42 <b>"
		inEmpty := send(ann, chat.SendMessageRequest{Type: "channel", To: toChannel, Topic: &empty,
			Content: "**bold** <i>&amp; @**Hal Hidden** and @**all**", QueueID: "sending-queue", LocalID: "1.5"})
		send(hal, chat.SendMessageRequest{Type: "channel", To: toChannel, Topic: &ticket, Content: "/me fixes #42"})
		oneToOne := send(ann, chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: []int64{hal}},
			Content: "just `us`", QueueID: "sending-queue", LocalID: "2.5"})
		send(hal, chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: []int64{hal}}, Content: "note to self"})
		group := send(owner, chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: []int64{ann, hal}},
			Content: "all *three*"})
		edited := "edited: <b>@**Ann Ämmä|" + fmt.Sprint(ann) + "**"
		wantNoErr(t, "EditMessage", svc.EditMessage(ctx, chat.AsUser(ann), inEmpty, &edited))
		wantNoErr(t, "EditMessage", svc.EditMessage(ctx, chat.AsUser(owner), group, &edited))
		for _, topic := range []*string{&empty, &ticket} {
			wantNoErr(t, "SetTyping", svc.SetTyping(ctx, chat.AsUser(hal), chat.TypingRequest{Type: "channel", Op: "start",
				StreamID: &channel, Topic: topic}))
		}
		wantNoErr(t, "SetTyping", svc.SetTyping(ctx, chat.AsUser(hal), chat.TypingRequest{Op: "stop", To: []int64{ann}}))
		wantNoErr(t, "DeleteMessage", svc.DeleteMessage(ctx, chat.AsUser(ann), oneToOne))
		wantNoErr(t, "DeleteMessage", svc.DeleteMessage(ctx, chat.AsUser(owner), inEmpty))
		send(ann, chat.SendMessageRequest{Type: "channel", To: toChannel, Topic: &ticket, Content: "more"})
		done, err := svc.DeleteTopic(ctx, chat.AsUser(owner), channel, ticket)
		wantNoErr(t, "DeleteTopic", err)
		if !done {
			t.Fatal("DeleteTopic did not finish")
		}

		events := rec.take()
		decoded := roundTrip(t, events)
		if len(decoded) != len(events) {
			t.Fatalf("%d events decoded, want %d", len(decoded), len(events))
		}
		narrows := [][]chat.NarrowTerm{nil,
			{{Operator: "channel", Operand: "EVENTS"}}, {{Operator: "topic", Operand: ticket}},
			{{Operator: "is", Operand: "dm"}}, {{Operator: "sender", Operand: "ann@example.com"}},
			{{Operator: "is", Operand: "mentioned"}}, {{Operator: "is", Operand: "unread"}}}
		queues := queueVariants([]int64{owner, ann, hal}, "sending-queue", narrows)
		kinds := map[string]int{}
		// Each kind's forms must differ between queues, or the
		// comparison proves little: variety is the most forms one of
		// its events had.
		variety := map[string]int{}
		var all strings.Builder
		for i, want := range events {
			got := decoded[i]
			typ, _ := want.Payload["type"].(string)
			if got.RealmID != want.RealmID || got.AllUsers != want.AllUsers || fmt.Sprint(got.UserIDs) != fmt.Sprint(want.UserIDs) {
				t.Errorf("event %d (%s): decoded as realm %d, users %v, all %v; want %d, %v, %v", i, typ,
					got.RealmID, got.UserIDs, got.AllUsers, want.RealmID, want.UserIDs, want.AllUsers)
			}
			if g, w := string(encodeJSON(t, got.Payload)), string(encodeJSON(t, want.Payload)); g != w {
				t.Errorf("event %d (%s): payload\n got %s\nwant %s", i, typ, g, w)
			}
			if (got.PerQueue == nil) != (want.PerQueue == nil) {
				t.Fatalf("event %d (%s): PerQueue %v after decoding, was %v", i, typ, got.PerQueue, want.PerQueue)
			}
			if want.PerQueue == nil {
				continue
			}
			kinds[typ]++
			forms := map[string]bool{}
			for _, q := range queues {
				w, g := joinForms(want.PerQueue.ForQueue(q)), joinForms(got.PerQueue.ForQueue(q))
				if g != w {
					t.Fatalf("event %d (%s) for queue %+v:\n got %s\nwant %s", i, typ, q, g, w)
				}
				forms[w] = true
				all.WriteString(w)
			}
			variety[typ] = max(variety[typ], len(forms))
		}
		for typ, n := range variety {
			if n < 2 {
				t.Errorf("%s events have one form for every queue", typ)
			}
		}
		for _, part := range []string{`"sender_full_name":"` + chat.NotificationBotName, `"local_message_id":"1.5"`,
			`"local_message_id":"2.5"`, `"content":"**bold** <i>&amp;`, `"content_type":"text/html"`,
			`"topic_links":[{"text":"#42","url":"https://tracker.example.com/42"}]`, `"subject":"general chat"`,
			`"subject":""`, `"avatar_url":null`, `"flags":["mentioned","stream_wildcard_mentioned"]`,
			`"message_id":` + fmt.Sprint(inEmpty), `"message_ids":[` + fmt.Sprint(inEmpty) + `]`, `"topic":"general chat"`} {
			if !strings.Contains(all.String(), part) {
				t.Errorf("no queue got %s", part)
			}
		}
		// 7 messages (6 sent, and the notification bot's), 2 edits, 2
		// channel typing notifications, 3 deletions (a topic of two
		// messages in one).
		if kinds["message"] != 7 || kinds["update_message"] != 2 || kinds["typing"] != 2 || kinds["delete_message"] != 3 {
			t.Errorf("events computed per queue, by type: %v", kinds)
		}
	})
}

// TestEventJSONPlainPayloads checks that an event computed alike for every
// queue reaches a hub with the same bytes after a trip through JSON,
// whatever its payload holds, and that its payload's top-level values can
// still be read.
func TestEventJSONPlainPayloads(t *testing.T) {
	type item struct {
		Zeta  int      `json:"zeta"`
		Alpha string   `json:"alpha"`
		List  []string `json:"list"`
	}
	events := []chat.Event{
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{
			"type": "subscription", "op": "add", "subscriptions": []item{{3, "<b>&\u2028", []string{"x"}}},
			"flag": true, "off": false, "none": nil, "n": int64(1) << 60, "f": 1.5, "s": "ü\u2028<>", "empty": map[string]any{},
		}},
		{RealmID: 1, UserIDs: []int64{7}, Payload: map[string]any{
			"type": "typing", "op": "start", "message_type": "stream", "stream_id": 4,
		}},
		{RealmID: 1, AllUsers: true, Payload: map[string]any{"type": "realm", "op": "update"}},
		{RealmID: 1, UserIDs: []int64{}, Payload: map[string]any{"type": "nobody"}},
		// Organization-wide but for some users: 7 gets the first only.
		{RealmID: 1, AllUsers: true, ExceptUserIDs: []int64{3, 9}, Payload: map[string]any{"type": "subscription", "op": "peer_add", "to": "seven"}},
		{RealmID: 1, AllUsers: true, ExceptUserIDs: []int64{7}, Payload: map[string]any{"type": "subscription", "op": "peer_add", "to": "others"}},
	}
	decoded := roundTrip(t, events)
	if decoded[0].Payload["op"] != "add" || decoded[0].Payload["flag"] != true || decoded[0].Payload["none"] != nil ||
		decoded[0].Payload["n"] != json.Number("1152921504606846976") || decoded[1].Payload["message_type"] != "stream" {
		t.Errorf("decoded payload values: %#v, %#v", decoded[0].Payload, decoded[1].Payload)
	}
	if decoded[2].UserIDs != nil || !decoded[2].AllUsers || decoded[3].UserIDs == nil {
		t.Errorf("decoded recipients: %v %v, %v", decoded[2].UserIDs, decoded[2].AllUsers, decoded[3].UserIDs)
	}
	if !decoded[4].AllUsers || fmt.Sprint(decoded[4].ExceptUserIDs) != "[3 9]" || decoded[2].ExceptUserIDs != nil {
		t.Errorf("decoded exceptions: %v %v, %v", decoded[4].AllUsers, decoded[4].ExceptUserIDs, decoded[2].ExceptUserIDs)
	}
	// Each hub has a queue that takes channel typing events and one that
	// does not: the hub's filter reads the decoded payload.
	var out [2][2]string
	for i, es := range [][]chat.Event{events, decoded} {
		h := chat.NewHub(chat.HubOptions{})
		defer h.Close()
		var ids [2]string
		for j, typing := range []bool{true, false} {
			var err error
			ids[j], err = h.NewQueue(chat.QueueOptions{UserID: 7, RealmID: 1, StreamTypingNotifications: typing})
			wantNoErr(t, "NewQueue", err)
		}
		h.Publish(context.Background(), es)
		for j, id := range ids {
			got, err := h.Events(context.Background(), 7, id, -1, true)
			wantNoErr(t, "Events", err)
			out[i][j] = string(got.AppendJSON(nil))
		}
	}
	if out[0] != out[1] {
		t.Errorf("hub output after a trip through JSON:\n got %s\nwant %s", out[1], out[0])
	}
	if !strings.Contains(out[0][0], `"type":"typing"`) || strings.Contains(out[0][1], `"type":"typing"`) ||
		!strings.Contains(out[0][0], `"<b>&\u2028"`) || !strings.Contains(out[0][0], `"seven"`) || strings.Contains(out[0][0], `"others"`) {
		t.Errorf("hub output: %s\nwithout channel typing: %s", out[0][0], out[0][1])
	}
}

// TestEventJSONErrors checks what cannot be read or written.
func TestEventJSONErrors(t *testing.T) {
	for _, data := range []string{
		`{"r":1,"u":[1],"k":"no-such-kind","f":{}}`,
		`{"r":1,"u":[1],"p":[1]}`,
		`{"r":1,"u":[1],"k":"message","f":[]}`,
		`{"r":"1"}`,
	} {
		var e chat.Event
		if err := json.Unmarshal([]byte(data), &e); err == nil {
			t.Errorf("decoding %s: no error, got %+v", data, e)
		}
	}
	_, err := json.Marshal(chat.Event{RealmID: 1, Payload: map[string]any{"type": "x", "bad": func() {}}})
	if err == nil || !strings.Contains(err.Error(), `encoding a "x" event`) {
		t.Errorf("encoding an unencodable payload: %v", err)
	}
}

func joinForms(forms []json.RawMessage) string {
	var b strings.Builder
	for _, f := range forms {
		b.Write(f)
		b.WriteByte('\n')
	}
	return b.String()
}

func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
