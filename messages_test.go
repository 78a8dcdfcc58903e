package chat_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestNarrowsOnEveryBackend runs the same narrow cases, operator by
// operator, on every backend: the backends' search and row access must
// agree with the memory store's reference.
func TestNarrowsOnEveryBackend(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		alpha := subscribeTo(t, f, "alpha", f.admin.ID, f.member.ID)
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.admin.ID), chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "secret"}}, InviteOnly: true})
		wantNoErr(t, "Subscribe secret", err)
		secret := channelIDOf(t, f, "secret")
		sendTo := func(as int64, channel int64, topic, content string) int64 {
			t.Helper()
			id, err := f.svc.PostChannelMessage(ctx, chat.AsUser(as), channel, topic, content)
			wantNoErr(t, "send", err)
			return id
		}
		dm := func(as int64, to []int64, content string) int64 {
			t.Helper()
			id, err := f.svc.SendMessage(ctx, chat.AsUser(as), chat.SendMessageRequest{Type: "direct", To: &chat.MessageTo{IDs: to}, Content: content})
			wantNoErr(t, "dm", err)
			return id
		}
		m1 := sendTo(f.admin.ID, alpha, "Plans", "Café meeting at https://example.com")
		m2 := sendTo(f.member.ID, alpha, "plans", "hello @**"+fullName(t, f, f.admin.ID)+"** and walrus")
		m3 := sendTo(f.member.ID, alpha, "✔ done", "walrus resolved")
		m4 := dm(f.member.ID, []int64{f.admin.ID}, "private walrus")
		m5 := dm(f.admin.ID, []int64{f.member.ID, f.moderator.ID}, "group chat [pic.png](/user_uploads/1/ab/pic.png)")
		m6 := sendTo(f.admin.ID, secret, "s", "hidden walrus")
		wantNoErr(t, "react", f.svc.AddReaction(ctx, chat.AsUser(f.admin.ID), m2, chat.ReactionRequest{Name: "octopus"}))

		fetch := func(as int64, narrow string) []int64 { t.Helper(); return narrowIDs(t, f, as, narrow) }
		admin, member, mod := f.admin.ID, f.member.ID, f.moderator.ID
		for _, c := range []struct {
			as     int64
			narrow string
			want   []int64
		}{
			{admin, ``, []int64{m1, m2, m3, m4, m5, m6}},
			{member, ``, []int64{m1, m2, m3, m4, m5}},
			{admin, `[["channel","alpha"]]`, []int64{m1, m2, m3}},
			{admin, `[{"operator":"stream","operand":` + itoa(alpha) + `}]`, []int64{m1, m2, m3}},
			{admin, `[{"operator":"channel","operand":"alpha","negated":true}]`, []int64{m4, m5, m6}},
			// Public history: the moderator received nothing but may read.
			{mod, `[["channel","alpha"]]`, []int64{m1, m2, m3}},
			{admin, `[["channel","alpha"],["topic","PLANS"]]`, []int64{m1, m2}},
			{admin, `[{"operator":"topic","operand":"plans","negated":true}]`, []int64{m3, m4, m5, m6}},
			{admin, `[["sender","` + f.member.Email + `"]]`, []int64{m2, m3, m4}},
			{admin, `[{"operator":"sender","operand":` + itoa(member) + `}]`, []int64{m2, m3, m4}},
			{admin, `[{"operator":"dm","operand":[` + itoa(member) + `]}]`, []int64{m4}},
			{admin, `[["pm-with","` + f.member.Email + `,` + f.moderator.Email + `"]]`, []int64{m5}},
			{admin, `[{"operator":"dm-including","operand":` + itoa(member) + `}]`, []int64{m4, m5}},
			// The first sender and conversation go to the store, the others
			// and negated ones stay predicates; neither reveals a message
			// the reader may not read.
			{mod, `[["channel","alpha"],["sender","` + f.member.Email + `"]]`, []int64{m2, m3}},
			{mod, `[["sender","` + f.member.Email + `"]]`, []int64{}},
			{member, `[["sender",` + itoa(admin) + `]]`, []int64{m1, m5}},
			{admin, `[["sender",` + itoa(member) + `],["sender",` + itoa(admin) + `]]`, []int64{}},
			{admin, `[{"operator":"sender","operand":` + itoa(member) + `,"negated":true}]`, []int64{m1, m5, m6}},
			{admin, `[["sender",` + itoa(member) + `],["search","walrus"],["channel","alpha"]]`, []int64{m2, m3}},
			{admin, `[["dm",[` + itoa(member) + `]],["sender",` + itoa(member) + `]]`, []int64{m4}},
			{admin, `[["dm",[` + itoa(member) + `]],["sender",` + itoa(admin) + `]]`, []int64{}},
			{admin, `[["dm",[` + itoa(member) + `]],["dm",[` + itoa(member) + `,` + itoa(mod) + `]]]`, []int64{}},
			{admin, `[{"operator":"dm","operand":[` + itoa(member) + `],"negated":true}]`, []int64{m1, m2, m3, m5, m6}},
			{mod, `[["dm",[` + itoa(member) + `]]]`, []int64{}},
			{mod, `[["dm",[` + itoa(member) + `,` + itoa(admin) + `,` + itoa(member) + `]]]`, []int64{m5}},
			{admin, `[["is","dm"]]`, []int64{m4, m5}},
			{admin, `[["is","private"]]`, []int64{m4, m5}},
			{admin, `[["is","mentioned"]]`, []int64{m2}},
			{admin, `[["is","resolved"]]`, []int64{m3}},
			{admin, `[["is","unread"]]`, []int64{m1, m2, m3, m4, m5, m6}},
			{admin, `[["is","starred"]]`, []int64{}},
			{admin, `[["has","link"]]`, []int64{m1, m5}},
			{admin, `[{"operator":"has","operand":"link","negated":true},["channel","alpha"]]`, []int64{m2, m3}},
			{admin, `[["has","reaction"]]`, []int64{m2}},
			{admin, `[["has","image"]]`, []int64{m5}},
			{admin, `[["has","attachment"]]`, []int64{m5}},
			{admin, `[{"operator":"id","operand":` + itoa(m3) + `}]`, []int64{m3}},
			{admin, `[["search","walrus"]]`, []int64{m2, m3, m4, m6}},
			{admin, `[["search","WALRUS hidden"]]`, []int64{m6}},
			{admin, `[["search","café"]]`, []int64{m1}},
			{admin, `[["search","plans"]]`, []int64{m1, m2}},
			{admin, `[{"operator":"search","operand":"walrus","negated":true}]`, []int64{m1, m5}},
			{member, `[["search","walrus"]]`, []int64{m2, m3, m4}},
		} {
			diff(t, "narrow "+c.narrow, fetch(c.as, c.narrow), c.want)
		}
		// The member was never subscribed to the private channel.
		_, err = f.svc.GetMessages(ctx, chat.AsUser(member), chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](1),
			Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "secret"}}})
		wantErr(t, "private channel", err, &chat.Error{Code: chat.CodeBadNarrow, Msg: "Invalid narrow operator: unknown channel secret"})
		_, _, err = f.svc.GetMessage(ctx, chat.AsUser(member), m6, chat.MessageFormat{})
		wantErr(t, "private message", err, chat.ErrInvalidMessage)

		// Anchors.
		res, err := f.svc.GetMessages(ctx, chat.AsUser(admin), chat.GetMessagesRequest{Anchor: ptr(itoa(m3)), NumBefore: ptr[int64](1), NumAfter: ptr[int64](1),
			IncludeAnchor: ptr(true), Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "alpha"}}})
		wantNoErr(t, "anchor", err)
		// m3 is the channel's newest message: one before it, none after.
		if len(res.Messages) != 2 || res.Messages[0].ID != m2 || res.Messages[1].ID != m3 || !res.FoundAnchor ||
			res.FoundOldest || !res.FoundNewest {
			t.Errorf("anchored fetch: %+v", res)
		}
		res, err = f.svc.GetMessages(ctx, chat.AsUser(member), chat.GetMessagesRequest{Anchor: ptr("first_unread"), NumAfter: ptr[int64](1), IncludeAnchor: ptr(true)})
		wantNoErr(t, "first_unread", err)
		if res.Anchor == chat.AnchorNewest || !res.FoundAnchor {
			t.Errorf("first unread: %+v", res)
		}

		// Deleting removes the message from every narrow and search.
		wantNoErr(t, "delete", f.svc.DeleteMessage(ctx, chat.AsUser(admin), m4))
		diff(t, "after delete", fetch(admin, `[["search","walrus"]]`), []int64{m2, m3, m6})
		// Editing re-indexes the message.
		wantNoErr(t, "edit", f.svc.EditMessage(ctx, chat.AsUser(admin), m1, ptr("now about narwhals")))
		diff(t, "after edit", fetch(admin, `[["search","narwhals"]]`), []int64{m1})
		diff(t, "old words", fetch(admin, `[["search","café"]]`), []int64{})
	})
}

