package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// NarrowElement is one term of a message narrow: an operator, its operand
// (a string, an integer, or a list of integers) and whether it is negated.
type NarrowElement struct {
	Operator string
	// Operand is a string, an int64, or []int64.
	Operand any
	Negated bool
}

// ParseNarrow reads a narrow: a JSON array whose elements are objects
// {"operator", "operand", "negated"?} or legacy [operator, operand] pairs.
// name is the parameter's name in error texts.
//
// Errors (BAD_REQUEST): "{name} is not valid JSON", "{name} is not a
// list", and per element "Invalid {name}[i]: Value error, ..." with
// "dict or list required", "element is not a string pair", "operator is
// missing", "operand is missing".
func ParseNarrow(name string, data []byte) ([]NarrowElement, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return nil, errorf("%s is not valid JSON", name)
		}
		return nil, errorf("%s is not a list", name)
	}
	out := make([]NarrowElement, 0, len(raw))
	for i, r := range raw {
		bad := func(msg string) error { return errorf("Invalid %s[%d]: Value error, %s", name, i, msg) }
		r = bytes.TrimSpace(r)
		switch {
		case len(r) > 0 && r[0] == '[':
			var pair []any
			if err := decodeNumbers(r, &pair); err != nil || len(pair) != 2 {
				return nil, bad("element is not a string pair")
			}
			op, ok := pair[0].(string)
			if !ok {
				return nil, bad("element is not a string pair")
			}
			operand, ok := narrowOperand(pair[1])
			if !ok {
				return nil, bad("element is not a string pair")
			}
			out = append(out, NarrowElement{Operator: op, Operand: operand})
		case len(r) > 0 && r[0] == '{':
			var obj map[string]any
			if err := decodeNumbers(r, &obj); err != nil {
				return nil, bad("dict or list required")
			}
			opv, ok := obj["operator"]
			if !ok {
				return nil, bad("operator is missing")
			}
			op, ok := opv.(string)
			if !ok {
				return nil, bad("operator is not a string")
			}
			ov, ok := obj["operand"]
			if !ok {
				return nil, bad("operand is missing")
			}
			operand, ok := narrowOperand(ov)
			if !ok {
				return nil, bad("operand is not a string, an integer or a list of integers")
			}
			e := NarrowElement{Operator: op, Operand: operand}
			if nv, ok := obj["negated"]; ok {
				b, isBool := nv.(bool)
				if !isBool {
					return nil, bad("negated is not a boolean")
				}
				e.Negated = b
			}
			out = append(out, e)
		default:
			return nil, bad("dict or list required")
		}
	}
	return out, nil
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// narrowOperand converts a decoded operand to string, int64 or []int64.
func narrowOperand(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		n, err := strconv.ParseInt(x.String(), 10, 64)
		return n, err == nil
	case []any:
		ids := make([]int64, 0, len(x))
		for _, it := range x {
			n, ok := it.(json.Number)
			if !ok {
				return nil, false
			}
			id, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return nil, false
			}
			ids = append(ids, id)
		}
		return ids, true
	}
	return nil, false
}

// badNarrow is the BAD_NARROW error with its desc field.
func badNarrow(format string, args ...any) *Error {
	desc := fmt.Sprintf(format, args...)
	return &Error{Code: CodeBadNarrow, Msg: "Invalid narrow operator: " + desc, Data: map[string]any{"desc": desc}}
}

// compiledNarrow is a narrow ready to run: the conditions a backend
// applies (the first positive channel, topic, sender and direct
// conversation, IDs, search words) and predicates for the rest, such as
// negated terms, a second sender, and dm-including (no backend index
// holds a conversation's participants one by one).
type compiledNarrow struct {
	filter storage.MessageFilter
	preds  []func(r *storage.MessageRow, reacted bool) bool
	// search holds the positive search words, for highlighting.
	search []string
	// needReactions says a predicate reads whether the message has
	// reactions.
	needReactions bool
	// empty says no message can match (say, two different channels).
	empty bool
}

