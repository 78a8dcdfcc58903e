// Package searchbench holds what the SQL backends' search and narrow
// benchmarks share: the history they read, the reads, and how the times
// are reported. Each backend opens its own stores, and fills a large
// history with its own SQL, one statement per table rather than the
// store's batches of 1 000 messages; the shape of that history is defined
// here once, and Check verifies that a backend's SQL wrote it.
//
// A history is one reader who received every message, 10 channels with
// consecutive IDs, and n messages: message i goes to channel i%10 with the
// topic "t" and i/10%10, and its content is "common words of message i",
// followed by " walrus" when i is a multiple of 100. Every message thus has
// the common word, one in 100 the rare one, and a topic keeps one message
// in 10 of its channel, one in 100 of the history.
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
	// UserID is the reader.
	UserID int64
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
	return &storage.MessageRecord{RealmID: h.RealmID, SenderID: h.UserID, RecipientType: storage.RecipientChannel,
		ChannelID: h.ChannelID + int64(i%Channels), Topic: Topic(i), Content: text, RenderedContent: "<p>" + text + "</p>",
		DateSent: DateSent}
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
	} {
		got := find(b, h, c.f)
		if len(got) != len(c.want) {
			b.Fatalf("FindMessages %+v: %d rows, want %d", c.f, len(got), len(c.want))
		}
		for k, i := range c.want {
			m, want := got[k].Message, Message(h, i)
			if m.Content != want.Content || m.RenderedContent != want.RenderedContent || m.Topic != want.Topic ||
				m.ChannelID != want.ChannelID || m.SenderID != want.SenderID || !m.DateSent.Equal(want.DateSent) ||
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
}

// reads are the fetches measured: without a narrow, a search for the
// common word and for the rare one, the first channel, and its first topic.
var reads = []read{
	{"newest", func(History) storage.MessageFilter { return storage.MessageFilter{} }},
	{"common", func(History) storage.MessageFilter { return storage.MessageFilter{Search: []string{CommonWord}} }},
	{"rare", func(History) storage.MessageFilter { return storage.MessageFilter{Search: []string{RareWord}} }},
	{"channel", func(h History) storage.MessageFilter { return storage.MessageFilter{ChannelID: h.ChannelID} }},
	{"topic", func(h History) storage.MessageFilter {
		topic := storage.TopicKey(Topic(0))
		return storage.MessageFilter{ChannelID: h.ChannelID, TopicKey: &topic}
	}},
}

// timeRead fetches the newest 50 messages of r in h and returns the time
// it took in µs, the transaction included.
func timeRead(b testing.TB, h History, r read) float64 {
	f := r.f(h)
	f.Descending, f.Limit = true, 50
	start := time.Now()
	got := find(b, h, f)
	d := time.Since(start)
	if len(got) != 50 {
		b.Fatalf("%s: FindMessages %+v: %d rows, want 50", r.name, f, len(got))
	}
	return float64(d) / 1e3
}

// Newest runs every read on h once per op and reports the median of each
// in µs (newest-µs, channel-µs, topic-µs, common-µs, rare-µs) and the
// median of common/newest, the cost of a common word over a plain fetch.
func Newest(b *testing.B, h History) {
	times := make([][]float64, len(reads))
	var ratios []float64
	for b.Loop() {
		for k, r := range reads {
			times[k] = append(times[k], timeRead(b, h, r))
		}
		ratios = append(ratios, times[1][len(times[1])-1]/times[0][len(times[0])-1])
	}
	for _, name := range []string{"newest", "channel", "topic", "common", "rare"} {
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
func Scale(b *testing.B, hs []History) {
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
