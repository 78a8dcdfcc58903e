package chat

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat/storage/memory"
)

// TestDummyHashCost: a login that names no account compares against a
// hash of the service's own cost, so that it takes as long as one that
// names an account (a cheaper decoy told which addresses exist).
func TestDummyHashCost(t *testing.T) {
	for _, cost := range []int{bcrypt.MinCost, bcrypt.MinCost + 2} {
		s := New(memory.New(), Config{PasswordCost: cost})
		got, err := bcrypt.Cost(s.dummyHash())
		if err != nil || got != cost {
			t.Errorf("dummy hash cost = %d, %v; want %d", got, err, cost)
		}
		s.Close()
	}
}

// TestPasswordHashingBounded: password hashes run at most heavySlots at a
// time, half the CPUs, so that failed logins cannot keep every CPU busy;
// a login waiting for a slot gives up when its request ends, and hashes
// once a slot is free.
func TestPasswordHashingBounded(t *testing.T) {
	if n, procs := heavySlots(), runtime.GOMAXPROCS(0); n < 1 || (procs >= 2 && n > procs/2) {
		t.Errorf("heavySlots() = %d with GOMAXPROCS %d; want between 1 and half of it", n, procs)
	}
	ctx := context.Background()
	s := New(memory.New(), Config{PasswordCost: bcrypt.MinCost})
	defer s.Close()
	s.rest = func(_ time.Duration, free func()) { free() } // TestHeavySlotRests checks the rest
	org, err := s.CreateOrg(ctx, NewOrg{Name: "Org", Host: "org.example.com", OwnerEmail: "owner@example.com",
		OwnerName: "Owner", OwnerPassword: "owner-password"})
	if err != nil {
		t.Fatal(err)
	}
	for range cap(s.heavy) {
		s.heavy <- struct{}{}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.FetchAPIKey(ended, "org.example.com", org.Email, "owner-password"); !errors.Is(err, context.Canceled) {
		t.Errorf("login with every heavy slot taken and its request ended: %v, want context.Canceled", err)
	}
	if _, err := s.CreateUser(ended, AsUser(org.UserID), "new@example.com", "new-password", "New"); !errors.Is(err, context.Canceled) {
		t.Errorf("new user with a password, every heavy slot taken and the request ended: %v, want context.Canceled", err)
	}
	for range cap(s.heavy) {
		<-s.heavy
	}
	if res, err := s.FetchAPIKey(ctx, "org.example.com", org.Email, "owner-password"); err != nil || res.UserID != org.UserID {
		t.Errorf("login with a slot free = %+v, %v", res, err)
	}
	if _, err := s.FetchAPIKey(ctx, "org.example.com", org.Email, "wrong-password"); !errors.Is(err, ErrAuthenticationFailed) {
		t.Errorf("wrong password with a slot free: %v, want ErrAuthenticationFailed", err)
	}
	if len(s.heavy) != 0 {
		t.Errorf("%d heavy slots still taken after the logins", len(s.heavy))
	}
}

// TestHeavySlotRests: a heavy slot stays taken after its work, resting
// for as long as the work took, and heavy work waits for a resting slot
// as for a busy one.
func TestHeavySlotRests(t *testing.T) {
	ctx := context.Background()
	s := New(memory.New(), Config{PasswordCost: bcrypt.MinCost})
	defer s.Close()
	org, err := s.CreateOrg(ctx, NewOrg{Name: "Org", Host: "org.example.com", OwnerEmail: "owner@example.com",
		OwnerName: "Owner", OwnerPassword: "owner-password"})
	if err != nil {
		t.Fatal(err)
	}
	var rests []time.Duration
	var frees []func()
	s.rest = func(d time.Duration, free func()) { rests, frees = append(rests, d), append(frees, free) }
	for range cap(s.heavy) {
		release, err := s.heavySlot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		work := time.Now()
		for time.Since(work) == 0 {
		}
		release()
	}
	if len(s.heavy) != cap(s.heavy) || len(rests) != cap(s.heavy) {
		t.Fatalf("after their work %d of %d slots are taken, %d resting; want all", len(s.heavy), cap(s.heavy), len(rests))
	}
	for i, d := range rests {
		if d <= 0 {
			t.Errorf("slot %d rests %v, want as long as its work took", i, d)
		}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.FetchAPIKey(ended, "org.example.com", org.Email, "owner-password"); !errors.Is(err, context.Canceled) {
		t.Errorf("login with every heavy slot resting and its request ended: %v, want context.Canceled", err)
	}
	for _, free := range frees {
		free()
	}
	if res, err := s.FetchAPIKey(ctx, "org.example.com", org.Email, "owner-password"); err != nil || res.UserID != org.UserID {
		t.Errorf("login once the slots rested = %+v, %v", res, err)
	}
}

// TestLongMessageRenderBounded: the rendering of a long message, before its
// write transaction, takes a heavy slot as password hashes do; a sender
// whose request ends while every slot is taken gets no rendering, and its
// message is not sent.
func TestLongMessageRenderBounded(t *testing.T) {
	ctx := context.Background()
	s := New(memory.New(), Config{PasswordCost: bcrypt.MinCost})
	defer s.Close()
	s.rest = func(_ time.Duration, free func()) { free() } // TestHeavySlotRests checks the rest
	org, err := s.CreateOrg(ctx, NewOrg{Name: "Org", Host: "org.example.com", OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	owner := AsUser(org.UserID)
	long := strings.Repeat("a long message ", preRenderMinBytes/10)
	for range cap(s.heavy) {
		s.heavy <- struct{}{}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if p, _ := s.preRender(ended, owner, long); p != nil {
		t.Error("a long message was rendered with every heavy slot taken")
	}
	if _, err := s.SendMessage(ended, owner, SendMessageRequest{Type: "direct", To: &MessageTo{IDs: []int64{org.UserID}}, Content: long}); err == nil {
		t.Error("a long message was sent by a request that ended waiting for a heavy slot")
	}
	for range cap(s.heavy) {
		<-s.heavy
	}
	if p, err := s.preRender(ctx, owner, long); p == nil || err != nil {
		t.Errorf("a long message was not rendered before its transaction with a slot free: %v", err)
	}
	if _, err := s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: &MessageTo{IDs: []int64{org.UserID}}, Content: long}); err != nil {
		t.Errorf("long message with a slot free: %v", err)
	}
	if len(s.heavy) != 0 {
		t.Errorf("%d heavy slots still taken after the sends", len(s.heavy))
	}
}