// subscribeTo creates the public channel name, as the administrator, with
// the users as its subscribers, and returns its ID.
func subscribeTo(t *testing.T, f *fixture, name string, users ...int64) int64 {
	t.Helper()
	_, err := f.svc.Subscribe(t.Context(), chat.AsUser(f.admin.ID), chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: name}}, Principals: &chat.Principals{IDs: users}})
	wantNoErr(t, "Subscribe "+name, err)
	return channelIDOf(t, f, name)
}

// channelIDOf returns the ID of the channel with the name, as the
// fixture's administrator sees it.
func channelIDOf(t *testing.T, f *fixture, name string) int64 {
	t.Helper()
	cs, err := f.svc.Channels(t.Context(), chat.AsUser(f.admin.ID), chat.DefaultChannelQuery)
	wantNoErr(t, "Channels", err)
	for _, c := range cs {
		if c.Name == name {
			return c.StreamID
		}
	}
	t.Fatalf("no channel %s", name)
	return 0
}

// narrowIDs returns the IDs of the messages that the user as reads in the
// narrow (JSON, "" for none), oldest first, the notification bot's left
// out.
func narrowIDs(t *testing.T, f *fixture, as int64, narrow string) []int64 {
	t.Helper()
	var elems []chat.NarrowElement
	if narrow != "" {
		var err error
		elems, err = chat.ParseNarrow("narrow", []byte(narrow))
		wantNoErr(t, "ParseNarrow "+narrow, err)
	}
	res, err := f.svc.GetMessages(t.Context(), chat.AsUser(as), chat.GetMessagesRequest{Anchor: ptr("oldest"), NumAfter: ptr[int64](100),
		IncludeAnchor: ptr(true), Narrow: elems})
	wantNoErr(t, "GetMessages "+narrow, err)
	ids := []int64{}
	for _, m := range res.Messages {
		if m.SenderID != chat.NotificationBotID {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

func fullName(t *testing.T, f *fixture, id int64) string {
	u, err := f.svc.User(t.Context(), chat.AsUser(id), id, chat.UserQuery{})
	wantNoErr(t, "User", err)
	return u.FullName
}

// TestGetMessagesParameters checks the rules on the combination of a
// fetch's parameters, which the Go API applies as HTTP does.
func TestGetMessagesParameters(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member := chat.AsUser(f.member.ID)
		id, err := f.svc.SendMessage(ctx, member, chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.owner.ID}}, Content: "hello"})
		wantNoErr(t, "SendMessage", err)
		for name, req := range map[string]chat.GetMessagesRequest{
			"anchor":                  {MessageIDs: []int64{id}, Anchor: ptr("newest")},
			"num_before":              {MessageIDs: []int64{id}, NumBefore: ptr[int64](0)},
			"num_after":               {MessageIDs: []int64{id}, NumAfter: ptr[int64](1)},
			"include_anchor":          {MessageIDs: []int64{id}, IncludeAnchor: ptr(true)},
			"use_first_unread_anchor": {MessageIDs: []int64{id}, UseFirstUnreadAnchor: ptr(false)},
		} {
			_, err := f.svc.GetMessages(ctx, member, req)
			wantErr(t, "message_ids with "+name, err, chat.ErrFetchParameterCombination)
		}
		_, err = f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{NumBefore: ptr[int64](1)})
		wantErr(t, "no anchor", err, chat.ErrMissingAnchor)
		_, err = f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{UseFirstUnreadAnchor: ptr(false)})
		wantErr(t, "use_first_unread_anchor false, no anchor", err, chat.ErrMissingAnchor)
		_, err = f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{Anchor: ptr("")})
		wantErr(t, "empty anchor", err, chat.ErrInvalidAnchor)

		// use_first_unread_anchor stands for the anchor, whatever the
		// anchor says.
		want, err := f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{Anchor: ptr("first_unread"),
			NumBefore: ptr[int64](5), NumAfter: ptr[int64](5)})
		wantNoErr(t, "first_unread", err)
		got, err := f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{Anchor: ptr("oldest"),
			UseFirstUnreadAnchor: ptr(true), NumBefore: ptr[int64](5), NumAfter: ptr[int64](5)})
		wantNoErr(t, "use_first_unread_anchor", err)
		diff(t, "use_first_unread_anchor", got, want, cmpopts.IgnoreUnexported(chat.DirectRecipient{}))
		if len(got.Messages) == 0 {
			t.Error("use_first_unread_anchor fetched nothing")
		}
		var res chat.GetMessagesResult
		// By IDs, with no range parameter.
		res, err = f.svc.GetMessages(ctx, member, chat.GetMessagesRequest{MessageIDs: []int64{id}})
		wantNoErr(t, "message_ids", err)
		if len(res.Messages) != 1 {
			t.Errorf("message_ids: %d messages, want 1", len(res.Messages))
		}
	})
}

