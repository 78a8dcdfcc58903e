package chat

import (
	"context"
	"errors"
	"html"
	"slices"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// Anchor values of GetMessages.
const (
	// AnchorNewest is the anchor that "newest" stands for.
	AnchorNewest int64 = 10000000000000000
	// maxMessagesPerFetch bounds num_before + num_after.
	maxMessagesPerFetch = 5000
	// scanBatch is the smallest batch read from the backend while
	// predicates filter rows.
	scanBatch = 100
)

// GetMessagesRequest describes a message fetch (GET /messages). Nil
// pointers are parameters the client did not send.
type GetMessagesRequest struct {
	// Anchor is a message ID as text, or "newest", "oldest",
	// "first_unread". It is required for a range, unless
	// UseFirstUnreadAnchor is true.
	Anchor *string
	// UseFirstUnreadAnchor is the legacy form of Anchor "first_unread".
	UseFirstUnreadAnchor *bool
	// IncludeAnchor says whether the anchor itself is fetched; nil means
	// true.
	IncludeAnchor *bool
	// NumBefore and NumAfter bound the messages before and after the
	// anchor; nil means 0.
	NumBefore, NumAfter *int64
	Narrow              []NarrowElement
	Format              MessageFormat
	// MessageIDs, when not nil, fetches these messages instead of a
	// range; none of the range's parameters may be given then.
	MessageIDs []int64
}

// Message fetch parameter texts, as the reference server's.
var (
	ErrFetchParameterCombination = errorf("Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor")
	ErrMissingAnchor             = errorf("Missing 'anchor' argument.")
)

// fetchRange is a range fetch's parameters with their defaults applied.
type fetchRange struct {
	anchor              int64
	includeAnchor       bool
	numBefore, numAfter int64
}

// rangeOf checks the combination of req's parameters and applies their
// defaults; for a fetch by IDs it returns the zero range.
func rangeOf(req *GetMessagesRequest) (fetchRange, error) {
	if req.MessageIDs != nil {
		if req.Anchor != nil || req.NumBefore != nil || req.NumAfter != nil || req.IncludeAnchor != nil ||
			req.UseFirstUnreadAnchor != nil {
			return fetchRange{}, ErrFetchParameterCombination
		}
		return fetchRange{}, nil
	}
	r := fetchRange{includeAnchor: true}
	if req.IncludeAnchor != nil {
		r.includeAnchor = *req.IncludeAnchor
	}
	if req.NumBefore != nil {
		r.numBefore = *req.NumBefore
	}
	if req.NumAfter != nil {
		r.numAfter = *req.NumAfter
	}
	anchor := "first_unread"
	switch {
	case req.UseFirstUnreadAnchor != nil && *req.UseFirstUnreadAnchor:
	case req.Anchor == nil:
		return fetchRange{}, ErrMissingAnchor
	default:
		anchor = *req.Anchor
	}
	if r.numBefore < 0 || r.numAfter < 0 {
		return fetchRange{}, ErrNegativeNumMessages
	}
	if r.numBefore+r.numAfter > maxMessagesPerFetch {
		return fetchRange{}, ErrTooManyMessages
	}
	if !r.includeAnchor && r.numBefore > 0 && r.numAfter > 0 {
		return fetchRange{}, ErrAnchorExcluded
	}
	var err error
	r.anchor, err = ParseAnchor(anchor)
	return r, err
}

// GetMessagesResult is the answer of GetMessages. Anchor and the found_*
// fields are meaningless (zero) for a fetch by MessageIDs.
type GetMessagesResult struct {
	Messages       []MessageView `json:"messages"`
	Anchor         int64         `json:"anchor"`
	FoundAnchor    bool          `json:"found_anchor"`
	FoundOldest    bool          `json:"found_oldest"`
	FoundNewest    bool          `json:"found_newest"`
	HistoryLimited bool          `json:"history_limited"`
}

// Message fetch texts.
var (
	ErrInvalidAnchor       = errorf("Invalid anchor")
	ErrAnchorExcluded      = errorf("The anchor can only be excluded at an end of the range")
	ErrTooManyMessages     = errorf("Too many messages requested (maximum %d).", maxMessagesPerFetch)
	ErrNegativeNumMessages = errorf("num_before and num_after must not be negative")
)

// ParseAnchor reads an anchor: "newest", "oldest", "first_unread" or a
// message ID (negative IDs count as 0, huge ones as AnchorNewest).
// first_unread is returned as -1. Errors: ErrInvalidAnchor.
func ParseAnchor(s string) (int64, error) {
	switch s {
	case "newest":
		return AnchorNewest, nil
	case "oldest":
		return 0, nil
	case "first_unread":
		return -1, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var numErr *strconv.NumError
		if errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange) {
			if len(s) > 0 && s[0] == '-' {
				return 0, nil
			}
			return AnchorNewest, nil
		}
		return 0, ErrInvalidAnchor
	}
	return min(max(n, 0), AnchorNewest), nil
}

