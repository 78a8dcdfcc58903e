package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPIKeysSealedOnDisk checks chatd's API key secret: created once in
// the data directory, readable by its owner alone, the same at every
// start, and no key readable in the database files; a start with another
// secret is refused before it serves.
func TestAPIKeysSealedOnDisk(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := run(context.Background(), []string{"create-org", "--data", dir, "--name", "Acme",
		"--owner-email", "boss@acme.example", "--owner-name", "The Boss", "--host", "127.0.0.1"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var org struct {
		Email  string `json:"email"`
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(out.Bytes(), &org); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, apiKeySecretFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the secret file has mode %v, want 0600", info.Mode().Perm())
	}
	secret, err := os.ReadFile(filepath.Join(dir, apiKeySecretFile))
	if err != nil {
		t.Fatal(err)
	}

	s := startServe(t, "--data", dir, "--listen", "127.0.0.1:0")
	addr := s.addr(t)
	if status, _ := getUsers(t, addr, org.Email, org.APIKey); status != http.StatusOK {
		t.Errorf("the key of create-org: status %d", status)
	}
	s.shutdown(t)
	files, _ := filepath.Glob(filepath.Join(dir, dbFile+"*"))
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(org.APIKey)) {
			t.Errorf("%s holds the API key readable", f)
		}
	}
	if again, _ := os.ReadFile(filepath.Join(dir, apiKeySecretFile)); !bytes.Equal(again, secret) {
		t.Error("the secret changed between starts")
	}

	var stderr bytes.Buffer
	err = run(context.Background(), []string{"serve", "--data", dir, "--listen", "127.0.0.1:0",
		"--api-key-secret", "another secret"}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "sealed under another secret") {
		t.Errorf("serve with another secret: %v, want a refusal", err)
	}
}