// TestNoCommitAfterDeadline: a write whose context ends while it runs
// rolls back, on every backend; the same write with a live context
// commits.
func TestNoCommitAfterDeadline(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var armed atomic.Bool
		f := newFixtureWith(t, newStore, chat.Config{Now: func() time.Time {
			if armed.Load() {
				cancel() // the deadline passes while the operation runs
			}
			return time.Time{}
		}})
		_, err := f.svc.Subscribe(t.Context(), chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "late"}}})
		wantNoErr(t, "Subscribe", err)
		id := channelIDOf(t, f, "late")
		armed.Store(true)
		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "too late")
		if err == nil {
			t.Fatal("a send whose context ended succeeded")
		}
		armed.Store(false)
		diff(t, "messages after the late send", narrowIDs(t, f, f.member.ID, `[["channel","late"]]`), []int64{})
	})
}

// linkifierSpy counts the reads of linkifiers in write transactions.
type linkifierSpy struct {
	storage.Store
	reads     atomic.Int64 // in write transactions
	viewReads atomic.Int64 // in read transactions
}

type linkifierSpyTx struct {
	storage.Tx
	reads *atomic.Int64
}

func (s *linkifierSpy) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error { return fn(linkifierSpyTx{tx, &s.reads}) })
}

func (s *linkifierSpy) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(linkifierSpyTx{tx, &s.viewReads}) })
}