// GetMessages returns the actor's messages in a narrow around an anchor:
// at most NumBefore messages before it, the anchor itself when
// IncludeAnchor and it matches, and at most NumAfter after it, sorted by
// ID. Without a channel term only received messages count;
// a channel term adds the channel's history when the actor may read it.
//
// Errors: ErrFetchParameterCombination, ErrMissingAnchor,
// ErrNegativeNumMessages, ErrTooManyMessages, ErrAnchorExcluded,
// ErrInvalidAnchor, BAD_NARROW ones (see compileNarrow), and those of the
// actor check.
func (s *Service) GetMessages(ctx context.Context, actor Actor, req GetMessagesRequest) (GetMessagesResult, error) {
	var out GetMessagesResult
	rng, err := rangeOf(&req)
	if err != nil {
		return out, err
	}
	err = s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		n, err := s.compileNarrow(tx, cc, req.Narrow)
		if err != nil {
			return err
		}
		var rows []storage.MessageRow
		if req.MessageIDs != nil {
			ids := uniqueIDs(req.MessageIDs)
			slices.Sort(ids)
			rows, err = n.scan(tx, ids, 0, 0, false, len(ids))
			if err != nil {
				return err
			}
		} else {
			var rr rangeResult
			if rr, err = n.rangeRows(tx, rng); err != nil {
				return err
			}
			rows = rr.rows
			out.Anchor, out.FoundAnchor, out.FoundOldest, out.FoundNewest = rr.anchor, rr.foundAnchor, rr.foundOldest, rr.foundNewest
		}
		out.Messages, err = s.viewRows(tx, cc, rows, req.Format, n.search)
		return err
	})
	return out, err
}

// rangeResult is the rows of a range around an anchor and what a client
// learns about the range's ends.
type rangeResult struct {
	rows                                  []storage.MessageRow
	anchor                                int64
	foundAnchor, foundOldest, foundNewest bool
}

// rangeRows reads the narrow's rows around rng's anchor (first_unread, -1,
// resolved to the oldest unread match, else the newest), in ID order.
func (n *compiledNarrow) rangeRows(tx storage.Tx, rng fetchRange) (rangeResult, error) {
	var out rangeResult
	anchor := rng.anchor
	if anchor == -1 {
		unread := *n
		unread.preds = append(slices.Clone(n.preds), func(r *storage.MessageRow, _ bool) bool { return r.Flags&storage.FlagRead == 0 })
		first, err := unread.scan(tx, nil, 0, 0, false, 1)
		if err != nil {
			return out, err
		}
		anchor = AnchorNewest
		if len(first) == 1 {
			anchor = first[0].Message.ID
		}
	}
	leftEnd, rightEnd := anchor == 0, anchor == AnchorNewest
	var before, at, after []storage.MessageRow
	var err error
	if !leftEnd && rng.numBefore > 0 {
		if before, err = n.scan(tx, nil, 0, anchor-1, true, int(rng.numBefore)); err != nil {
			return out, err
		}
		slices.Reverse(before)
	}
	if rng.includeAnchor && !rightEnd && anchor > 0 {
		if at, err = n.scan(tx, nil, anchor, anchor, false, 1); err != nil {
			return out, err
		}
	}
	if !rightEnd && rng.numAfter > 0 {
		if after, err = n.scan(tx, nil, anchor+1, 0, false, int(rng.numAfter)); err != nil {
			return out, err
		}
	}
	out.rows = append(append(before, at...), after...)
	out.anchor = anchor
	out.foundAnchor = len(at) == 1
	out.foundOldest = leftEnd || int64(len(before)) < rng.numBefore
	out.foundNewest = rightEnd || int64(len(after)) < rng.numAfter
	return out, nil
}

// scan returns up to limit rows that the narrow matches, with IDs in
// [minID, maxID] (maxID 0: no bound), in ascending or descending order;
// ids, when not nil, restricts the IDs further.
func (n *compiledNarrow) scan(tx storage.Tx, ids []int64, minID, maxID int64, desc bool, limit int) ([]storage.MessageRow, error) {
	if n.empty || limit <= 0 {
		return nil, nil
	}
	f := n.filter
	f.MinID, f.MaxID, f.Descending = minID, maxID, desc
	if ids != nil {
		if f.IDs != nil {
			var both []int64
			for _, id := range ids {
				if slices.Contains(f.IDs, id) {
					both = append(both, id)
				}
			}
			ids = both
		}
		f.IDs = ids
	}
	var out []storage.MessageRow
	for {
		f.Limit = limit
		if len(n.preds) > 0 {
			f.Limit = max(2*(limit-len(out)), scanBatch)
		}
		rows, err := tx.FindMessages(f)
		if err != nil {
			return nil, err
		}
		reacted := map[int64]bool{}
		if n.needReactions && len(rows) > 0 {
			ids := make([]int64, len(rows))
			for i := range rows {
				ids[i] = rows[i].Message.ID
			}
			rs, err := tx.Reactions(ids)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				reacted[r.MessageID] = true
			}
		}
		for i := range rows {
			r := &rows[i]
			if !r.Received {
				r.Flags = storage.FlagRead | storage.FlagHistorical
			}
			ok := true
			for _, p := range n.preds {
				if !p(r, reacted[r.Message.ID]) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, *r)
				if len(out) == limit {
					return out, nil
				}
			}
		}
		if len(rows) < f.Limit {
			return out, nil
		}
		last := rows[len(rows)-1].Message.ID
		if desc {
			f.MaxID = last - 1
			if f.MaxID < max(f.MinID, 1) {
				return out, nil
			}
		} else {
			f.MinID = last + 1
		}
	}
}

