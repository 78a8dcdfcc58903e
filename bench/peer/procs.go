package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// databases creates a database per server in one PostgreSQL server and
// drops them at the end.
type databases struct {
	admin string // DSN of the server's database given by -dsn
	made  []string
	// postmaster is the PostgreSQL server's main process, or 0 when it is
	// not on this machine or not readable (then no database CPU is
	// reported).
	postmaster int
}

func newDatabases(ctx context.Context, dsn string) (*databases, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	d := &databases{admin: dsn}
	var dir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err == nil {
		d.postmaster = postmasterPID(dir)
	}
	if d.postmaster == 0 {
		logf("the PostgreSQL server's processes are not readable here: no database CPU times")
	}
	return d, nil
}

// postmasterPID reads the main process's ID from the first line of the
// data directory's postmaster.pid.
func postmasterPID(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return pid
}

// create makes a new database named name (with a suffix against earlier
// runs' leftovers) and returns its DSN.
func (d *databases) create(ctx context.Context, name string) (string, error) {
	name = fmt.Sprintf("%s_%d", name, time.Now().UnixNano()%1e9)
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	d.made = append(d.made, name)
	u, err := url.Parse(d.admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// close drops the databases; the servers using them must have stopped.
func (d *databases) close(ctx context.Context) {
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		logf("dropping the databases: %v", err)
		return
	}
	defer conn.Close(ctx)
	for _, name := range d.made {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			logf("dropping %s: %v", name, err)
		}
	}
}

// databaseCPU returns the CPU time of the whole PostgreSQL server: the
// postmaster, its live children (backends, autovacuum, WAL writer, …) and
// the children it has reaped. Both servers' databases live in it, so this
// is one server's only while the other is idle, as it is between workloads;
// an idle server's background work (Mattermost's job schedulers poll their
// tables) is counted too.
func (d *databases) databaseCPU() time.Duration {
	if d.postmaster == 0 {
		return 0
	}
	own, reaped, _, err := procCPU(d.postmaster)
	if err != nil {
		return 0
	}
	total := own + reaped
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == d.postmaster {
			continue
		}
		cpu, _, ppid, err := procCPU(pid)
		if err == nil && ppid == d.postmaster {
			total += cpu
		}
	}
	return total
}

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, 100 on Linux
// on every architecture Go runs on.
const clockTick = 10 * time.Millisecond

// procCPU reads the user and system CPU time of process pid, that of its
// reaped children, and its parent's ID, from /proc/PID/stat.
func procCPU(pid int) (own, reaped time.Duration, ppid int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// counted here start after its closing parenthesis, with field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	n := func(k int) int64 { // field k of stat(5), from 1
		v, _ := strconv.ParseInt(f[k-3], 10, 64)
		return v
	}
	ppid = int(n(4))
	own = time.Duration(n(14)+n(15)) * clockTick
	reaped = time.Duration(n(16)+n(17)) * clockTick
	return own, reaped, ppid, nil
}

// startPerf starts perf record on t's process, sampling its CPU 499 times
// a second with call graphs, into DIR/NAME.perf.data; stop ends it with
// SIGINT, on which perf writes its file.
func startPerf(dir string, t target) (stop func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, strings.ReplaceAll(t.Name(), " ", "-")+".perf.data")
	cmd := exec.Command("perf", "record", "-F", "499", "-g", "-p", strconv.Itoa(t.PID()), "-o", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	time.Sleep(500 * time.Millisecond) // perf attaches
	return func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		logf("%s: CPU profile in %s", t.Name(), out)
	}, nil
}

// ownCPU returns the user and system CPU time this program has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
