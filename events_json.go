package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/teamchat/chat/storage"
)

// Events cross processes as JSON (storage/postgres sends them with NOTIFY):
// an event with a PerQueue travels as its formatter's kind and data, and
// the receiving process rebuilds the same formatter, so that its queues
// get the bytes the sending process would have given them.

// queueFormatters makes an empty formatter of each kind, for
// UnmarshalJSON to fill.
var queueFormatters = map[string]func() QueueFormatter{
	"message":        func() QueueFormatter { return new(messageEvent) },
	"update_message": func() QueueFormatter { return new(updateMessageEvent) },
	"delete_message": func() QueueFormatter { return new(deleteMessageEvent) },
	"typing":         func() QueueFormatter { return new(channelTypingEvent) },
}

// eventJSON is the JSON form of an Event. Its keys are short: events
// travel in PostgreSQL notifications, which hold less than 8 000 bytes.
type eventJSON struct {
	RealmID  int64   `json:"r"`
	UserIDs  []int64 `json:"u"`
	AllUsers bool    `json:"a,omitempty"`
	Except   []int64 `json:"x,omitempty"`
	// Payload is the payload of an event without PerQueue.
	Payload json.RawMessage `json:"p,omitempty"`
	// Kind and Form are the PerQueue of the others: its kind and data.
	// Their Payload is the formatter's.
	Kind string          `json:"k,omitempty"`
	Form json.RawMessage `json:"f,omitempty"`
}

// MarshalJSON writes the event for another process, which reads it with
// UnmarshalJSON. Strings are written without HTML escaping: encode events
// with a json.Encoder whose SetEscapeHTML(false), or the escapes that
// json.Marshal adds stay in the raw objects and arrays of payloads, and
// clients get the same values in other bytes.
//
// Errors: those of encoding a payload that encoding/json cannot write.
func (e Event) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"r":`...)
	b = strconv.AppendInt(b, e.RealmID, 10)
	b = append(b, `,"u":`...)
	if e.UserIDs == nil {
		b = append(b, "null"...)
	} else {
		b = storage.AppendIDs(b, e.UserIDs)
	}
	if e.AllUsers {
		b = append(b, `,"a":true`...)
	}
	if len(e.ExceptUserIDs) > 0 {
		b = storage.AppendIDs(append(b, `,"x":`...), e.ExceptUserIDs)
	}
	var data []byte
	var err error
	if e.PerQueue != nil {
		b = append(b, `,"k":`...)
		b = strconv.AppendQuote(b, e.PerQueue.kind())
		b = append(b, `,"f":`...)
		data, err = marshalJSON(e.PerQueue)
	} else {
		b = append(b, `,"p":`...)
		data, err = marshalJSON(e.Payload)
	}
	if err != nil {
		typ, _ := e.Payload["type"].(string)
		return nil, fmt.Errorf("chat: encoding a %q event: %w", typ, err)
	}
	b = append(b, data...)
	return append(b, '}'), nil
}

// UnmarshalJSON reads an event written by MarshalJSON. The payload's
// top-level strings, booleans, nulls and numbers become Go values that
// event sinks can read (numbers as json.Number, exact); objects and arrays
// stay json.RawMessage. So the payload encodes again to the bytes the
// writing process would have encoded, and a PerQueue gives each queue the
// same bytes as the writer's.
//
// Errors: malformed JSON, and an unknown formatter kind (an event written
// by a newer release).
func (e *Event) UnmarshalJSON(data []byte) error {
	var w eventJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Event{RealmID: w.RealmID, UserIDs: w.UserIDs, AllUsers: w.AllUsers, ExceptUserIDs: w.Except}
	if w.Kind == "" {
		p, err := decodePayload(w.Payload)
		if err != nil {
			return fmt.Errorf("chat: decoding an event's payload: %w", err)
		}
		e.Payload = p
		return nil
	}
	newFormatter := queueFormatters[w.Kind]
	if newFormatter == nil {
		return fmt.Errorf("chat: decoding an event: unknown kind %q", w.Kind)
	}
	f := newFormatter()
	if err := json.Unmarshal(w.Form, f); err != nil {
		return fmt.Errorf("chat: decoding a %q event: %w", w.Kind, err)
	}
	e.Payload, e.PerQueue = f.payload(), f
	return nil
}

// decodePayload reads a JSON object as a payload (see Event.UnmarshalJSON).
func decodePayload(data json.RawMessage) (map[string]any, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, nil // null
	}
	p := make(map[string]any, len(fields))
	for k, raw := range fields {
		switch c := raw[0]; {
		case c == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			p[k] = s
		case c == 't' || c == 'f':
			p[k] = c == 't'
		case c == 'n':
			p[k] = nil
		case c == '-' || c >= '0' && c <= '9':
			p[k] = json.Number(raw)
		default:
			p[k] = raw
		}
	}
	return p, nil
}

// marshalJSON encodes v without HTML escaping, as the hub writes events.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// formCache keeps a formatter's encoded forms by what they depend on, so
// that queues alike share one encoding.
type formCache[K comparable] struct {
	mu    sync.Mutex
	forms map[K][]json.RawMessage
}

// get returns the forms for key, made by build the first time.
func (c *formCache[K]) get(key K, build func() []json.RawMessage) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	forms, ok := c.forms[key]
	if !ok {
		if c.forms == nil {
			c.forms = map[K][]json.RawMessage{}
		}
		forms = build()
		c.forms[key] = forms
	}
	return forms
}
