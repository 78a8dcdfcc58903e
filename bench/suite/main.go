// Command suite runs every benchmark of BENCHMARKS.md and prints one table:
// each measurement as a ratio against its baseline measured in the same
// run, its goal, and whether the goal is met. Run it from the repository's
// root:
//
//	go run ./bench/suite            # everything, about 8 minutes
//	go run ./bench/suite -only users,writes
//
// The Go benchmarks alternate the measured operation with its baseline and
// report medians of at least 20 pairs; the load script (bench/run.sh)
// drives a running chatd with hey from another process. The output of
// every command goes to stderr as it runs, the table to stdout.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// metrics are what the commands of one group printed: numbers and texts
// by benchmark (without its GOMAXPROCS suffix) and unit, and the units in
// the order they came.
type metrics struct {
	nums  map[string]map[string]float64
	texts map[string]string
	units map[string][]string
}

func newMetrics() *metrics {
	return &metrics{nums: map[string]map[string]float64{}, texts: map[string]string{}, units: map[string][]string{}}
}

// row is one line of the table.
type row struct {
	measurement, result, goal string
	// met is "yes", "no" or "" (nothing to meet).
	met string
}

// group is a set of measurements that one or more commands produce.
type group struct {
	name string
	cmds [][]string
	rows func(m *metrics) []row
}

func main() {
	only := flag.String("only", "", "comma-separated groups to run (users, scale, memory, subscribe, writes, load, events, queries); all when empty")
	flag.Parse()
	selected := map[string]bool{}
	for _, g := range strings.Split(*only, ",") {
		if g = strings.TrimSpace(g); g != "" {
			selected[g] = true
		}
	}
	var table []row
	failed := false
	for _, g := range groups {
		if len(selected) > 0 && !selected[g.name] {
			continue
		}
		m := newMetrics()
		ok := true
		for _, cmd := range g.cmds {
			if err := run(cmd, m); err != nil {
				fmt.Fprintf(os.Stderr, "suite: %s: %v\n", strings.Join(cmd, " "), err)
				ok, failed = false, true
			}
		}
		if !ok {
			table = append(table, row{measurement: g.name, result: "failed to run (see above)", met: "no"})
			continue
		}
		table = append(table, g.rows(m)...)
	}
	printTable(os.Stdout, table)
	if failed {
		os.Exit(1)
	}
}

