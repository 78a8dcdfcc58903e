package chat_test

import (
	"context"
	"sync"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// txSink is a chat.TxEventSink that records where each batch went: into
// a transaction (and how that ended) or after the commit.
type txSink struct {
	mu        sync.Mutex
	decline   bool               // PublishInTx declines the transaction
	cancel    context.CancelFunc // called by PublishInTx, when set
	inTx      [][]chat.Event
	ended     []bool
	published [][]chat.Event
}

func (s *txSink) Publish(_ context.Context, events []chat.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.published = append(s.published, events)
}

func (s *txSink) PublishInTx(_ context.Context, _ storage.Tx, events []chat.Event) (func(bool), bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.decline {
		return nil, false, nil
	}
	s.inTx = append(s.inTx, events)
	if s.cancel != nil {
		s.cancel()
	}
	return func(committed bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ended = append(s.ended, committed)
	}, true, nil
}

// count returns how many batches went into transactions, how each ended,
// and how many were published after a commit.
func (s *txSink) count() (inTx int, ended []bool, published int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inTx), append([]bool(nil), s.ended...), len(s.published)
}

// TestTxEventSink: with a sink that publishes in the transaction, an
// operation's events go into its write transaction and are not published
// again after it; a transaction that fails after publishing tells the sink
// it did not commit; a sink that declines the transaction gets the events
// after the commit.
func TestTxEventSink(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		sink := &txSink{}
		f := newFixtureWith(t, newStore, chat.Config{Events: sink})
		ctx := t.Context()
		_, err := f.svc.Subscribe(ctx, chat.AsUser(f.member.ID), chat.SubscribeRequest{Subscriptions: []chat.ChannelSpec{{Name: "sink"}}})
		wantNoErr(t, "Subscribe", err)
		id := channelIDOf(t, f, "sink")
		inTx0, ended0, published0 := sink.count()

		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "committed")
		wantNoErr(t, "send", err)
		inTx, ended, published := sink.count()
		if inTx != inTx0+1 || len(ended) != len(ended0)+1 || !ended[len(ended)-1] || published != published0 {
			t.Errorf("committed send: %d batches in transactions (want %d), ended %v, %d published after (want %d)",
				inTx, inTx0+1, ended, published, published0)
		}

		countMessages := func() int {
			res, err := f.svc.GetMessages(ctx, chat.AsUser(f.member.ID), chat.GetMessagesRequest{
				Anchor: ptr("newest"), NumBefore: ptr[int64](10), Narrow: []chat.NarrowElement{{Operator: "channel", Operand: "sink"}}})
			wantNoErr(t, "GetMessages", err)
			return len(res.Messages)
		}
		stored := countMessages()
		// The request ends while its transaction runs: it rolls back.
		reqCtx, cancel := context.WithCancel(ctx)
		sink.mu.Lock()
		sink.cancel = cancel
		sink.mu.Unlock()
		_, err = f.svc.PostChannelMessage(reqCtx, chat.AsUser(f.member.ID), id, "t", "rolled back")
		if err == nil {
			t.Fatal("send with its request ended: no error")
		}
		sink.mu.Lock()
		sink.cancel = nil
		sink.mu.Unlock()
		inTx, ended, published = sink.count()
		if len(ended) != inTx || ended[len(ended)-1] || published != published0 {
			t.Errorf("rolled-back send: %d batches in transactions, ended %v, %d published after (want %d)",
				inTx, ended, published, published0)
		}
		if n := countMessages(); n != stored {
			t.Errorf("after the rolled-back send: %d messages in the channel, want %d", n, stored)
		}

		sink.mu.Lock()
		sink.decline = true
		sink.mu.Unlock()
		_, err = f.svc.PostChannelMessage(ctx, chat.AsUser(f.member.ID), id, "t", "declined")
		wantNoErr(t, "send", err)
		inTx2, ended2, published := sink.count()
		if inTx2 != inTx || len(ended2) != len(ended) || published != published0+1 {
			t.Errorf("declined: %d batches in transactions (want %d), %d published after (want %d)",
				inTx2, inTx, published, published0+1)
		}
	})
}
