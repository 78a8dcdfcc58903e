package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportSlack(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "export.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"users.json": `[{"id": "U1", "name": "alice", "is_primary_owner": true,
			"profile": {"real_name": "Alice Archer", "email": "alice@example.com"}}]`,
		"channels.json": `[{"id": "C1", "name": "general", "members": ["U1"]}]`,
		"general/2024-01-01.json": `[{"type": "message", "subtype": "channel_join", "user": "U1", "ts": "1704103100.000000", "text": "<@U1> has joined"},
			{"type": "message", "user": "U1", "ts": "1704103200.000100", "text": "hi", "files": [{"id": "F1", "name": "a.txt"}]}]`,
		"__uploads/F1/a.txt": "file body",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	if err := os.WriteFile(export, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var stdout, stderr bytes.Buffer
	report := filepath.Join(dir, "report.jsonl")
	err := run(context.Background(), []string{"import", "slack", "--data", data, "--export", export,
		"--name", "Acme", "--host", "acme.example.com", "--report", report}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	type kindCount struct {
		Count  int    `json:"count"`
		Reason string `json:"reason"`
	}
	var res struct {
		RealmURL string               `json:"realm_url"`
		Users    int                  `json:"users"`
		Messages int                  `json:"messages"`
		Files    int                  `json:"files"`
		Skipped  map[string]kindCount `json:"skipped"`
		Altered  map[string]kindCount `json:"altered"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("output %q: %v", stdout.String(), err)
	}
	event := "channel event (join, leave, rename, pin): the channel's own state shows it"
	if res.RealmURL != "http://acme.example.com" || res.Users != 1 || res.Messages != 1 || res.Files != 1 ||
		len(res.Skipped) != 1 || res.Skipped["channel_event"] != (kindCount{1, event}) || res.Altered == nil || len(res.Altered) != 0 {
		t.Errorf("result = %+v", res)
	}
	// The report names the skipped join.
	written, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"channel_event","action":"skipped","reason":"` + event + `","channel":"general","ts":"1704103100.000000","detail":"channel_join"}` + "\n"
	if string(written) != want {
		t.Errorf("report = %q, want %q", written, want)
	}
	// Not a terminal: plain lines, the last one the final counts.
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "import: done: 1 users, 1 channels, 1 messages (") {
		t.Errorf("last progress line = %q", last)
	}
	if strings.Contains(stderr.String(), "\r") {
		t.Errorf("progress rewrites lines on a non-terminal: %q", stderr.String())
	}
	// The file went to the data directory's uploads.
	var found bool
	filepath.WalkDir(filepath.Join(data, uploadsDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "a.txt" {
			b, _ := os.ReadFile(p)
			found = string(b) == "file body"
		}
		return nil
	})
	if !found {
		t.Error("the carried file is not in the uploads directory")
	}

	// The same host again fails and says why.
	err = run(context.Background(), []string{"import", "slack", "--data", data, "--export", export,
		"--host", "acme.example.com"}, &stdout, &stderr)
	if err == nil || !strings.HasSuffix(err.Error(), "An organization with host acme.example.com already exists") {
		t.Errorf("second import: %v", err)
	}
}

// An export without an owner or administrator is imported with --owner;
// without it, the error names the flag.
func TestImportSlackOwnerFlag(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "export.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"users.json":    `[{"id": "U1", "name": "alice", "profile": {"real_name": "Alice Archer", "email": "alice@example.com"}}]`,
		"channels.json": `[{"id": "C1", "name": "general", "created": "1451606400", "members": ["U1"]}]`,
	} {
		w, _ := zw.Create("export/" + name)
		w.Write([]byte(body))
	}
	zw.Close()
	if err := os.WriteFile(export, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"import", "slack", "--data", data, "--export", export}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "with --owner EMAIL") {
		t.Fatalf("import without an owner: %v", err)
	}
	err = run(context.Background(), []string{"import", "slack", "--data", data, "--export", export, "--owner", "alice@example.com"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("import with --owner: %v\n%s", err, stderr.String())
	}
}
