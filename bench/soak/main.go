// Command soak measures how well a running chatd shields its normal
// clients from hostile ones (issue 21). It starts the given chatd binary on
// a fresh data directory (SQLite, or PostgreSQL with -dsn), sets up an
// organization, and then alternates two phases of equal length, -rounds
// times each:
//
//   - alone: the normal clients only. Each of -normal members sends a
//     message to its channel, reads the newest 20 messages of it, and
//     pauses about -think, while it keeps a long-poll GET /events open on
//     its own queue;
//   - mixed: the same normal traffic, plus hostile members at the same time:
//     one registers event queues back to back (past the per-user cap, so
//     the oldest are dropped, and never reads them); one sends -long
//     characters of words that every one of -linkifiers linkifiers matches,
//     to a channel and in direct messages to the first, back to back; one
//     keeps -trickles uploads and downloads open on raw TCP connections,
//     sending or reading a byte every -trickle-gap; and -login-rate
//     rejected logins a second (wrong passwords of real accounts, and
//     unknown accounts) go to POST /fetch_api_key. -hostile picks some of
//     them, to see what each costs. The hostile clients wait out their
//     429s: what is measured is what the server's limits leave to them.
//
// It prints, per phase, the normal requests' (sends and reads) p50 and p99
// latency, the delivery latency of their messages to the channel's queues,
// and the normal clients' errors; then the medians over the rounds, the
// ratio p99(mixed)/p99(alone) of each round (goal: at most 2) and chatd's
// peak RSS (VmHWM) after each phase, so that growth from round to round
// shows. bench/soak.sh builds chatd and runs it.
//
//	go run ./bench/soak -chatd /path/to/chatd
//	go run ./bench/soak -chatd /path/to/chatd -rounds 2 -phase 15s
//	go run ./bench/soak -chatd /path/to/chatd -dsn postgres://...
package main

import (
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/teamchat/chat/bench/internal/chatdproc"
)

// config is the command's flags.
type config struct {
	chatd, dsn              string
	rateLimit               int
	rounds                  int
	phase, settle           time.Duration
	normal, channels        int
	think                   time.Duration
	long, linkifiers        int
	trickles                int
	trickleGap              time.Duration
	loginRate, loginWorkers int
	fileMiB                 int
	// hostile is the kinds of hostile clients of the mixed phases.
	hostile map[string]bool
}

// hostileKinds are the hostile clients, by the names of -hostile.
var hostileKinds = []string{"queues", "long", "transfers", "logins"}

func main() {
	var c config
	flag.StringVar(&c.chatd, "chatd", "", "path of the chatd binary (required)")
	flag.StringVar(&c.dsn, "dsn", "", "PostgreSQL database for chatd --store postgres (default: SQLite in a temporary directory)")
	flag.IntVar(&c.rateLimit, "rate-limit", 200, "chatd --rate-limit: requests per minute per user (and its per-address and per-login budgets); 0 turns them off")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds, each one phase alone and one mixed")
	flag.DurationVar(&c.phase, "phase", 30*time.Second, "length of each phase")
	flag.DurationVar(&c.settle, "settle", 3*time.Second, "pause between phases, for the hostile connections to close")
	flag.IntVar(&c.normal, "normal", 32, "normal members")
	flag.IntVar(&c.channels, "channels", 8, "channels the normal members are spread over")
	flag.DurationVar(&c.think, "think", 3*time.Second, "mean pause of a normal member between its send-and-read cycles")
	flag.IntVar(&c.long, "long", 10000, "characters of each hostile long message")
	flag.IntVar(&c.linkifiers, "linkifiers", 100, "linkifiers of the organization, every one matching every word of a long message (chat.MaxLinkifiers is 100)")
	flag.IntVar(&c.trickles, "trickles", 12, "slow transfers the hostile member keeps open, half uploads and half downloads (8 are allowed at once)")
	flag.DurationVar(&c.trickleGap, "trickle-gap", 3*time.Second, "time between two bytes of a slow transfer")
	flag.IntVar(&c.loginRate, "login-rate", 15, "rejected logins per second")
	flag.IntVar(&c.loginWorkers, "login-workers", 4, "connections the rejected logins are sent on")
	flag.IntVar(&c.fileMiB, "file-mib", 16, "size of the file the slow downloads fetch, in MiB (larger than the socket buffers)")
	hostile := flag.String("hostile", strings.Join(hostileKinds, ","), "the hostile clients of the mixed phases, some of: "+strings.Join(hostileKinds, ", "))
	flag.Parse()
	c.hostile = map[string]bool{}
	for k := range strings.SplitSeq(*hostile, ",") {
		if k = strings.TrimSpace(k); k != "" {
			if !slices.Contains(hostileKinds, k) {
				log.Fatalf("unknown hostile client %q (want some of %s)", k, strings.Join(hostileKinds, ", "))
			}
			c.hostile[k] = true
		}
	}
	if c.chatd == "" || c.normal < 1 || c.channels < 1 || c.rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); err != nil {
		log.Fatal(err)
	}
}

