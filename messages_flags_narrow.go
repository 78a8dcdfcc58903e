package chat

import (
	"context"

	"github.com/teamchat/chat/storage"
)

// Personal message flags on a range of a narrow (POST /messages/flags/narrow).

// maxMessagesPerFlagUpdate bounds the messages one range update touches,
// as the reference server bounds its transaction.
const maxMessagesPerFlagUpdate = 5000

// FlagsNarrowRequest changes one flag on the actor's messages in a range
// of a narrow around an anchor.
type FlagsNarrowRequest struct {
	// Op is "add" or "remove"; Flag is "read", "starred" or "collapsed".
	Op, Flag string
	// Anchor is a message ID as text, or "newest", "oldest",
	// "first_unread".
	Anchor string
	// IncludeAnchor says whether the anchor itself is in the range.
	IncludeAnchor bool
	// NumBefore and NumAfter bound the messages before and after the
	// anchor; the server lowers them so that their sum is at most 5000,
	// keeping at least 2500 of a side that asked for more.
	NumBefore, NumAfter int64
	Narrow              []NarrowElement
}

// FlagsNarrowResult says what a range update covered.
type FlagsNarrowResult struct {
	// ProcessedCount is the number of messages in the range.
	ProcessedCount int `json:"processed_count"`
	// UpdatedCount is the number of them whose flag changed.
	UpdatedCount int `json:"updated_count"`
	// FirstProcessedID and LastProcessedID are the range's first and last
	// message IDs, nil for an empty range.
	FirstProcessedID *int64 `json:"first_processed_id"`
	LastProcessedID  *int64 `json:"last_processed_id"`
	// FoundOldest and FoundNewest say whether the range reached the
	// narrow's oldest and newest messages.
	FoundOldest bool `json:"found_oldest"`
	FoundNewest bool `json:"found_newest"`
}

// UpdateMessageFlagsForNarrow adds or removes a flag on the messages of a
// range of a narrow, as UpdateMessageFlags does on the messages named; the
// range is what GetMessages would return for the same anchor and counts.
// The actor's queues get one update_message_flags event. Any user may
// call it.
//
// Errors, in the order they are checked: those of UpdateMessageFlags'
// flag and operation checks, ErrNegativeNumMessages, ErrAnchorExcluded,
// ErrInvalidAnchor, BAD_NARROW ones (see compileNarrow), and those of the
// actor check.
func (s *Service) UpdateMessageFlagsForNarrow(ctx context.Context, actor Actor, req FlagsNarrowRequest) (FlagsNarrowResult, error) {
	var out FlagsNarrowResult
	if _, err := checkFlagRequest(MessageFlagsRequest{Op: req.Op, Flag: req.Flag}); err != nil {
		return out, err
	}
	if req.NumBefore < 0 || req.NumAfter < 0 {
		return out, ErrNegativeNumMessages
	}
	if !req.IncludeAnchor && req.NumBefore > 0 && req.NumAfter > 0 {
		return out, ErrAnchorExcluded
	}
	anchor, err := ParseAnchor(req.Anchor)
	if err != nil {
		return out, err
	}
	// Lower the counts as the reference does: the sum stays within the
	// bound, and each side keeps at least half of it when it asked for it.
	const half = maxMessagesPerFlagUpdate / 2
	before := min(req.NumBefore, max(maxMessagesPerFlagUpdate-req.NumAfter, half))
	after := min(req.NumAfter, max(maxMessagesPerFlagUpdate-before, half))
	rng := fetchRange{anchor: anchor, includeAnchor: req.IncludeAnchor, numBefore: before, numAfter: after}
	err = s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContextFor(tx, actor, OpUpdateMessageFlagsForNarrow)
		if err != nil {
			return err
		}
		n, err := s.compileNarrow(tx, cc, req.Narrow)
		if err != nil {
			return err
		}
		rr, err := n.rangeRows(tx, rng)
		if err != nil {
			return err
		}
		ids := make([]int64, len(rr.rows))
		for i, r := range rr.rows {
			ids[i] = r.Message.ID
		}
		updated, err := applyFlag(tx, cc, MessageFlagsRequest{Op: req.Op, Flag: req.Flag, Messages: ids}, emit)
		if err != nil {
			return err
		}
		out = FlagsNarrowResult{ProcessedCount: len(ids), UpdatedCount: updated,
			FoundOldest: rr.foundOldest, FoundNewest: rr.foundNewest}
		if len(ids) > 0 {
			out.FirstProcessedID, out.LastProcessedID = &ids[0], &ids[len(ids)-1]
		}
		return nil
	})
	return out, err
}
