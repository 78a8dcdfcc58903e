package sqlite

import (
	"slices"
	"testing"

	"github.com/teamchat/chat/storage"
)

// TestRowSetWeight: a set whose values weigh more than one keeps at most
// maxCachedWeight of them, starting over when a value would take it
// beyond, and keeps no value heavier than that alone; writes and
// replacements give their weight back.
func TestRowSetWeight(t *testing.T) {
	s := rowSet[int, []int]{clone: slices.Clone[[]int], weigh: func(v []int) int { return len(v) }}
	s.reset()
	half := make([]int, maxCachedWeight/2)
	s.put(1, half)
	s.put(2, half[:len(half)-1])
	if len(s.rows) != 2 || s.weight != maxCachedWeight-1 {
		t.Fatalf("after two puts: %d rows weighing %d, want 2 weighing %d", len(s.rows), s.weight, maxCachedWeight-1)
	}
	s.put(2, half[:len(half)-2]) // a replacement gives the old weight back
	if s.weight != maxCachedWeight-2 {
		t.Errorf("after a replacement: weight %d, want %d", s.weight, maxCachedWeight-2)
	}
	s.put(3, make([]int, 3)) // beyond: the set starts over
	if _, ok := s.get(1); ok || len(s.rows) != 1 || s.weight != 3 {
		t.Errorf("after going beyond: %d rows weighing %d, row 1 kept %v; want only row 3, weighing 3", len(s.rows), s.weight, ok)
	}
	s.put(4, make([]int, maxCachedWeight+1))
	if _, ok := s.get(4); ok || s.weight != 3 {
		t.Errorf("a value heavier than the bound was kept (weight %d)", s.weight)
	}
	s.endTx()
	s.write(3)
	if len(s.rows) != 0 || s.weight != 0 {
		t.Errorf("after writing the last row: %d rows weighing %d, want none", len(s.rows), s.weight)
	}
}

// TestRowCacheListsWeighed: the cache's sets of lists keep no list beyond
// the weight bound (4 096 messages of 10 000 recipients would otherwise be
// 980 MB).
func TestRowCacheListsWeighed(t *testing.T) {
	var c rowCache
	c.empty()
	c.recipients.put(1, make([]storage.UserMessage, maxCachedWeight+1))
	if _, ok := c.recipients.get(1); ok {
		t.Error("a message's recipients beyond the weight bound were kept")
	}
	c.subscribers.put(1, activeSubscribers{userIDs: make([]int64, maxCachedWeight+1)})
	if _, ok := c.subscribers.get(1); ok {
		t.Error("a channel's subscribers beyond the weight bound were kept")
	}
	c.recipients.put(2, make([]storage.UserMessage, 3))
	if _, ok := c.recipients.get(2); !ok || c.recipients.weight != 3 {
		t.Errorf("three recipients: kept %v, weight %d; want kept, 3", ok, c.recipients.weight)
	}
}
