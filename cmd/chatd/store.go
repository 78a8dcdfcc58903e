package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/blobfs"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/sqlite"
)

// storeFlags are the storage settings shared by every command.
type storeFlags struct {
	kind string
	data string
}

func (sf *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.kind, "store", "sqlite", "storage backend: sqlite or memory (memory keeps nothing across restarts)")
	fs.StringVar(&sf.data, "data", "chatd-data", "data directory (SQLite database and uploads)")
}

// dbFile is the SQLite database inside the data directory.
const dbFile = "chat.db"

// open opens the configured store, creating the data directory if needed.
func (sf *storeFlags) open() (chat.Store, error) {
	switch sf.kind {
	case "memory":
		return memory.New(), nil
	case "sqlite":
		if err := os.MkdirAll(sf.data, 0o700); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
		return sqlite.Open(filepath.Join(sf.data, dbFile))
	}
	return nil, fmt.Errorf("unknown store %q (want sqlite or memory)", sf.kind)
}

// uploadsDir is the directory of uploaded files inside the data directory.
const uploadsDir = "uploads"

// blobs returns the store of uploaded files: a directory of the data
// directory with the SQLite store; nil (in memory, like the records) with
// the memory store.
func (sf *storeFlags) blobs() (chat.BlobStore, error) {
	if sf.kind != "sqlite" {
		return nil, nil
	}
	return blobfs.New(filepath.Join(sf.data, uploadsDir))
}
