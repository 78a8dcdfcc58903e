package httpserver

import "testing"

// TestTransferSlots: a user has at most maxTransfersPerUser transfers in
// progress, another user has slots of their own, and a release frees one.
func TestTransferSlots(t *testing.T) {
	var slots transferSlots
	var releases []func()
	for i := range maxTransfersPerUser {
		release, ok := slots.acquire("7")
		if !ok {
			t.Fatalf("transfer %d refused", i)
		}
		releases = append(releases, release)
	}
	if _, ok := slots.acquire("7"); ok {
		t.Error("one transfer too many was allowed")
	}
	if release, ok := slots.acquire("8"); !ok {
		t.Error("another user was refused")
	} else {
		release()
	}
	releases[0]()
	if _, ok := slots.acquire("7"); !ok {
		t.Error("a released slot was not free")
	}
	for _, r := range releases[1:] {
		r()
	}
	if len(slots.active) != 1 {
		t.Errorf("%d keys left, want 1", len(slots.active))
	}
}