// compileNarrow resolves the narrow's names for the reader and splits it
// into backend conditions and predicates.
func (s *Service) compileNarrow(tx storage.Tx, cc *channelContext, narrow []NarrowElement) (*compiledNarrow, error) {
	n := &compiledNarrow{filter: storage.MessageFilter{RealmID: cc.realm.ID, UserID: cc.actor.ID}}
	add := func(neg bool, p func(r *storage.MessageRow, reacted bool) bool) {
		if neg {
			n.preds = append(n.preds, func(r *storage.MessageRow, reacted bool) bool { return !p(r, reacted) })
		} else {
			n.preds = append(n.preds, p)
		}
	}
	for _, e := range narrow {
		switch e.Operator {
		case "channel", "stream":
			c, err := s.narrowChannel(tx, cc, e.Operand)
			if err != nil {
				return nil, err
			}
			id := c.ID
			if !e.Negated && n.filter.ChannelID == 0 {
				n.filter.ChannelID = id
				n.filter.ChannelHistory = historyAccess(cc, &c)
				continue
			}
			add(e.Negated, func(r *storage.MessageRow, _ bool) bool {
				return r.Message.RecipientType == RecipientChannel && r.Message.ChannelID == id
			})
		case "topic", "subject":
			topic, ok := e.Operand.(string)
			if !ok {
				return nil, badNarrow("invalid 'topic' operand %v", e.Operand)
			}
			key := storage.TopicKey(topic)
			if !e.Negated && n.filter.TopicKey == nil {
				n.filter.TopicKey = &key
				continue
			}
			add(e.Negated, func(r *storage.MessageRow, _ bool) bool {
				return r.Message.RecipientType == RecipientChannel && storage.TopicKey(r.Message.Topic) == key
			})
		case "sender", "from":
			u, err := s.narrowUser(tx, cc, e.Operand)
			if err != nil {
				return nil, err
			}
			id := u.ID
			if !e.Negated && n.filter.SenderID == 0 {
				n.filter.SenderID = id
				continue
			}
			add(e.Negated, func(r *storage.MessageRow, _ bool) bool { return r.Message.SenderID == id })
		case "dm", "pm-with":
			ids, err := s.narrowUsers(tx, cc, e.Operand)
			if err != nil {
				return nil, err
			}
			ids = append(ids, cc.actor.ID)
			ids = uniqueIDs(ids)
			slices.Sort(ids)
			if !e.Negated && n.filter.DirectUserIDs == nil {
				n.filter.DirectUserIDs = ids
				continue
			}
			add(e.Negated, func(r *storage.MessageRow, _ bool) bool {
				return r.Message.RecipientType == RecipientDirect && slices.Equal(r.Message.DirectUserIDs, ids)
			})
		case "dm-including":
			u, err := s.narrowUser(tx, cc, e.Operand)
			if err != nil {
				return nil, err
			}
			id := u.ID
			add(e.Negated, func(r *storage.MessageRow, _ bool) bool {
				return r.Message.RecipientType == RecipientDirect && slices.Contains(r.Message.DirectUserIDs, id)
			})
		case "is":
			p, err := isPredicate(e.Operand)
			if err != nil {
				return nil, err
			}
			add(e.Negated, p)
		case "has":
			what, _ := e.Operand.(string)
			var p func(r *storage.MessageRow, reacted bool) bool
			switch what {
			case "link":
				p = func(r *storage.MessageRow, _ bool) bool { return r.Message.HasLink }
			case "image":
				p = func(r *storage.MessageRow, _ bool) bool { return r.Message.HasImage }
			case "attachment":
				p = func(r *storage.MessageRow, _ bool) bool { return r.Message.HasAttachment }
			case "reaction":
				n.needReactions = true
				p = func(_ *storage.MessageRow, reacted bool) bool { return reacted }
			default:
				return nil, badNarrow("unknown 'has' operand %v", e.Operand)
			}
			add(e.Negated, p)
		case "id":
			id, ok := operandID(e.Operand)
			if !ok {
				return nil, badNarrow("invalid 'id' operand %v", e.Operand)
			}
			if !e.Negated {
				if n.filter.IDs != nil && !slices.Contains(n.filter.IDs, id) {
					n.empty = true
				}
				n.filter.IDs = []int64{id}
				continue
			}
			add(true, func(r *storage.MessageRow, _ bool) bool { return r.Message.ID == id })
		case "near":
			// near only places the anchor, which clients send as anchor.
		case "search":
			q, ok := e.Operand.(string)
			if !ok {
				return nil, badNarrow("invalid 'search' operand %v", e.Operand)
			}
			words := storage.SearchWords(q)
			if !e.Negated {
				n.filter.Search = append(n.filter.Search, words...)
				n.search = append(n.search, words...)
				continue
			}
			add(true, func(r *storage.MessageRow, _ bool) bool { return storage.SearchMatches(words, &r.Message) })
		default:
			return nil, badNarrow("unknown operator %s", e.Operator)
		}
	}
	return n, nil
}

// isPredicate is the predicate of an "is" operand.
func isPredicate(operand any) (func(r *storage.MessageRow, reacted bool) bool, error) {
	what, _ := operand.(string)
	switch what {
	case "dm", "private":
		return func(r *storage.MessageRow, _ bool) bool { return r.Message.RecipientType == RecipientDirect }, nil
	case "starred":
		return func(r *storage.MessageRow, _ bool) bool { return r.Flags&storage.FlagStarred != 0 }, nil
	case "mentioned":
		return func(r *storage.MessageRow, _ bool) bool { return r.Flags.MentionedAny() }, nil
	case "alerted":
		return func(r *storage.MessageRow, _ bool) bool { return r.Flags&storage.FlagHasAlertWord != 0 }, nil
	case "unread":
		return func(r *storage.MessageRow, _ bool) bool { return r.Flags&storage.FlagRead == 0 }, nil
	case "resolved":
		return func(r *storage.MessageRow, _ bool) bool {
			return r.Message.RecipientType == RecipientChannel && strings.HasPrefix(r.Message.Topic, resolvedTopicPrefix)
		}, nil
	}
	return nil, badNarrow("unknown 'is' operand %v", operand)
}

