// Package searchbench holds what the SQL backends' search and narrow
// benchmarks share: the history they read, the reads, and how the times
// are reported. Each backend opens its own stores, and fills a large
// history with its own SQL, one statement per table rather than the
// store's batches of 1 000 messages; the shape of that history is defined
// here once, and Check verifies that a backend's SQL wrote it.
//
// A history is one reader who received every message, three other users
// (a sender, a peer and an old sender), 10 channels with consecutive IDs, and n messages:
// message i goes to channel i%10 with the topic "t" and i/10%10, and its
// content is "common words of message i", followed by " walrus" when i is
// a multiple of 100. Every message thus has the common word, one in 100
// the rare one, and a topic keeps one message in 10 of its channel, one in
// 100 of the history. The reader sends the messages, but for one in 100
// (i%100 == 50) that the sender sends, and one in 100 (i%100 == 25) that
// is a direct message from the peer to the reader instead of a channel
// message, without a topic: a rare sender and a rare conversation. A third
// user, the old sender, sent one in 100 (i%100 == 75) of the first 10 000
// and nothing since: at 1 000 000 messages their newest 50 lie 990 000
// messages back.
package searchbench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// The history's shape; see the package comment.
const (
	// Channels is the number of channels; message i goes to channel
	// i%Channels.
	Channels = 10
	// Topics is the number of topics of each channel.
	Topics = 10
	// RareEvery is how often the rare word comes: in message i when
	// i%RareEvery is 0.
	RareEvery = 100
	// CommonWord is in every message, RareWord in one in RareEvery.
	CommonWord, RareWord = "common", "walrus"
	// PeopleEvery is how often the sender's messages and the direct ones
	// come: message i is the sender's when i%PeopleEvery is SenderAt, a
	// direct message from the peer when it is DirectAt.
	PeopleEvery, SenderAt, DirectAt = 100, 50, 25
	// OldSenderAt places the old sender's messages, i%PeopleEvery ==
	// OldSenderAt for i < OldSenderUntil.
	OldSenderAt, OldSenderUntil = 75, 10000
)

// Content returns the content of message i (in Markdown; the rendered
// content is it in a paragraph).
func Content(i int) string {
	text := CommonWord + " words of message " + strconv.Itoa(i)
	if i%RareEvery == 0 {
		text += " " + RareWord
	}
	return text
}

// Topic returns the topic of message i.
func Topic(i int) string { return "t" + strconv.Itoa(i/10%Topics) }

// DateSent is every message's date: the reads do not depend on it.
var DateSent = time.Unix(2, 0).UTC()

// History is a store holding a history of the package's shape.
type History struct {
	Store storage.Store
	// N is the number of messages.
	N       int
	RealmID int64
	// UserID is the reader, SenderID the rare sender, PeerID the reader's
	// peer in the direct messages and OldSenderID the old sender.
	UserID, SenderID, PeerID, OldSenderID int64
	// ChannelID is the first channel's ID; the others follow it.
	ChannelID int64
}

// Setup creates the organization, the reader and the channels in s, and
// returns the history, still without messages.
func Setup(b testing.TB, s storage.Store) History {
	b.Helper()
	t0 := time.Unix(1, 0).UTC()
	h := History{Store: s}
	var cs []*storage.Channel
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		r := storage.Realm{Name: "Bench", Host: "bench.example.com", URL: "https://bench.example.com", DateCreated: t0,
			DefaultEmailVisibility: storage.EmailVisibleAdmins}
		if err := tx.CreateRealm(&r); err != nil {
			return err
		}
		u := storage.UserRecord{RealmID: r.ID, Email: "reader@example.com", FullName: "Reader", Role: storage.RoleMember,
			IsActive: true, DateJoined: t0, Timezone: "UTC", APIKey: "bench-reader-key", EmailVisibility: storage.EmailVisibleAdmins}
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		h.RealmID, h.UserID = r.ID, u.ID
		for _, name := range []string{"sender", "peer", "old"} {
			o := u
			o.ID, o.Email, o.FullName, o.APIKey = 0, name+"@example.com", name, "bench-"+name+"-key"
			if err := tx.CreateUser(&o); err != nil {
				return err
			}
			switch name {
			case "sender":
				h.SenderID = o.ID
			case "peer":
				h.PeerID = o.ID
			default:
				h.OldSenderID = o.ID
			}
		}
		for i := range Channels {
			cs = append(cs, &storage.Channel{RealmID: r.ID, Name: fmt.Sprintf("c%d", i), DateCreated: t0})
		}
		return tx.CreateChannels(cs)
	})
	if err != nil {
		b.Fatal(err)
	}
	h.ChannelID = cs[0].ID
	for i, c := range cs {
		if c.ID != h.ChannelID+int64(i) {
			b.Fatalf("channel IDs not consecutive: %d, %d", h.ChannelID, c.ID)
		}
	}
	return h
}

