package memory_test

import (
	"testing"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
	"github.com/teamchat/chat/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return memory.New() })
}

// TestConformanceRequiredOnly runs the suite on the derivations of the
// optional queries, which package storage offers for backends without
// them.
func TestConformanceRequiredOnly(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return storagetest.RequiredOnly(memory.New()) })
}