var groups = []group{
	{
		name: "users",
		cmds: [][]string{goBench("BenchmarkGetUsers$", "30x", "./httpserver")},
		rows: func(m *metrics) []row {
			var out []row
			for _, b := range []struct{ store, goal string }{{"memory", "1.3"}, {"sqlite", "3"}} {
				for _, n := range []string{"1000", "10000", "100000"} {
					v := m.get("BenchmarkGetUsers/"+b.store+"/"+n, "ratio-median")
					out = append(out, atMost(fmt.Sprintf("`GET /users`, %s users, %s / `encoding/json`", thousands(n), b.store), v, b.goal))
				}
				small := m.get("BenchmarkGetUsers/"+b.store+"/1000", "get-users-ns/user")
				large := m.get("BenchmarkGetUsers/"+b.store+"/100000", "get-users-ns/user")
				r := atMost(fmt.Sprintf("`GET /users`, %s, cost per user at 100 000 / at 1 000 (%.0f / %.0f ns)", b.store, large, small),
					large/small, "1.5")
				r.goal = "linear (≤ 1.5)"
				out = append(out, r)
			}
			return out
		},
	},
	{
		name: "scale",
		cmds: [][]string{goBench("BenchmarkSingleUserScale", "41x", "./httpserver")},
		rows: func(m *metrics) []row {
			var out []row
			for _, op := range []struct{ name, label string }{{"lookup", "`GET /users/{id}`"}, {"status", "`POST /users/me/status`"}} {
				for _, store := range []string{"memory", "sqlite"} {
					out = append(out, atMost(fmt.Sprintf("%s, 100 000 / 1 000 users, %s", op.label, store),
						m.get("BenchmarkSingleUserScale/"+store+"/"+op.name, "ratio-100k/1k"), "1.5"))
				}
			}
			return out
		},
	},
	{
		name: "memory",
		cmds: [][]string{goBench("BenchmarkStoreMemory", "1x", "./httpserver")},
		rows: func(m *metrics) []row {
			const b = "BenchmarkStoreMemory"
			return []row{
				atMost(fmt.Sprintf("memory store, heap per user (%.0f B) / record size", m.get(b, "B/user")), m.get(b, "user-ratio"), "2"),
				atMost(fmt.Sprintf("memory store, heap per subscription (%.0f B) / record size", m.get(b, "B/subscription")),
					m.get(b, "subscription-ratio"), "4"),
			}
		},
	},
	{
		name: "subscribe",
		cmds: [][]string{goBench("BenchmarkSubscribe1000x100", "1x", ".")},
		rows: func(m *metrics) []row {
			const b = "BenchmarkSubscribe1000x100"
			return []row{
				atMost(fmt.Sprintf("subscribe 1 000 × 100, service / raw SQLite inserts of the subscriptions (%.0f / %.0f ms)",
					m.get(b, "service-ms"), m.get(b, "raw-ms")), m.get(b, "service/raw"), "2"),
				atMost(fmt.Sprintf("subscribe 1 000 × 100, service / raw SQLite inserts of every row it writes (%.0f / %.0f ms)",
					m.get(b, "service-ms"), m.get(b, "raw-rows-ms")), m.get(b, "service/raw-rows"), "2"),
			}
		},
	},
	{
		name: "writes",
		cmds: [][]string{goBench("BenchmarkHTTPWrites", "20x", "./httpserver")},
		rows: func(m *metrics) []row {
			var out []row
			for _, w := range []struct{ name, label string }{{"reactions", "reactions"}, {"status", "status writes"}} {
				b := "BenchmarkHTTPWrites/" + w.name
				out = append(out, slowerBaseline(fmt.Sprintf("%s over HTTP (Go client, 8 connections): %.0f/s, bare %.0f/s, upsert %.0f/s",
					w.label, m.get(b, "writes/s"), m.get(b, "bare/s"), m.get(b, "upsert/s")),
					m.get(b, "ratio-vs-bare"), m.get(b, "ratio-vs-upsert")))
			}
			return out
		},
	},
	{
		name: "load",
		cmds: [][]string{{"bash", "bench/run.sh"}},
		rows: func(m *metrics) []row {
			const b = "run.sh"
			return []row{slowerBaseline(fmt.Sprintf("status writes over HTTP to chatd (hey, 8 connections): %.0f/s",
				m.get(b, "writes/s")), m.get(b, "ratio-vs-bare"), m.get(b, "ratio-vs-upsert"))}
		},
	},
	{
		name: "events",
		cmds: [][]string{{"go", "run", "./bench/eventload", "-queues", "1000", "-events", "30", "-gap", "200ms"}},
		rows: func(m *metrics) []row {
			const b = "eventload"
			return []row{{
				measurement: "event delivery, 1 000 long-polling queues × 30 events",
				result: fmt.Sprintf("%.0f of %.0f delivered; latency p50 %s, p90 %s, p99 %s, max %s; %.1f KiB per queue with its long-poll held",
					m.get(b, "deliveries"), m.get(b, "want"), m.getText(b, "p50"), m.getText(b, "p90"), m.getText(b, "p99"),
					m.getText(b, "max"), m.get(b, "KiB/queue")),
				goal: "every event delivered",
				met:  yes(m.get(b, "deliveries") == m.get(b, "want")),
			}}
		},
	},
	{
		name: "queries",
		cmds: [][]string{{"go", "test", "-count=1", "-run", "TestQueriesPerRequest", "-v", "./httpserver"}},
		rows: func(m *metrics) []row {
			var parts []string
			for _, name := range m.order("queries") {
				parts = append(parts, fmt.Sprintf("%s %.0f", name, m.get("queries", name)))
			}
			return []row{{
				measurement: "SQL statements per request (pinned in CI; none grows with the organization)",
				result:      strings.Join(parts, ", "),
				goal:        "no per-row queries",
				met:         yes(len(parts) > 0),
			}}
		},
	},
}

