// Command peer runs the same workloads against a peer server, Mattermost
// 5.36.1, and against chatd (on SQLite, on PostgreSQL, or both), in
// alternating rounds, and prints a Markdown table of the medians for
// BENCHMARKS.md (issue 24).
//
// The peer is built from a snapshot of its public repository (its release
// tags vendor their dependencies, so the build needs no network), whose
// directory -mattermost names; the peer's code stays there and never enters
// this project. The program is not run in CI: bench/peer.sh builds chatd
// and runs it, under scripts/with-postgres.sh when no -dsn is given.
//
// Every server gets its own database in the PostgreSQL server of -dsn (or
// its own data directory, for chatd on SQLite), and the same data shape,
// created through its own HTTP API: -users users and an administrator; a
// channel of -big members (the "1 000-member channel"), one of ten, both the
// administrator and the first users, and one of the administrator and the
// first -listeners users. Each round runs every workload
// on every server, one server after the other, the order rotating from
// round to round so that a drift of the machine's load falls on each alike:
//
//   - post to the big channel: -senders members post -posts messages, each
//     sender one at a time, all senders at once; messages a second, the
//     99th percentile of a post's latency, and the CPU time the server's
//     process (and, for servers on the local PostgreSQL, the database
//     server's processes) spent per post; the rate and the CPU time run
//     until the server is idle again (work it does after answering
//     counts);
//   - post to the small channel: the same;
//   - reactions: the same senders add -reactions reactions to the small
//     channel's messages of the round, each sender one at a time;
//   - send→delivery: the channel of -listeners members, each connected
//     as a client is (Mattermost: a WebSocket; chatd: an event queue and a
//     long-poll GET /events), receives -listen-messages messages from the
//     administrator, one at a time: the next goes once every listener has
//     the previous one, and -listen-gap later. A delivery's latency runs
//     from the start of the sending request to the listener's having
//     decoded the event;
//   - list the users (all -users of them) and fetch the newest 50 messages
//     of the big channel, -reads times each, one at a time; the median.
//
// With -perf, perf record (Linux's sampling profiler; Go binaries keep
// their symbols) profiles each server's process, with call graphs, while it
// posts to the big channel in the first round (-perf-workload listen: while
// it sends to the listeners): perf report -i FILE reads it.
//
// With -chatd-alt, a second chatd binary runs beside the first on the same
// stores, as one more server of the rounds: a change measured against its
// base, and against the peer (-skip-peer leaves the peer out).
//
// With -floor, the long-poll floor (floor.go) is one more server of the
// rounds, for the send→delivery workload alone: this program started as
// "peer serve", a server with chatd's HTTP settings that does nothing but
// answer long-polls with events encoded once. Its listeners' rows are what
// the reference's protocol costs before any work of chatd's.
//
// With -grow-to, each server then grows from -users to that many users by
// its API (8 requests at a time, passwords and so bcrypt included), in ten
// steps, alternating between the servers after each step. It is off by
// default: from 1 000 to 10 000 users it takes about 10 minutes on the peer
// and 25 on each chatd, whose password hashes are rate-limited.
//
//	bench/peer.sh /tmp/mm
//	go run ./bench/peer -chatd /tmp/chatd -mattermost /tmp/mm -dsn postgres://... -rounds 5
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"time"
)

