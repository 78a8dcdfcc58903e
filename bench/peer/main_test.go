package main

import (
	"strings"
	"testing"
)

// The program itself needs the peer's snapshot and PostgreSQL, so it is
// not run by go test; these check its flags and its table offline.

func TestParseFlags(t *testing.T) {
	if _, err := parseFlags([]string{"-chatd", "x", "-dsn", "d"}); err == nil {
		t.Error("no -mattermost: accepted")
	}
	if _, err := parseFlags([]string{"-chatd", "x", "-dsn", "d", "-mattermost", "m", "-chatd-store", "mysql"}); err == nil {
		t.Error("-chatd-store mysql: accepted")
	}
	c, err := parseFlags([]string{"-chatd", "x", "-dsn", "d", "-skip-peer", "-posts", "100", "-reactions", "1000"})
	if err != nil {
		t.Fatal(err)
	}
	if c.reactions != 96 {
		t.Errorf("reactions = %d, want 96 (12 of the 12 messages of each of 8 senders)", c.reactions)
	}
}

func TestTable(t *testing.T) {
	c, err := parseFlags([]string{"-chatd", "x", "-dsn", "d", "-mattermost", "m", "-rounds", "3", "-grow-to", "10000"})
	if err != nil {
		t.Fatal(err)
	}
	round := func(rate, cpu, dbcpu, p50 float64) result {
		return result{bigRate: rate, bigP99: 90, bigCPU: cpu, bigDBCPU: dbcpu, smallRate: rate, smallCPU: cpu,
			reactRate: rate, listenP50: p50, listenP99: 2 * p50, usersMillis: 10, newestMillis: 4}
	}
	peer := []result{round(100, 4, 2, 10), round(200, 4, 2, 10), round(150, 4, 2, 10)}
	chatd := []result{round(50, 2, 0, 20), round(300, 3, 0, 20), round(300, 12, 0, 5)}
	got := table(c, []string{"Mattermost", "chatd SQLite"}, [][]result{peer, chatd}, []float64{369, 620}, true)
	wantLines(t, got,
		"| workload | Mattermost | chatd SQLite | chatd SQLite / peer |\n|---|---|---|---|\n",
		// Rates: the median of the rounds' ratios 0.5, 1.5, 2.
		"| post to a channel of 1 000 members, 8 senders: msg/s, p99 | 150 msg/s, p99 90.0 ms | 300 msg/s, p99 90.0 ms | **1.50x** |",
		// CPU: the peer's server and database against chatd's, 6/2, 6/3, 6/12.
		"| server CPU per post, 1 000 members (+ in PostgreSQL) | 4.00 ms + 2.00 ms | 3.00 ms | **2.00x** |",
		"| 100 messages to 200 connected listeners, send→delivery p50 | 10.0 ms | 20.0 ms | 0.50x |",
		"| growing from 1 000 to 10 000 users by API | 369 s | 620 s | 0.60x |",
	)
}

// TestTableWithoutAWorkload: a server that ran the listeners' workload
// alone (the long-poll floor) has a dash in the other rows.
func TestTableWithoutAWorkload(t *testing.T) {
	c, err := parseFlags([]string{"-chatd", "x", "-dsn", "d", "-mattermost", "m", "-rounds", "1", "-floor"})
	if err != nil {
		t.Fatal(err)
	}
	peer := result{bigRate: 100, bigP99: 90, bigCPU: 4, smallRate: 200, reactRate: 300, listenP50: 10, listenCPU: 20}
	floor := result{listenP50: 5, listenCPU: 10}
	got := table(c, []string{"Mattermost", "long-poll floor"}, [][]result{{peer}, {floor}}, nil, true)
	wantLines(t, got,
		"| post to a channel of 1 000 members, 8 senders: msg/s, p99 | 100 msg/s, p99 90.0 ms | —, p99 — | — |",
		"| reactions, 8 users | 300/s | — | — |",
		"| 100 messages to 200 connected listeners, send→delivery p50 | 10.0 ms | 5.00 ms | **2.00x** |",
		"| server CPU per message to the listeners (+ in PostgreSQL) | 20.0 ms | 10.0 ms | **2.00x** |",
	)
}

// wantLines checks that the table got has each of the lines.
func wantLines(t *testing.T, got string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(got, want) {
			t.Errorf("the table has no line\n%s\nin\n%s", want, got)
		}
	}
}