// operandID reads an integer operand, also from a numeric string.
func operandID(operand any) (int64, bool) {
	switch x := operand.(type) {
	case int64:
		return x, true
	case string:
		id, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return id, err == nil
	}
	return 0, false
}

// historyAccess reports whether the reader may read the channel's messages
// they did not receive: content access, and for a private channel a
// subscription and history open to subscribers.
func historyAccess(cc *channelContext, c *storage.Channel) bool {
	a := cc.access(c)
	if !a.content(c) {
		return false
	}
	if c.InviteOnly {
		return a.subscribed && c.HistoryPublicToSubscribers
	}
	return true
}

// narrowChannel resolves a channel operand (ID or name) the reader can see.
func (s *Service) narrowChannel(tx storage.Tx, cc *channelContext, operand any) (storage.Channel, error) {
	var c storage.Channel
	var err error
	switch x := operand.(type) {
	case int64:
		c, err = tx.Channel(x)
	case string:
		var cs []storage.Channel
		cs, err = storage.ChannelsByName(tx, cc.realm.ID, []string{storage.ChannelNameKey(x)})
		if err == nil {
			if len(cs) == 0 {
				err = storage.ErrNotFound
			} else {
				c = cs[0]
			}
		}
	default:
		return storage.Channel{}, badNarrow("unknown channel %v", operand)
	}
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (c.RealmID != cc.realm.ID || !cc.access(&c).metadata(&c))) {
		return storage.Channel{}, badNarrow("unknown channel %v", operand)
	}
	return c, err
}

// narrowUser resolves a user operand: an ID or an address.
func (s *Service) narrowUser(tx storage.Tx, cc *channelContext, operand any) (storage.UserRecord, error) {
	switch x := operand.(type) {
	case int64:
		u, err := targetUser(tx, cc.realm.ID, x)
		if errors.Is(err, ErrNoSuchUser) {
			return storage.UserRecord{}, badNarrow("unknown user %d", x)
		}
		return u, err
	case string:
		u, err := s.userByAPIEmail(tx, cc.realm, &cc.actor, strings.TrimSpace(x))
		if errors.Is(err, storage.ErrNotFound) {
			return storage.UserRecord{}, badNarrow("unknown user %s", x)
		}
		return u, err
	}
	return storage.UserRecord{}, badNarrow("unknown user %v", operand)
}

// narrowUsers resolves a dm operand: a list of IDs or comma-separated
// addresses.
func (s *Service) narrowUsers(tx storage.Tx, cc *channelContext, operand any) ([]int64, error) {
	var items []any
	switch x := operand.(type) {
	case []int64:
		for _, id := range x {
			items = append(items, id)
		}
	case int64:
		items = []any{x}
	case string:
		for _, part := range strings.Split(x, ",") {
			items = append(items, strings.TrimSpace(part))
		}
	}
	ids := make([]int64, 0, len(items))
	for _, it := range items {
		u, err := s.narrowUser(tx, cc, it)
		if err != nil {
			return nil, err
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// highlight wraps the words of html's text (outside tags and character
// references) that are search words in <span class="highlight">.
func highlight(html string, words []string) string {
	if len(words) == 0 {
		return html
	}
	want := map[string]bool{}
	for _, w := range words {
		want[w] = true
	}
	var b strings.Builder
	i := 0
	for i < len(html) {
		switch c := html[i]; {
		case c == '<':
			j := strings.IndexByte(html[i:], '>')
			if j < 0 {
				j = len(html) - i - 1
			}
			b.WriteString(html[i : i+j+1])
			i += j + 1
		case c == '&':
			j := strings.IndexByte(html[i:], ';')
			if j < 0 || j > 10 {
				j = 0
			}
			b.WriteString(html[i : i+j+1])
			i += j + 1
		default:
			j := i
			for j < len(html) && html[j] != '<' && html[j] != '&' {
				j++
			}
			b.WriteString(highlightText(html[i:j], want))
			i = j
		}
	}
	return b.String()
}

// highlightText wraps the wanted words of plain (already escaped) text.
func highlightText(s string, want map[string]bool) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		w := s[start:end]
		if want[strings.ToLower(w)] {
			b.WriteString(`<span class="highlight">` + w + `</span>`)
		} else {
			b.WriteString(w)
		}
		start = -1
	}
	for i, r := range s {
		if storage.SeparatesWords(r) {
			if start >= 0 {
				flush(i)
			}
			b.WriteRune(r)
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}
