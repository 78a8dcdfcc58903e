package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/blobfs"
	"github.com/teamchat/chat/storage/blobs3"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/postgres"
	"github.com/teamchat/chat/storage/sqlite"
)

// storeFlags are the storage settings shared by every command.
type storeFlags struct {
	kind string
	data string
	dsn  string
	blob string
	// apiKeySecret is --api-key-secret: empty means the file apiKeySecretFile.
	apiKeySecret string
}

func (sf *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.kind, "store", "sqlite", "storage backend: sqlite, postgres (needs --dsn; several processes may share it) or memory (keeps nothing across restarts)")
	fs.StringVar(&sf.data, "data", "chatd-data", "data directory (SQLite database and uploads; with postgres, uploads only, shared by every process)")
	fs.StringVar(&sf.dsn, "dsn", "", "PostgreSQL database of --store postgres, as postgres://user:password@host:5432/db?sslmode=disable")
	fs.StringVar(&sf.blob, "blob", "", "where uploaded files live: empty for uploads/ in the data directory, or an S3-compatible bucket, "+
		"s3://bucket/prefix?endpoint=host:port&region=R&link=1m (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "+
		"or the AWS shared credentials file; link=0 streams downloads instead of redirecting to presigned URLs)")
	fs.StringVar(&sf.apiKeySecret, "api-key-secret", "", "secret that seals the API keys in the database; give every process of one database the same "+
		"(default: the file "+apiKeySecretFile+" in the data directory, created on the first start)")
}

// apiKeySecretFile holds, in the data directory, the secret that seals API
// keys when --api-key-secret is not given.
const apiKeySecretFile = "api-key-secret"

// secret returns the API key secret: --api-key-secret, else the data
// directory's file, created with a random secret if it does not exist
// (nil for the memory store, whose keys never leave the process).
func (sf *storeFlags) secret() ([]byte, error) {
	if sf.apiKeySecret != "" {
		return []byte(sf.apiKeySecret), nil
	}
	if sf.kind == "memory" {
		return nil, nil
	}
	if err := os.MkdirAll(sf.data, 0o700); err != nil {
		return nil, fmt.Errorf("creating the data directory: %w", err)
	}
	path := filepath.Join(sf.data, apiKeySecretFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createSecretFile(path); err != nil {
			return nil, fmt.Errorf("creating the API key secret: %w", err)
		}
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the API key secret: %w", err)
	}
	secret := bytes.TrimSpace(b)
	if len(secret) == 0 {
		return nil, fmt.Errorf("the API key secret %s is empty", path)
	}
	return secret, nil
}

// createSecretFile writes a random secret to path unless it exists. The
// file appears whole or not at all (a link of a finished file), so that a
// second process starting at once reads either nothing or the secret.
func createSecretFile(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(rand.Text() + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// dbFile is the SQLite database inside the data directory.
const dbFile = "chat.db"

// open opens the configured store, creating the data directory if needed.
func (sf *storeFlags) open(ctx context.Context) (storage.Store, error) {
	switch sf.kind {
	case "memory":
		return memory.New(), nil
	case "sqlite":
		if err := os.MkdirAll(sf.data, 0o700); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
		return sqlite.Open(filepath.Join(sf.data, dbFile))
	case "postgres":
		if sf.dsn == "" {
			return nil, errors.New("--store postgres needs --dsn (or CHATD_DSN)")
		}
		return postgres.Open(ctx, sf.dsn)
	}
	return nil, fmt.Errorf("unknown store %q (want sqlite, postgres or memory)", sf.kind)
}

// uploadsDir is the directory of uploaded files inside the data directory.
const uploadsDir = "uploads"

// blobs returns the store of uploaded files: the S3 bucket of --blob; else
// a directory of the data directory with the SQLite and PostgreSQL stores
// (processes sharing a PostgreSQL database must then share it too, on a
// network file system); else nil (in memory, like the records) with the
// memory store.
func (sf *storeFlags) blobs(ctx context.Context) (chat.BlobStore, error) {
	if sf.blob != "" {
		cfg, err := blobs3.ParseURL(sf.blob)
		if err != nil {
			return nil, fmt.Errorf("--blob: %w", err)
		}
		return blobs3.New(ctx, cfg)
	}
	if sf.kind == "memory" {
		return nil, nil
	}
	return blobfs.New(filepath.Join(sf.data, uploadsDir))
}
