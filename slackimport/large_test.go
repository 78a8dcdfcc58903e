package slackimport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
	"github.com/teamchat/chat/storage/sqlite"
)

// generatedExport writes a Slack export of n messages to a zip archive:
// 50 users, 10 channels of the given number of members, 100 messages per
// channel and day, every fifth
// message starting or answering a thread, every third with a reaction,
// every seventh mentioning someone. It returns the archive and the size
// of its day files uncompressed.
func generatedExport(t testing.TB, n, members int) ([]byte, int64) {
	t.Helper()
	const users, channels, perDay = 50, 10, 100
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	write := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	var b strings.Builder
	b.WriteString("[")
	for u := range users {
		if u > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"U%d","name":"user%d","is_primary_owner":%v,"profile":{"real_name":"User %d","email":"user%d@example.com"}}`,
			u, u, u == 0, u, u)
	}
	write("users.json", b.String()+"]")
	b.Reset()
	b.WriteString("[")
	for c := range channels {
		if c > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"C%d","name":"channel-%d","members":[`, c, c)
		for m := range members {
			if m > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"U%d"`, (c+m)%users)
		}
		b.WriteString("]}")
	}
	write("channels.json", b.String()+"]")
	var raw int64
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 12)
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; {
		day := i / (perDay * channels)
		for c := 0; c < channels && i < n; c++ {
			b.Reset()
			b.WriteString("[")
			var thread string
			for k := 0; k < perDay && i < n; k, i = k+1, i+1 {
				if k > 0 {
					b.WriteString(",")
				}
				ts := fmt.Sprintf("%d.%06d", start.AddDate(0, 0, day).Unix()+int64(k*60+c), i%1000000)
				fmt.Fprintf(&b, `{"type":"message","user":"U%d","ts":"%s","text":"message %d %s`, i%users, ts, i, filler)
				if i%7 == 0 {
					fmt.Fprintf(&b, ` <@U%d>`, (i+1)%users)
				}
				b.WriteString(`"`)
				switch {
				case k%5 == 0:
					thread = ts
					fmt.Fprintf(&b, `,"thread_ts":"%s"`, ts)
				case k%5 == 1:
					fmt.Fprintf(&b, `,"thread_ts":"%s"`, thread)
				}
				if i%3 == 0 {
					fmt.Fprintf(&b, `,"reactions":[{"name":"tada","users":["U%d","U%d"],"count":2}]`, (i+2)%users, (i+3)%users)
				}
				b.WriteString("}")
			}
			b.WriteString("]")
			raw += int64(b.Len())
			write(fmt.Sprintf("channel-%d/%s.json", c, start.AddDate(0, 0, day).Format("2006-01-02")), b.String())
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), raw
}

// importGenerated imports a generated export into a new SQLite store and
// returns the result, the time it took and the largest growth of the live
// heap seen after a batch (a garbage collection each time, so the time
// includes those).
func importGenerated(t testing.TB, data []byte, dir string) (slackimport.Result, time.Duration, int64) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(dir, "chat.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := chat.New(st, chat.Config{})
	defer svc.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var peak int64
	began := time.Now()
	res, err := slackimport.Import(context.Background(), svc, bytes.NewReader(data), int64(len(data)), slackimport.Options{
		Progress: func(p slackimport.Progress) {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, int64(ms.HeapAlloc)-base)
		},
	})
	if err != nil {
		t.Fatalf("ImportSlack: %v", err)
	}
	return res, time.Since(began), peak
}

// A large export streams: the live heap stays far below the size of its
// messages, and the import finishes in reasonable time. Channels have five
// members, to keep the time on rows that this test is not about. Under the
// race detector, which makes SQLite some fifty times slower, the export is
// smaller and the time is not judged.
func TestImportSlackLarge(t *testing.T) {
	n := 20000
	if raceEnabled {
		n = 5000
	}
	data, raw := generatedExport(t, n, 5)
	res, took, peak := importGenerated(t, data, t.TempDir())
	if res.Messages != n || res.Reactions != 2*((n+2)/3) {
		t.Errorf("imported %d messages and %d reactions, want %d and %d", res.Messages, res.Reactions, n, 2*((n+2)/3))
	}
	t.Logf("%d messages (%d MiB of JSON) in %v: %.0f messages/s, live heap growth at most %.1f MiB",
		n, raw>>20, took, float64(n)/took.Seconds(), float64(peak)/(1<<20))
	// What is live after a batch besides the import's state (the batch in
	// flight, the decoder's buffers, the store's caches) measured up to
	// 1 MiB: half of the race detector's smaller export. An import that
	// does not stream holds every message decoded, several times its JSON.
	limit := raw / 2
	if raceEnabled {
		limit = raw
	}
	if peak > limit {
		t.Errorf("live heap grew by %d bytes during the import, more than %d of the %d bytes of messages: not streaming", peak, limit, raw)
	}
	if !raceEnabled && took > 2*time.Minute {
		t.Errorf("import took %v", took)
	}
}

// BenchmarkImportSlack imports a generated export of 100 000 messages
// into SQLite and reports messages per second and the largest live heap
// growth.
func BenchmarkImportSlack(b *testing.B) {
	const n = 100000
	data, raw := generatedExport(b, n, 50)
	b.ResetTimer()
	for range b.N {
		res, took, peak := importGenerated(b, data, b.TempDir())
		if res.Messages != n {
			b.Fatalf("imported %d messages", res.Messages)
		}
		b.ReportMetric(float64(n)/took.Seconds(), "msgs/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-live-MiB")
		b.ReportMetric(float64(raw)/(1<<20), "json-MiB")
	}
}