// config is the command's flags.
type config struct {
	chatd, chatdAlt                string
	mattermost, mattermostBin      string
	dsn, chatdStore                string
	skipPeer, floor                bool
	rounds                         int
	users, big, listeners, senders int
	posts, reactions               int
	listenMessages                 int
	listenGap                      time.Duration
	reads                          int
	growTo                         int
	perf, perfWorkload             string
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("peer", flag.ContinueOnError)
	c := &config{}
	fs.StringVar(&c.chatd, "chatd", "", "path of the chatd binary (required)")
	fs.StringVar(&c.chatdAlt, "chatd-alt", "", "a second chatd binary, measured beside the first on the same stores (a change against its base)")
	fs.StringVar(&c.mattermost, "mattermost", "", "directory of the Mattermost server's source snapshot (v5.36.1); its binary is built into bin/mattermost there when missing")
	fs.StringVar(&c.mattermostBin, "mattermost-bin", "", "Mattermost binary already built (default DIR/bin/mattermost of -mattermost)")
	fs.StringVar(&c.dsn, "dsn", "", "PostgreSQL server (a DSN of one of its databases, as a superuser); each server gets a database of its own (required)")
	fs.StringVar(&c.chatdStore, "chatd-store", "both", "chatd's store: sqlite, postgres or both")
	fs.BoolVar(&c.skipPeer, "skip-peer", false, "measure chatd alone (to try the workloads without the peer)")
	fs.BoolVar(&c.floor, "floor", false, "also measure the long-poll floor, a server that only answers long-polls (the listeners' workload alone; floor.go)")
	fs.IntVar(&c.rounds, "rounds", 5, "rounds; the table gives the medians")
	fs.IntVar(&c.users, "users", 1000, "users of each server")
	fs.IntVar(&c.big, "big", 1000, "members of the big channel (the first users)")
	fs.IntVar(&c.listeners, "listeners", 200, "connected members of the listening channel")
	fs.IntVar(&c.senders, "senders", 8, "members posting at the same time")
	fs.IntVar(&c.posts, "posts", 400, "messages per posting workload per round")
	fs.IntVar(&c.reactions, "reactions", 400, "reactions per round")
	fs.IntVar(&c.listenMessages, "listen-messages", 100, "messages to the listeners per round")
	fs.DurationVar(&c.listenGap, "listen-gap", 50*time.Millisecond, "pause after every listener has a message, before the next")
	fs.IntVar(&c.reads, "reads", 20, "times each read is timed per round")
	fs.IntVar(&c.growTo, "grow-to", 0, "after the rounds, grow every server from -users to this many users (0: skip)")
	fs.StringVar(&c.perf, "perf", "", "directory to write, with perf record, a CPU profile of each server's process while it posts to the big channel in the first round")
	fs.StringVar(&c.perfWorkload, "perf-workload", "big", "the workload -perf profiles: big (posting to the big channel) or listen (send→delivery)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case c.chatd == "":
		return nil, fmt.Errorf("-chatd is required")
	case c.dsn == "":
		return nil, fmt.Errorf("-dsn is required (bench/peer.sh starts a throwaway server)")
	case c.mattermost == "" && c.mattermostBin == "" && !c.skipPeer:
		return nil, fmt.Errorf("-mattermost or -mattermost-bin is required")
	case c.perfWorkload != "big" && c.perfWorkload != "listen":
		return nil, fmt.Errorf("-perf-workload: %q is not big or listen", c.perfWorkload)
	case !slices.Contains([]string{"sqlite", "postgres", "both"}, c.chatdStore):
		return nil, fmt.Errorf("-chatd-store: %q is not sqlite, postgres or both", c.chatdStore)
	case c.big > c.users || c.listeners > c.users || c.senders >= smallMembers:
		return nil, fmt.Errorf("-big and -listeners must be at most -users, -senders less than %d", smallMembers)
	case c.growTo != 0 && c.growTo <= c.users:
		return nil, fmt.Errorf("-grow-to must be more than -users")
	}
	// Each sender reacts to as many of the round's small-channel messages.
	c.reactions = min(c.reactions, c.posts/c.senders*c.senders)
	return c, nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		serveFloor(os.Args[2:]) // started by -floor
		return
	}
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(2)
	}
	if err := run(c); err != nil {
		log.Fatal(err)
	}
}

func run(c *config) error {
	ctx := context.Background()
	dbs, err := newDatabases(ctx, c.dsn)
	if err != nil {
		return err
	}
	defer dbs.close(ctx)
	logf("load average at the start: %s", loadAverage())

	var targets []target
	defer func() {
		for _, t := range targets {
			t.Stop()
		}
	}()
	if !c.skipPeer {
		bin, err := mattermostBinary(c.mattermost, c.mattermostBin)
		if err != nil {
			return err
		}
		t, err := startMattermost(ctx, bin, c.mattermost, dbs)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	for _, store := range []string{"sqlite", "postgres"} {
		if c.chatdStore != store && c.chatdStore != "both" {
			continue
		}
		for _, bin := range []string{c.chatd, c.chatdAlt} {
			if bin == "" {
				continue
			}
			t, err := startChatd(ctx, bin, store, dbs)
			if err != nil {
				return err
			}
			if bin == c.chatdAlt {
				t.name += " (alt)"
			}
			targets = append(targets, t)
		}
	}
	if c.floor {
		t, err := startFloor()
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	sh := shape{users: c.users, big: c.big, listeners: c.listeners, sessions: max(c.listeners, smallMembers)}
	for _, t := range targets {
		start := time.Now()
		if err := t.Setup(sh); err != nil {
			return fmt.Errorf("%s: setup: %w", t.Name(), err)
		}
		logf("%s: set up in %v", t.Name(), time.Since(start).Round(time.Second))
	}

	results := make([][]result, len(targets)) // by target, then round
	for r := range c.rounds {
		for k := range targets {
			i := (k + r) % len(targets)
			t := targets[i]
			res, err := runRound(c, t, r)
			if err != nil {
				return fmt.Errorf("%s: round %d: %w", t.Name(), r+1, err)
			}
			logf("round %d, %s: %s", r+1, t.Name(), res)
			results[i] = append(results[i], res)
		}
	}
	var grown []float64
	if c.growTo > 0 {
		if grown, err = grow(c, targets); err != nil {
			return err
		}
	}
	logf("load average at the end: %s", loadAverage())

	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name()
	}
	fmt.Print(table(c, names, results, grown, !c.skipPeer))
	return nil
}

// logf writes a progress line to stderr, the table going to stdout.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// loadAverage returns the machine's load averages over 1, 5 and 15
// minutes, which say how much else was running.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