// goBench is the command that runs the benchmarks matching pattern.
func goBench(pattern, benchtime, pkg string) []string {
	return []string{"go", "test", "-count=1", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-timeout", "30m", pkg}
}

// run runs cmd with its output copied to stderr, and parses what it
// printed into m.
func run(cmd []string, m *metrics) error {
	fmt.Fprintf(os.Stderr, "\n$ %s\n", strings.Join(cmd, " "))
	c := exec.Command(cmd[0], cmd[1:]...)
	var out bytes.Buffer
	c.Stdout = io.MultiWriter(os.Stderr, &out)
	c.Stderr = os.Stderr
	if err := c.Run(); err != nil {
		return err
	}
	parse(out.String(), m)
	return nil
}

var (
	benchLine  = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+(.*)$`)
	queryLine  = regexp.MustCompile(`^\s+queries_test\.go:\d+: (.+?)\s+(\d+) statements$`)
	loadLine   = regexp.MustCompile(`^status writes, chatd / (bare handler|raw SQLite upsert) \(median\): ([0-9.eE+-]+)$`)
	loadRate   = regexp.MustCompile(`^chatd status writes per second \(median\): ([0-9.eE+-]+)$`)
	eventCount = regexp.MustCompile(`^queues \d+, events \d+, deliveries (\d+) \(want (\d+)\)$`)
	eventLat   = regexp.MustCompile(`^latency p50 (\S+)\s+p90 (\S+)\s+p99 (\S+)\s+max (\S+)$`)
	eventHeap  = regexp.MustCompile(`: ([0-9.]+) KiB$`)
)

// parse reads benchmark result lines, the statement counts of
// TestQueriesPerRequest, and the summaries of bench/run.sh and
// bench/eventload.
func parse(out string, m *metrics) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if g := benchLine.FindStringSubmatch(line); g != nil {
			f := strings.Fields(g[3])
			for i := 0; i+1 < len(f); i += 2 {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil {
					m.set(g[1], f[i+1], v)
				}
			}
		} else if g := queryLine.FindStringSubmatch(line); g != nil {
			v, _ := strconv.ParseFloat(g[2], 64)
			m.set("queries", g[1], v)
		} else if g := loadLine.FindStringSubmatch(line); g != nil {
			v, _ := strconv.ParseFloat(g[2], 64)
			m.set("run.sh", map[string]string{"bare handler": "ratio-vs-bare", "raw SQLite upsert": "ratio-vs-upsert"}[g[1]], v)
		} else if g := loadRate.FindStringSubmatch(line); g != nil {
			v, _ := strconv.ParseFloat(g[1], 64)
			m.set("run.sh", "writes/s", v)
		} else if g := eventCount.FindStringSubmatch(line); g != nil {
			d, _ := strconv.ParseFloat(g[1], 64)
			w, _ := strconv.ParseFloat(g[2], 64)
			m.set("eventload", "deliveries", d)
			m.set("eventload", "want", w)
		} else if g := eventLat.FindStringSubmatch(line); g != nil {
			for i, p := range []string{"p50", "p90", "p99", "max"} {
				if d, err := time.ParseDuration(g[i+1]); err == nil {
					m.setText("eventload", p, d.Round(100*time.Microsecond).String())
				}
			}
		} else if strings.HasPrefix(line, "heap per queue") {
			if g := eventHeap.FindStringSubmatch(line); g != nil {
				v, _ := strconv.ParseFloat(g[1], 64)
				m.set("eventload", "KiB/queue", v)
			}
		}
	}
}

func (m *metrics) set(bench, unit string, v float64) {
	if m.nums[bench] == nil {
		m.nums[bench] = map[string]float64{}
	}
	if _, seen := m.nums[bench][unit]; !seen {
		m.units[bench] = append(m.units[bench], unit)
	}
	m.nums[bench][unit] = v
}

// get is the number, or NaN when the command did not print it.
func (m *metrics) get(bench, unit string) float64 {
	if v, ok := m.nums[bench][unit]; ok {
		return v
	}
	return math.NaN()
}

func (m *metrics) setText(bench, key, v string) { m.texts[bench+"\x00"+key] = v }

func (m *metrics) getText(bench, key string) string {
	if v, ok := m.texts[bench+"\x00"+key]; ok {
		return v
	}
	return "?"
}

func (m *metrics) order(bench string) []string { return m.units[bench] }

// atMost is a row whose ratio must not exceed goal.
func atMost(measurement string, v float64, goal string) row {
	g, _ := strconv.ParseFloat(goal, 64)
	return row{measurement: measurement, result: format(v), goal: "≤ " + goal, met: yes(v <= g)}
}

// slowerBaseline is a row of writes per second, whose goal is 0.3 of the
// slower baseline's rate: the higher of the two ratios.
func slowerBaseline(measurement string, vsBare, vsUpsert float64) row {
	v := max(vsBare, vsUpsert)
	return row{measurement: measurement,
		result: fmt.Sprintf("%.3f of the slower baseline (%.3f of bare, %.3f of upsert)", v, vsBare, vsUpsert),
		goal:   "≥ 0.3", met: yes(v >= 0.3)}
}

func format(v float64) string {
	if math.IsNaN(v) {
		return "missing"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// thousands writes n with thin spaces between thousands, as the table does.
func thousands(n string) string {
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + " " + n[i:]
	}
	return n
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "\nMachine: %d CPUs, %s/%s, %s\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintln(w, "| measurement | result | goal | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.measurement, r.result, r.goal, r.met)
	}
}
