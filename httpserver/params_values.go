package httpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/teamchat/chat"
)

// The accessors of compound parameters: lists, objects and the values
// whose JSON forms the API shares with the Go API.

// StringList returns a JSON array of strings; nil when absent or null.
func (p *params) StringList(name string) []string {
	v, ok := p.jsonValue(name)
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		p.fail(errorf("%s is not a list", name))
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, isString := e.(string)
		if !isString {
			p.fail(errorf("%s[%d] is not a string", name, i))
			return nil
		}
		out[i] = s
	}
	return out
}

// BoolObject decodes a JSON object whose values are booleans into the
// fields of dst (a pointer to a struct with json tags). Keys that dst does
// not know are ignored, so that newer clients keep working.
func (p *params) BoolObject(name string, dst any) {
	v, ok := p.jsonValue(name)
	if !ok {
		return
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		p.fail(errorf("%s is not a dict", name))
		return
	}
	for key, val := range obj {
		if _, isBool := val.(bool); !isBool {
			p.fail(errorf("%s[%s] is not a boolean", name, strconv.Quote(key)))
			return
		}
	}
	raw, _ := p.peek(name)
	if err := json.Unmarshal([]byte(raw), dst); err != nil {
		p.fail(errorf("%s is not valid JSON", name))
	}
}

// RequiredIntList is IntList for a parameter that must be sent; a
// missing one is REQUEST_VARIABLE_MISSING.
func (p *params) RequiredIntList(name string) []int64 {
	if _, ok := p.peek(name); !ok {
		p.RequiredString(name)
		return nil
	}
	list := p.IntList(name)
	if list == nil && p.err == nil {
		return []int64{}
	}
	return list
}

// RequiredStringObject returns a JSON object of strings, such as the
// entries of the bot storage; a missing one is REQUEST_VARIABLE_MISSING.
// Of several values that are not strings, the first by key is reported.
func (p *params) RequiredStringObject(name string) map[string]string {
	if _, ok := p.peek(name); !ok {
		p.RequiredString(name)
		return nil
	}
	v, ok := p.jsonValue(name)
	if !ok {
		return nil
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		p.fail(errorf("%s is not a dict", name))
		return nil
	}
	out := make(map[string]string, len(obj))
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		str, isString := obj[key].(string)
		if !isString {
			p.fail(errorf("%s[%s] is not a string", name, strconv.Quote(key)))
			return nil
		}
		out[key] = str
	}
	return out
}

// PairList returns a JSON array of two-string arrays, such as an event
// queue's narrow.
func (p *params) PairList(name string) [][2]string {
	v, ok := p.jsonValue(name)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		p.fail(errorf("%s is not a list", name))
		return nil
	}
	out := make([][2]string, len(list))
	for i, e := range list {
		pair, isList := e.([]any)
		if !isList {
			p.fail(errorf("%s[%d] is not a list", name, i))
			return nil
		}
		if len(pair) != 2 {
			p.fail(errorf("%s[%d] should have exactly 2 items", name, i))
			return nil
		}
		for j, s := range pair {
			str, isString := s.(string)
			if !isString {
				p.fail(errorf("%s[%d][%d] is not a string", name, i, j))
				return nil
			}
			out[i][j] = str
		}
	}
	return out
}

// Uint32 returns a JSON integer parameter in the range of an unsigned
// 32-bit integer; nil when it is absent.
func (p *params) Uint32(name string) *uint32 {
	n, ok := p.Int(name)
	switch {
	case !ok:
		return nil
	case n < 0:
		p.fail(errorf("%s is too small", name))
		return nil
	case n > 1<<32-1:
		p.fail(errorf("%s is too large", name))
		return nil
	}
	u := uint32(n)
	return &u
}

// JSONObject returns the raw JSON text of a parameter that must be a JSON
// object; nil when absent.
func (p *params) JSONObject(name string) json.RawMessage {
	raw, ok := p.peek(name)
	v, sent := p.jsonValue(name)
	if !ok || !sent {
		return nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		p.fail(errorf("%s is not a dict", name))
		return nil
	}
	return json.RawMessage(raw)
}

// ProfileData returns a JSON list of custom profile data entries; nil when
// absent.
func (p *params) ProfileData(name string) []chat.ProfileDataEntry {
	raw, ok := p.String(name)
	if !ok {
		return nil
	}
	if _, ok := p.decodeJSON(name, raw); !ok {
		return nil
	}
	entries, err := chat.ParseProfileData(name, raw)
	if err != nil {
		p.fail(err)
		return nil
	}
	return entries
}

// Optional reads an optional parameter into dest, a pointer to a nil-able
// request field, leaving the field nil when the parameter is absent:
// **string is a plain string, **bool a JSON boolean, **int64 a JSON
// integer, and **T for a T whose pointer is a json.Unmarshaler a
// JSON-encoded value that T decodes ("Invalid {name}" when it refuses).
func (p *params) Optional(name string, dest any) {
	if p.err != nil {
		return
	}
	switch d := dest.(type) {
	case **string:
		*d = p.OptString(name)
	case **bool:
		if _, ok := p.lookup(name); ok {
			v := p.Bool(name, false)
			*d = &v
		}
	case **int64:
		v, ok := p.jsonValue(name)
		if !ok {
			return
		}
		n, isInt := asInt(v)
		if !isInt {
			p.fail(errorf("%s is not an integer", name))
			return
		}
		*d = &n
	default:
		raw, ok := p.String(name)
		if !ok {
			return
		}
		if _, ok := p.decodeJSON(name, raw); !ok {
			return
		}
		field := reflect.ValueOf(dest).Elem() // the *T field
		val := reflect.New(field.Type().Elem())
		u, isUnmarshaler := val.Interface().(json.Unmarshaler)
		if !isUnmarshaler {
			panic(fmt.Sprintf("httpserver: parameter %s: unsupported destination %T", name, dest))
		}
		if err := u.UnmarshalJSON([]byte(raw)); err != nil {
			p.fail(errorf("Invalid %s", name))
			return
		}
		field.Set(val)
	}
}

// AliasedString returns the plain string parameter sent under name or
// under its alias, or nil when neither was sent. Both sent is
// REQUEST_CONFUSING_VAR.
func (p *params) AliasedString(name, alias string) *string {
	a, okA := p.String(name)
	b, okB := p.String(alias)
	switch {
	case p.err != nil:
		return nil
	case okA && okB:
		p.fail(&chat.Error{Code: chat.CodeRequestConfusingVar,
			Msg: fmt.Sprintf("Can't decide between '%s' and '%s' arguments", name, alias)})
		return nil
	case okA:
		return &a
	case okB:
		return &b
	}
	return nil
}