// viewRows builds the message objects of rows for the reader, with match
// fields when search words are given.
func (s *Service) viewRows(tx storage.Tx, cc *channelContext, rows []storage.MessageRow, f MessageFormat, search []string) ([]MessageView, error) {
	out := make([]MessageView, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	loader, err := s.newMessageLoader(tx, cc.realm)
	if err != nil {
		return nil, err
	}
	records := make([]storage.MessageRecord, len(rows))
	for i := range rows {
		records[i] = rows[i].Message
	}
	data, err := loader.load(records)
	if err != nil {
		return nil, err
	}
	for i, d := range data {
		v := d.view(cc.actor.ID, f)
		flags := rows[i].Flags.Names()
		v.Flags = &flags
		if len(search) > 0 {
			content := highlight(rows[i].Message.RenderedContent, search)
			subject := highlight(html.EscapeString(rows[i].Message.Topic), search)
			v.MatchContent, v.MatchSubject = &content, &subject
		}
		out = append(out, v)
	}
	return out, nil
}

// readableMessage reads a message the actor may read, with the actor's
// flags: received, or in the history of a channel open to them. Anything
// else is ErrInvalidMessage.
func readableMessage(tx storage.Tx, cc *channelContext, id int64) (storage.MessageRecord, storage.MessageFlags, error) {
	m, err := tx.Message(id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && m.RealmID != cc.realm.ID) {
		return storage.MessageRecord{}, 0, ErrInvalidMessage
	}
	if err != nil {
		return storage.MessageRecord{}, 0, err
	}
	um, err := storage.UserMessageOf(tx, cc.actor.ID, id)
	if err == nil {
		return m, um.Flags, nil
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return storage.MessageRecord{}, 0, err
	}
	if m.RecipientType == RecipientChannel {
		c, err := tx.Channel(m.ChannelID)
		if err != nil {
			return storage.MessageRecord{}, 0, err
		}
		if historyAccess(cc, &c) {
			return m, storage.FlagRead | storage.FlagHistorical, nil
		}
	}
	return storage.MessageRecord{}, 0, ErrInvalidMessage
}

// GetMessage returns one message the actor may read and its Markdown
// source (GET /messages/{id}). Errors: ErrInvalidMessage and those of the
// actor check.
func (s *Service) GetMessage(ctx context.Context, actor Actor, id int64, f MessageFormat) (MessageView, string, error) {
	var v MessageView
	var raw string
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		m, flags, err := readableMessage(tx, cc, id)
		if err != nil {
			return err
		}
		views, err := s.viewRows(tx, cc, []storage.MessageRow{{Message: m, Flags: flags, Received: true}}, f, nil)
		if err != nil {
			return err
		}
		v, raw = views[0], m.Content
		return nil
	})
	return v, raw, err
}

// NarrowMatch is how a message matches a narrow (GET
// /messages/matches_narrow).
type NarrowMatch struct {
	MatchContent string `json:"match_content"`
	MatchSubject string `json:"match_subject"`
}

// MatchesNarrow returns, keyed by message ID, the messages among ids that
// the actor received and that match the narrow, with their rendered
// content and escaped topic (search words highlighted). Errors: BAD_NARROW
// ones and those of the actor check.
func (s *Service) MatchesNarrow(ctx context.Context, actor Actor, ids []int64, narrow []NarrowElement) (map[string]NarrowMatch, error) {
	out := map[string]NarrowMatch{}
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		n, err := s.compileNarrow(tx, cc, narrow)
		if err != nil {
			return err
		}
		// Only received messages count, whatever the channel's history.
		n.filter.ChannelHistory = false
		want := uniqueIDs(ids)
		slices.Sort(want)
		rows, err := n.scan(tx, want, 0, 0, false, len(want))
		if err != nil {
			return err
		}
		for _, r := range rows {
			out[strconv.FormatInt(r.Message.ID, 10)] = NarrowMatch{
				MatchContent: highlight(r.Message.RenderedContent, n.search),
				MatchSubject: highlight(html.EscapeString(r.Message.Topic), n.search),
			}
		}
		return nil
	})
	return out, err
}

// messageState is the "message" block of a register answer: max_message_id,
// the highest ID of the messages the user received (-1 for none).
func messageState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: v.realm.ID, UserID: v.user.ID, Descending: true, Limit: 1})
		if err != nil {
			return err
		}
		state["max_message_id"] = int64(-1)
		if len(rows) == 1 {
			state["max_message_id"] = rows[0].Message.ID
		}
		return nil
	})
}
