package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

// TestTextStatements runs statements given by text from concurrent read
// and write transactions. Every text is new at first, so transactions keep
// noting texts while others prepare them on the pools: a store that held
// its lock while waiting for the writer's only connection deadlocked here.
// Afterwards every text is prepared and the answers are unchanged.
func TestTextStatements(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "chat.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const texts = 12
	text := func(i int) string { return fmt.Sprintf("SELECT %d + ?", i) }
	run := func(in storage.Tx, i int) error {
		var got int64
		err := in.(*tx).query("test", text(i), func(sc scanner) error { return sc.Scan(&got) }, 1)
		if err == nil && got != int64(i+1) {
			err = fmt.Errorf("%s with 1 = %d", text(i), got)
		}
		return err
	}
	done := make(chan struct{})
	errs := make(chan error, 16*texts)
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range texts {
					do := s.View
					if w%2 == 0 {
						do = s.Update
					}
					errs <- do(ctx, func(tx storage.Tx) error { return run(tx, (i+w)%texts) })
				}
			}()
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("transactions running statements by text are stuck")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One more transaction on each pool prepares what is still pending.
	for _, do := range []func(context.Context, func(storage.Tx) error) error{s.View, s.Update} {
		if err := do(ctx, func(tx storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*textStmts{&s.rtexts, &s.wtexts} {
		for i := range texts {
			if c.stmts[text(i)] == nil {
				t.Errorf("%q is not prepared", text(i))
			}
		}
	}
	if err := s.View(ctx, func(tx storage.Tx) error { return run(tx, 3) }); err != nil {
		t.Fatal(err)
	}
}