// phaseResult is what one phase measured.
type phaseResult struct {
	mixed     bool
	requests  []time.Duration // the normal clients' sends and reads
	delivery  []time.Duration // send start to the event's receipt, per receiving queue
	errors    map[string]int  // the normal clients' failures, by kind
	hostile   map[string]int  // what the hostile clients got, by outcome
	rss, peak int64           // chatd's RSS at the phase's end and its peak so far
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "chatd-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := []string{"--rate-limit", fmt.Sprint(c.rateLimit)}
	store := "SQLite"
	if c.dsn != "" {
		args = append(args, "--store", "postgres", "--dsn", c.dsn)
		store = "PostgreSQL"
	}
	p, err := chatdproc.Start(c.chatd, dir, args...)
	if err != nil {
		return err
	}
	defer p.Stop()

	start := time.Now()
	s, err := setup(c, p)
	if err != nil {
		return fmt.Errorf("setup: %w (chatd log: %s)", err, p.Log)
	}
	defer s.stop()
	idle, peak, err := chatdproc.Memory(p.PID)
	if err != nil {
		return err
	}
	fmt.Printf("setup in %v: %d normal members in %d channels, %d linkifiers; chatd RSS %s, peak %s\n",
		time.Since(start).Round(time.Second), c.normal, c.channels, c.linkifiers, chatdproc.MiB(idle), chatdproc.MiB(peak))

	var results []phaseResult
	for round := 1; round <= c.rounds; round++ {
		for _, mixed := range []bool{false, true} {
			r := s.phase(mixed)
			r.rss, r.peak, err = chatdproc.Memory(p.PID)
			if err != nil {
				return err
			}
			results = append(results, r)
			fmt.Printf("round %d %-5s %s\n", round, phaseName(mixed), r.line())
		}
	}
	report(c, store, results)
	return nil
}

func phaseName(mixed bool) string {
	if mixed {
		return "mixed"
	}
	return "alone"
}

// percentile returns the p-quantile of d (sorted in place), nearest rank.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(p*float64(len(d))+0.5) - 1
	return d[min(max(i, 0), len(d)-1)]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func (r phaseResult) errorCount() int {
	n := 0
	for _, v := range r.errors {
		n += v
	}
	return n
}

// line is the one-line summary of a phase.
func (r phaseResult) line() string {
	s := fmt.Sprintf("requests %d: p50 %s p99 %s; deliveries %d: p50 %s p99 %s; errors: %s; RSS %s, peak %s",
		len(r.requests), ms(percentile(r.requests, 0.5)), ms(percentile(r.requests, 0.99)),
		len(r.delivery), ms(percentile(r.delivery, 0.5)), ms(percentile(r.delivery, 0.99)),
		counts(r.errors), chatdproc.MiB(r.rss), chatdproc.MiB(r.peak))
	if r.mixed {
		s += "\n              hostile: " + counts(r.hostile)
	}
	return s
}

// report prints the medians over the rounds and the ratios, as a table.
func report(c config, store string, results []phaseResult) {
	var p50, p99, d50, d99 [2][]float64
	var ratios, dratios []float64
	var errs [2]int
	var alone phaseResult
	hostile := map[string]int{}
	for _, r := range results {
		k := 0
		if r.mixed {
			k = 1
		}
		p50[k] = append(p50[k], msf(percentile(r.requests, 0.5)))
		p99[k] = append(p99[k], msf(percentile(r.requests, 0.99)))
		d50[k] = append(d50[k], msf(percentile(r.delivery, 0.5)))
		d99[k] = append(d99[k], msf(percentile(r.delivery, 0.99)))
		errs[k] += r.errorCount()
		for kind, n := range r.hostile {
			hostile[kind] += n
		}
		if !r.mixed {
			alone = r
			continue
		}
		ratios = append(ratios, msf(percentile(r.requests, 0.99))/msf(percentile(alone.requests, 0.99)))
		dratios = append(dratios, msf(percentile(r.delivery, 0.99))/msf(percentile(alone.delivery, 0.99)))
	}
	last := results[len(results)-1]
	var peaks []string
	for _, r := range results {
		if r.mixed {
			peaks = append(peaks, chatdproc.MiB(r.peak))
		}
	}
	fmt.Printf("\nsoak, %s, chatd --rate-limit %d, hostile %s, %d rounds of %v alone + %v mixed (medians over the rounds):\n\n",
		store, c.rateLimit, strings.Join(slices.Sorted(maps.Keys(c.hostile)), ","), c.rounds, c.phase, c.phase)
	fmt.Println("| normal clients | alone | mixed | mixed / alone |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| requests (send, read) p50 | %.1f ms | %.1f ms | %.2f |\n", median(p50[0]), median(p50[1]), median(p50[1])/median(p50[0]))
	fmt.Printf("| requests (send, read) p99 | %.1f ms | %.1f ms | %.2f (per round: %s; goal ≤ 2, %s) |\n",
		median(p99[0]), median(p99[1]), median(ratios), floats(ratios), met(median(ratios) <= 2))
	fmt.Printf("| delivery to the channel's queues p50 | %.1f ms | %.1f ms | %.2f |\n", median(d50[0]), median(d50[1]), median(d50[1])/median(d50[0]))
	fmt.Printf("| delivery p99 | %.1f ms | %.1f ms | %.2f (per round: %s) |\n", median(d99[0]), median(d99[1]), median(dratios), floats(dratios))
	fmt.Printf("| errors (all phases) | %d | %d | |\n", errs[0], errs[1])
	fmt.Printf("| chatd peak RSS (VmHWM) after each mixed phase | | %s | |\n", strings.Join(peaks, ", "))
	fmt.Printf("| chatd RSS at the end | | %s | |\n", chatdproc.MiB(last.rss))
	fmt.Printf("\nhostile clients, all mixed phases: %s\n", counts(hostile))
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func floats(v []float64) string {
	var parts []string
	for _, f := range v {
		parts = append(parts, fmt.Sprintf("%.2f", f))
	}
	return strings.Join(parts, ", ")
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