func (t linkifierSpyTx) Linkifiers(realmID int64) ([]storage.LinkifierRecord, error) {
	t.reads.Add(1)
	return t.Tx.Linkifiers(realmID)
}

// TestLongMessagesRenderBeforeTheWrite: a long message is rendered, its
// linkifiers included, before its write transaction, so that the one
// writer of a store is not held while they run; the stored rendering is
// the same as a short message's. A send's write reads the linkifiers once
// (its rendering and its event's topic links share them).
func TestLongMessagesRenderBeforeTheWrite(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		var spy *linkifierSpy
		f := newFixture(t, func(t *testing.T) storage.Store {
			spy = &linkifierSpy{Store: newStore(t)}
			return spy
		})
		ctx := t.Context()
		_, err := f.svc.AddLinkifier(ctx, chat.AsUser(f.admin.ID), chat.LinkifierRequest{Pattern: `#(?P<id>[0-9]+)`,
			URLTemplate: "https://example.org/{id}"})
		wantNoErr(t, "AddLinkifier", err)
		_, err = f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "long"}}})
		wantNoErr(t, "Subscribe", err)
		id := channelIDOf(t, f, "long")
		send := func(content string) (rendered string, writeReads, viewReads int64) {
			t.Helper()
			before, viewBefore := spy.reads.Load(), spy.viewReads.Load()
			mid, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", content)
			wantNoErr(t, "send", err)
			writeReads, viewReads = spy.reads.Load()-before, spy.viewReads.Load()-viewBefore
			v, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), mid, chat.MessageFormat{ApplyMarkdown: true})
			wantNoErr(t, "GetMessage", err)
			return v.Content, writeReads, viewReads
		}
		// A long message's content is rendered in a read transaction
		// before the write; the topic's links are still made in the write
		// (topics are short), which reads the linkifiers once whether or
		// not it renders the content too.
		short, shortReads, shortViewReads := send("see #12")
		long, longReads, longViewReads := send("see #12 " + strings.Repeat("word ", 300))
		if shortReads != 1 || longReads != 1 || shortViewReads != 0 || longViewReads != 1 {
			t.Errorf("linkifier reads in the write, before it: %d, %d for a short message, %d, %d for a long one; want 1, 0 and 1, 1",
				shortReads, shortViewReads, longReads, longViewReads)
		}
		// Edits likewise: a long new content renders before the write.
		edit := func(content string) (string, int64) {
			t.Helper()
			mid, err := f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "draft")
			wantNoErr(t, "send", err)
			before := spy.reads.Load()
			wantNoErr(t, "edit", updateMessage(f.svc, ctx, chat.AsUser(f.member.ID), mid, chat.MessageEdit{Content: &content}))
			v, _, err := f.svc.GetMessage(ctx, chat.AsUser(f.member.ID), mid, chat.MessageFormat{ApplyMarkdown: true})
			wantNoErr(t, "GetMessage", err)
			return v.Content, spy.reads.Load() - before
		}
		shortEdit, shortEditReads := edit("see #12")
		longEdit, longEditReads := edit("see #12 " + strings.Repeat("word ", 300))
		if shortEditReads != 1 || longEditReads != 0 {
			t.Errorf("linkifier reads in the edit's write: %d for a long content, %d for a short one; want 0 and 1", longEditReads, shortEditReads)
		}
		for _, rendered := range []string{short, long, shortEdit, longEdit} {
			if !strings.Contains(rendered, `href="https://example.org/12"`) {
				t.Errorf("rendered %.80q", rendered)
			}
		}
	})
}