// Fill writes n messages through the store, 1 000 per transaction, with
// the reader's rows for them.
func Fill(b testing.TB, h *History, n int) {
	b.Helper()
	for start := 0; start < n; start += 1000 {
		err := h.Store.Update(context.Background(), func(tx storage.Tx) error {
			var ms []*storage.MessageRecord
			for i := start; i < start+1000 && i < n; i++ {
				ms = append(ms, Message(*h, i))
			}
			if err := tx.CreateMessages(ms); err != nil {
				return err
			}
			rows := make([]storage.UserMessage, len(ms))
			for i, m := range ms {
				rows[i] = storage.UserMessage{UserID: h.UserID, MessageID: m.ID}
			}
			return tx.CreateUserMessages(rows)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	h.N += n
}

// Message returns message i of h, without its ID.
func Message(h History, i int) *storage.MessageRecord {
	text := Content(i)
	m := &storage.MessageRecord{RealmID: h.RealmID, SenderID: h.UserID, RecipientType: storage.RecipientChannel,
		ChannelID: h.ChannelID + int64(i%Channels), Topic: Topic(i), Content: text, RenderedContent: "<p>" + text + "</p>",
		DateSent: DateSent}
	switch i % PeopleEvery {
	case SenderAt:
		m.SenderID = h.SenderID
	case DirectAt:
		m.SenderID, m.RecipientType, m.ChannelID, m.Topic = h.PeerID, storage.RecipientDirect, 0, ""
		m.DirectUserIDs = h.Conversation()
	case OldSenderAt:
		if i < OldSenderUntil {
			m.SenderID = h.OldSenderID
		}
	}
	return m
}

// Conversation returns the participants of h's direct messages, sorted.
func (h History) Conversation() []int64 { return storage.DirectUserSet([]int64{h.UserID, h.PeerID}) }

// newestAt returns the indexes of the newest two messages i of h with
// i%every == at and i < n.
func newestAt(n, every, at int) []int {
	i := (n-1-at)/every*every + at
	return []int{i, i - every}
}

// Check verifies, through the store, that h holds the history of its
// shape that a backend's SQL was to write: the oldest and newest messages,
// the newest with the rare word, and each message of a topic narrow. It
// costs a few reads, so that a benchmark cannot measure a history that
// differs from the other backends'.
func Check(b testing.TB, h History) {
	b.Helper()
	if h.N < 2*RareEvery {
		b.Fatalf("history of %d messages: Check needs %d", h.N, 2*RareEvery)
	}
	topic := storage.TopicKey(Topic(h.N - 1))
	for _, c := range []struct {
		f    storage.MessageFilter
		want []int
	}{
		{storage.MessageFilter{Limit: 2}, []int{0, 1}},
		{storage.MessageFilter{Limit: 2, Descending: true}, []int{h.N - 1, h.N - 2}},
		{storage.MessageFilter{Limit: 2, Descending: true, Search: []string{RareWord}},
			[]int{(h.N - 1) / RareEvery * RareEvery, ((h.N-1)/RareEvery - 1) * RareEvery}},
		{storage.MessageFilter{Limit: 1, Descending: true, Search: []string{"message", strconv.Itoa(h.N / 2)}}, []int{h.N / 2}},
		{storage.MessageFilter{Limit: 2, Descending: true, ChannelID: h.ChannelID + int64((h.N-1)%Channels), TopicKey: &topic},
			[]int{h.N - 1, h.N - 1 - Channels*Topics}},
		{storage.MessageFilter{Limit: 2, Descending: true, SenderID: h.SenderID}, newestAt(h.N, PeopleEvery, SenderAt)},
		{storage.MessageFilter{Limit: 2, Descending: true, DirectUserIDs: h.Conversation()}, newestAt(h.N, PeopleEvery, DirectAt)},
		{storage.MessageFilter{Limit: 2, Descending: true, SenderID: h.OldSenderID},
			newestAt(min(h.N, OldSenderUntil), PeopleEvery, OldSenderAt)},
	} {
		got := find(b, h, c.f)
		if len(got) != len(c.want) {
			b.Fatalf("FindMessages %+v: %d rows, want %d", c.f, len(got), len(c.want))
		}
		for k, i := range c.want {
			m, want := got[k].Message, Message(h, i)
			if m.Content != want.Content || m.RenderedContent != want.RenderedContent || m.Topic != want.Topic ||
				m.ChannelID != want.ChannelID || m.SenderID != want.SenderID || !m.DateSent.Equal(want.DateSent) ||
				m.RecipientType != want.RecipientType || !slices.Equal(m.DirectUserIDs, want.DirectUserIDs) ||
				!got[k].Received {
				b.Fatalf("FindMessages %+v: row %d is %+v, want message %d: %+v", c.f, k, got[k], i, want)
			}
		}
	}
}

func find(b testing.TB, h History, f storage.MessageFilter) []storage.MessageRow {
	b.Helper()
	f.RealmID, f.UserID = h.RealmID, h.UserID
	var got []storage.MessageRow
	err := h.Store.View(context.Background(), func(tx storage.Tx) (err error) {
		got, err = tx.FindMessages(f)
		return err
	})
	if err != nil {
		b.Fatalf("FindMessages %+v: %v", f, err)
	}
	return got
}

// A read is one of the benchmarks' fetches of the newest 50 messages.
type read struct {
	name string
	f    func(h History) storage.MessageFilter
	// pred, when set, keeps the rows the store returns for f, as the
	// root package's narrows keep those of their predicates.
	pred func(h History, m *storage.MessageRecord) bool
}

// reads are the fetches measured: without a narrow, a search for the
// common word and for the rare one, the first channel, its first topic,
// the rare sender, the conversation and the old sender.
var reads = []read{
	{name: "newest", f: func(History) storage.MessageFilter { return storage.MessageFilter{} }},
	{name: "common", f: func(History) storage.MessageFilter { return storage.MessageFilter{Search: []string{CommonWord}} }},
	{name: "rare", f: func(History) storage.MessageFilter { return storage.MessageFilter{Search: []string{RareWord}} }},
	{name: "channel", f: func(h History) storage.MessageFilter { return storage.MessageFilter{ChannelID: h.ChannelID} }},
	{name: "topic", f: func(h History) storage.MessageFilter {
		topic := storage.TopicKey(Topic(0))
		return storage.MessageFilter{ChannelID: h.ChannelID, TopicKey: &topic}
	}},
	{name: "sender", f: func(h History) storage.MessageFilter { return storage.MessageFilter{SenderID: h.SenderID} }},
	{name: "dm", f: func(h History) storage.MessageFilter {
		return storage.MessageFilter{DirectUserIDs: h.Conversation()}
	}},
	{name: "old", f: func(h History) storage.MessageFilter { return storage.MessageFilter{SenderID: h.OldSenderID} }},
}

// predReads are the sender, conversation and old sender reads as the root
// package read them before the store had their conditions ("-pred"): the
// reader's rows newest first, a predicate keeping the matches. They are
// measured apart (ScaleBefore): reading a million rows in a round would
// push the other reads' pages out of the caches.
var predReads = []read{
	{name: "sender-pred", f: func(History) storage.MessageFilter { return storage.MessageFilter{} },
		pred: func(h History, m *storage.MessageRecord) bool { return m.SenderID == h.SenderID }},
	{name: "old-pred", f: func(History) storage.MessageFilter { return storage.MessageFilter{} },
		pred: func(h History, m *storage.MessageRecord) bool { return m.SenderID == h.OldSenderID }},
	{name: "dm-pred", f: func(History) storage.MessageFilter { return storage.MessageFilter{} },
		pred: func(h History, m *storage.MessageRecord) bool {
			return m.RecipientType == storage.RecipientDirect && slices.Equal(m.DirectUserIDs, h.Conversation())
		}},
}

// scanBatch is the root package's scanBatch (messages_fetch.go): the
// fewest rows a narrow with predicates asks the store for at a time.
const scanBatch = 100

// findPred reads the newest limit rows of f that pred keeps, as the root
// package's compiledNarrow.scan does: batches of twice the rows still
// missing, at least scanBatch, each below the last.
func findPred(b testing.TB, h History, f storage.MessageFilter, pred func(*storage.MessageRecord) bool, limit int) []storage.MessageRow {
	var out []storage.MessageRow
	f.RealmID, f.UserID, f.Descending = h.RealmID, h.UserID, true
	err := h.Store.View(context.Background(), func(tx storage.Tx) error {
		for {
			f.Limit = max(2*(limit-len(out)), scanBatch)
			rows, err := tx.FindMessages(f)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if pred(&r.Message) {
					out = append(out, r)
					if len(out) == limit {
						return nil
					}
				}
			}
			if len(rows) < f.Limit {
				return nil
			}
			f.MaxID = rows[len(rows)-1].Message.ID - 1
			if f.MaxID < 1 {
				return nil
			}
		}
	})
	if err != nil {
		b.Fatalf("FindMessages %+v: %v", f, err)
	}
	return out
}

// timeRead fetches the newest 50 messages of r in h and returns the time
// it took in µs, the transaction included.
func timeRead(b testing.TB, h History, r read) float64 {
	f := r.f(h)
	f.Descending, f.Limit = true, 50
	start := time.Now()
	var got []storage.MessageRow
	if r.pred != nil {
		got = findPred(b, h, f, func(m *storage.MessageRecord) bool { return r.pred(h, m) }, f.Limit)
	} else {
		got = find(b, h, f)
	}
	d := time.Since(start)
	if len(got) != 50 {
		b.Fatalf("%s: FindMessages %+v: %d rows, want 50", r.name, f, len(got))
	}
	return float64(d) / 1e3
}

// Newest runs every read on h once per op and reports the median of each
// in µs (newest-µs, channel-µs, topic-µs, common-µs, rare-µs, sender-µs,
// dm-µs, old-µs) and the median of common/newest, the cost
// of a common word over a plain fetch.
func Newest(b *testing.B, h History) {
	times := make([][]float64, len(reads))
	var ratios []float64
	for b.Loop() {
		for k, r := range reads {
			times[k] = append(times[k], timeRead(b, h, r))
		}
		ratios = append(ratios, times[1][len(times[1])-1]/times[0][len(times[0])-1])
	}
	for _, name := range []string{"newest", "channel", "topic", "common", "rare", "sender", "dm", "old"} {
		k := slices.IndexFunc(reads, func(r read) bool { return r.name == name })
		b.ReportMetric(Median(times[k]), name+"-µs")
	}
	b.ReportMetric(Median(ratios), "common/newest")
}

// MinRounds is the fewest rounds Scale measures, whatever b.N.
const MinRounds = 20

// Scale compares the reads in histories of different sizes, the first
// being the baseline: one op is a round of every read on every history,
// the histories taken in an order that rotates from round to round so that
// none always comes first, and it runs at least MinRounds rounds. For each
// read and history it reports the median in µs (for example
// "common-1M-µs"), and for each larger history the median of the rounds'
// ratios to the baseline ("common-1M/10k", goal at most 1.5).
func Scale(b *testing.B, hs []History) { scale(b, hs, reads) }

// Histories opens a history of each of the sizes the scale benchmarks
// compare, 10 000, 100 000 and 1 000 000 messages, with open (a backend's
// way of filling one fast), and logs how long filling them took.
func Histories(b *testing.B, open func(b *testing.B, n int) History) []History {
	start := time.Now()
	hs := []History{open(b, 10000), open(b, 100000), open(b, 1000000)}
	b.Logf("filled %d, %d and %d messages in %v", hs[0].N, hs[1].N, hs[2].N, time.Since(start).Round(time.Second))
	return hs
}

// ScaleBefore is Scale for the reads of the narrows by sender and
// conversation as the root package made them before the store had their
// conditions (sender-pred-1M-µs, say).
func ScaleBefore(b *testing.B, hs []History) { scale(b, hs, predReads) }

func scale(b *testing.B, hs []History, reads []read) {
	times := make([][][]float64, len(reads))
	ratios := make([][][]float64, len(reads))
	for k := range reads {
		times[k] = make([][]float64, len(hs))
		ratios[k] = make([][]float64, len(hs))
	}
	round := 0
	pass := func() {
		round++
		for k, r := range reads {
			t := make([]float64, len(hs))
			for j := range hs {
				side := (round + j) % len(hs)
				t[side] = timeRead(b, hs[side], r)
			}
			for j := range hs {
				times[k][j] = append(times[k][j], t[j])
				ratios[k][j] = append(ratios[k][j], t[j]/t[0])
			}
		}
	}
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	for round < MinRounds {
		pass()
	}
	for k, r := range reads {
		for j, h := range hs {
			b.ReportMetric(Median(times[k][j]), r.name+"-"+Size(h.N)+"-µs")
		}
		for j, h := range hs[1:] {
			b.ReportMetric(Median(ratios[k][j+1]), r.name+"-"+Size(h.N)+"/"+Size(hs[0].N))
		}
	}
}

// Size names a number of messages as the metrics do: 10k, 1M.
func Size(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// Median returns the median of xs (the upper one of an even count).
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
