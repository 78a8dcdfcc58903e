package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// row is one line of the table: the metrics it shows, how to write them,
// and whether a larger value is better.
type row struct {
	label   func(c *config) string
	metrics []string
	// format writes one server's medians of the row's metrics.
	format       func(v []float64) string
	higherBetter bool
}

var rows = []row{
	{func(c *config) string {
		return fmt.Sprintf("post to a channel of %s members, %d senders: msg/s, p99", thousands(c.big), c.senders)
	}, []string{bigRate, bigP99}, func(v []float64) string { return perSecond(v[0], " msg/s") + ", p99 " + ms(v[1]) }, true},
	{func(c *config) string {
		return fmt.Sprintf("server CPU per post, %s members (+ in PostgreSQL)", thousands(c.big))
	}, []string{bigCPU, bigDBCPU}, cpuCell, false},
	{func(c *config) string {
		return fmt.Sprintf("post to a channel of %d members, %d senders", smallMembers, c.senders)
	}, []string{smallRate}, func(v []float64) string { return perSecond(v[0], " msg/s") }, true},
	{func(c *config) string {
		return fmt.Sprintf("server CPU per post, %d members (+ in PostgreSQL)", smallMembers)
	},
		[]string{smallCPU, smallDBCPU}, cpuCell, false},
	{func(c *config) string { return fmt.Sprintf("reactions, %d users", c.senders) },
		[]string{reactRate}, func(v []float64) string { return perSecond(v[0], "/s") }, true},
	{func(c *config) string {
		return fmt.Sprintf("%d messages to %d connected listeners, send→delivery p50", c.listenMessages, c.listeners)
	}, []string{listenP50}, func(v []float64) string { return ms(v[0]) }, false},
	{func(c *config) string { return "the same, p99" },
		[]string{listenP99}, func(v []float64) string { return ms(v[0]) }, false},
	{func(c *config) string { return "server CPU per message to the listeners (+ in PostgreSQL)" },
		[]string{listenCPU, listenDBCPU}, cpuCell, false},
	{func(c *config) string { return "the listeners' own CPU per message (this program's clients)" },
		[]string{listenOwnCPU}, func(v []float64) string { return ms(v[0]) }, false},
	{func(c *config) string { return fmt.Sprintf("list %s users", thousands(c.users)) },
		[]string{usersMillis}, func(v []float64) string { return ms(v[0]) }, false},
	{func(c *config) string {
		return fmt.Sprintf("newest 50 messages of the %s-member channel", thousands(c.big))
	},
		[]string{newestMillis}, func(v []float64) string { return ms(v[0]) }, false},
}

var growRow = row{func(c *config) string {
	return fmt.Sprintf("growing from %s to %s users by API", thousands(c.users), thousands(c.growTo))
}, []string{growSeconds}, func(v []float64) string { return fmt.Sprintf("%.0f s", v[0]) }, false}

func cpuCell(v []float64) string {
	if v[1] == 0 || math.IsNaN(v[1]) {
		return ms(v[0])
	}
	return fmt.Sprintf("%s + %s", ms(v[0]), ms(v[1]))
}

// table writes the Markdown table: for each row, each server's medians over
// the rounds and, when the first server is the peer, each chatd's speed
// against it, the median of the rounds' ratios, written so that more than
// 1 means chatd is ahead (rates: chatd / peer; times: peer / chatd). A CPU
// row's ratio counts the database server's CPU with the server's. results
// are by server, then round; grown, when not nil, is each server's growth
// time.
func table(c *config, names []string, results [][]result, grown []float64, peer bool) string {
	var b strings.Builder
	b.WriteString("| workload |")
	for i, n := range names {
		b.WriteString(" " + n + " |")
		if peer && i > 0 {
			b.WriteString(" " + n + " / peer |")
		}
	}
	b.WriteString("\n|---|")
	for i := range names {
		b.WriteString("---|")
		if peer && i > 0 {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	if c.rounds > 0 {
		for _, r := range rows {
			writeRow(&b, c, r, results, peer)
		}
	}
	if grown != nil {
		byServer := make([][]result, len(grown))
		for i, g := range grown {
			byServer[i] = []result{{growSeconds: g}}
		}
		writeRow(&b, c, growRow, byServer, peer)
	}
	return b.String()
}

func writeRow(b *strings.Builder, c *config, r row, results [][]result, peer bool) {
	fmt.Fprintf(b, "| %s |", r.label(c))
	for i := range results {
		v := make([]float64, len(r.metrics))
		for k, m := range r.metrics {
			v[k] = median(values(results[i], m))
		}
		b.WriteString(" " + r.format(v) + " |")
		if peer && i > 0 {
			fmt.Fprintf(b, " %s |", ratioCell(median(speedRatios(r, results[0], results[i]))))
		}
	}
	b.WriteString("\n")
}

// speedRatios returns, round by round, how many times faster the server of
// results is than the peer on the row's first metric (the sum of its
// metrics, for CPU times). Rounds pair up in order.
func speedRatios(r row, peer, results []result) []float64 {
	var out []float64
	for k := range min(len(peer), len(results)) {
		p, s := 0.0, 0.0
		if r.higherBetter {
			p, s = peer[k][r.metrics[0]], results[k][r.metrics[0]]
		} else {
			for _, m := range r.metrics {
				if m == bigP99 {
					continue
				}
				p += peer[k][m]
				s += results[k][m]
			}
		}
		if p == 0 || s == 0 {
			continue
		}
		if r.higherBetter {
			out = append(out, s/p)
		} else {
			out = append(out, p/s)
		}
	}
	return out
}

func ratioCell(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	if x >= 1 {
		return fmt.Sprintf("**%.2fx**", x)
	}
	return fmt.Sprintf("%.2fx", x)
}

// values returns metric m of every round's result.
func values(rs []result, m string) []float64 {
	var out []float64
	for _, r := range rs {
		if v, ok := r[m]; ok {
			out = append(out, v)
		}
	}
	return out
}

// median returns the median of xs, NaN when there is none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ms writes a time in milliseconds with two or three significant digits.
// perSecond writes a rate, or "—" for a server that did not run the
// workload (the long-poll floor runs one).
func perSecond(x float64, unit string) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.0f%s", x, unit)
}

func ms(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x >= 1000:
		return fmt.Sprintf("%.2f s", x/1000)
	case x >= 100:
		return fmt.Sprintf("%.0f ms", x)
	case x >= 10:
		return fmt.Sprintf("%.1f ms", x)
	default:
		return fmt.Sprintf("%.2f ms", x)
	}
}

// thousands writes n with a thin space between thousands, as BENCHMARKS.md
// does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}
