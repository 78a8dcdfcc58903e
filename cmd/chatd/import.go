package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/slackimport"
)

// importCmd implements `chatd import slack`.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "slack" {
		return errors.New(`usage: chatd import slack --export FILE.zip [flags] (only "slack" exports are supported)`)
	}
	fs := flag.NewFlagSet("chatd import slack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	export := fs.String("export", "", "Slack workspace export, a zip archive (required)")
	name := fs.String("name", "", `organization name (default "Imported from Slack")`)
	host := fs.String("host", "localhost:9991", "host name (and port) through which clients reach the organization")
	orgURL := fs.String("url", "", "canonical URL of the organization (default http://HOST)")
	report := fs.String("report", "", "file to write every skipped or altered item to, as JSON lines")
	owner := fs.String("owner", "", "email address of the user of the export who becomes owner (required when the export has no active owner or administrator)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if err := required(fs, "export"); err != nil {
		return err
	}
	f, err := os.Open(*export)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	var reportFile *os.File
	if *report != "" {
		// Created first, so that a path that cannot be written fails
		// before the import.
		if reportFile, err = os.Create(*report); err != nil {
			return err
		}
		defer reportFile.Close()
	}
	secret, err := sf.secret()
	if err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	blobs, err := sf.blobs(ctx)
	if err != nil {
		store.Close()
		return err
	}
	svc := chat.New(store, chat.Config{Blobs: blobs, APIKeySecret: secret})
	p := newProgress(stderr)
	res, err := slackimport.Import(ctx, svc, f, info.Size(), slackimport.Options{
		Name: *name, Host: *host, URL: *orgURL, Owner: *owner, Progress: p.update,
	})
	p.finish()
	if err = errors.Join(err, svc.Close()); err != nil {
		if reportFile != nil {
			os.Remove(*report)
		}
		return err
	}
	if reportFile != nil {
		if err := writeReport(reportFile, res.Report); err != nil {
			return fmt.Errorf("the import succeeded, but its report was not written: %w", err)
		}
	}
	return printJSON(stdout, res)
}

// writeReport writes the items of an import's report to f, one JSON
// object a line.
func writeReport(f *os.File, items []slackimport.ReportItem) error {
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, item := range items {
		if err := enc.Encode(item); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// progress shows an import's counts and rate on w: rewritten in place on
// a terminal, otherwise as a line at most every five seconds.
type progress struct {
	w        io.Writer
	terminal bool
	last     time.Time
	line     bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) update(ip slackimport.Progress) {
	interval := 5 * time.Second
	if p.terminal {
		interval = 100 * time.Millisecond
	}
	now := time.Now()
	if ip.Phase == "messages" && now.Sub(p.last) < interval {
		return
	}
	p.last = now
	rate := 0.0
	if s := ip.Elapsed.Seconds(); s > 0 {
		rate = float64(ip.Messages) / s
	}
	text := fmt.Sprintf("import: %s: %d users, %d channels, %d messages (%.0f messages/s, %s)",
		ip.Phase, ip.Users, ip.Channels, ip.Messages, rate, ip.Elapsed.Round(time.Second))
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", text)
		p.line = true
		return
	}
	fmt.Fprintln(p.w, text)
}

// finish ends the line that a terminal shows.
func (p *progress) finish() {
	if p.line {
		fmt.Fprintln(p.w)
	}
}
