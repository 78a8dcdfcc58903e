package httpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat"
)

// maxFormBytes bounds a form body. Uploads have their own route and limit.
const maxFormBytes = 10 << 20

// maxJSONDepth bounds the nesting of arrays and objects in a JSON-encoded
// parameter. The deepest value of the API (a list of objects holding a
// group-setting object holding a list) is four levels deep.
const maxJSONDepth = 32

// maxListItems bounds the JSON arrays of the parameters that name many
// rows at once, so that one request cannot make one transaction of
// unbounded size. The reference server sets no such limits; these are far
// above what its clients send (msg_ids follows its 5 000 messages per
// fetch).
var maxListItems = map[string]int{
	"subscriptions":     1000,
	"principals":        10000,
	"user_ids":          10000,
	"msg_ids":           5000,
	"narrow":            100,
	"to":                1000,
	"subscription_data": 1000,
	"data":              1000,
}

// Errors of the request body. They keep the BAD_REQUEST code of every
// parameter error but have statuses of their own (see statusByError).
var (
	errBodyTooLarge = &chat.Error{Code: chat.CodeBadRequest, Msg: "Request body too large"}
	errBodyTimeout  = &chat.Error{Code: chat.CodeBadRequest, Msg: "Timed out reading the request body"}
)

// params is the only reader of request parameters. A name is looked up in
// the body first, then in the query string; the last of repeated values
// wins. Every name read is remembered, so that the names a handler did not
// read can be reported in ignored_parameters_unsupported. The first
// decoding error is kept and reported by Err; later reads are no-ops that
// return zero values, since only the first error reaches the client.
type params struct {
	body  url.Values
	query url.Values
	read  map[string]bool
	err   error
}

// parseParams reads the query string and, for methods other than GET and
// HEAD, a form body: URL-encoded or multipart. An empty multipart body
// means no parameters; any other body type is not read, so its parameters
// appear missing.
func parseParams(r *http.Request) (*params, error) {
	p := &params{query: r.URL.Query(), read: map[string]bool{}}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil {
		return p, nil
	}
	mediaType, mtParams, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return p, nil
	}
	body := http.MaxBytesReader(nil, r.Body, maxFormBytes)
	switch mediaType {
	case "application/x-www-form-urlencoded":
		raw, err := io.ReadAll(body)
		if err != nil {
			return nil, bodyError(err)
		}
		if p.body, err = url.ParseQuery(string(raw)); err != nil {
			return nil, &chat.Error{Code: chat.CodeBadRequest, Msg: "Malformed request body", Err: err}
		}
	case "multipart/form-data":
		raw, err := io.ReadAll(body)
		if err != nil {
			return nil, bodyError(err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			return p, nil
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		r.Header.Set("Content-Type", mime.FormatMediaType(mediaType, mtParams))
		if err := r.ParseMultipartForm(maxFormBytes); err != nil {
			if errors.Is(err, multipart.ErrMessageTooLarge) {
				return nil, errBodyTooLarge
			}
			return nil, &chat.Error{Code: chat.CodeBadRequest, Msg: "Malformed multipart body", Err: err}
		}
		p.body = url.Values(r.MultipartForm.Value)
	}
	return p, nil
}

func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errBodyTooLarge
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errBodyTimeout
	}
	return &chat.Error{Code: chat.CodeBadRequest, Msg: "Could not read the request body", Err: err}
}

// lookup returns the raw value of name and marks it read.
func (p *params) lookup(name string) (string, bool) {
	p.read[name] = true
	if vs, ok := p.body[name]; ok && len(vs) > 0 {
		return vs[len(vs)-1], true
	}
	if vs, ok := p.query[name]; ok && len(vs) > 0 {
		return vs[len(vs)-1], true
	}
	return "", false
}

// fail keeps err when it is the first error.
func (p *params) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Err returns the first decoding error.
func (p *params) Err() error { return p.err }

// Ignored returns the sorted names of parameters the handler did not read.
func (p *params) Ignored() []string {
	var out []string
	for _, vs := range []url.Values{p.body, p.query} {
		for name := range vs {
			if !p.read[name] && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// String returns a plain string parameter, taken verbatim.
func (p *params) String(name string) (string, bool) {
	v, ok := p.lookup(name)
	if p.err != nil {
		return "", false
	}
	return v, ok
}

// RequiredString returns a plain string parameter that must be present.
func (p *params) RequiredString(name string) string {
	v, ok := p.String(name)
	if !ok && p.err == nil {
		p.fail(chat.MissingArgument(name))
	}
	return v
}

// jsonValue decodes a JSON-encoded parameter, keeping numbers exact.
func (p *params) jsonValue(name string) (any, bool) {
	raw, ok := p.String(name)
	if !ok {
		return nil, false
	}
	if v, ok := jsonScalar(raw); ok {
		return v, true
	}
	return p.decodeJSON(name, raw)
}

// jsonScalar returns the value of raw when it is a JSON integer or
// boolean as clients write them (nothing around it), the value that
// decodeStrictJSON gives, without a decoder: every long-poll sends
// last_event_id and dont_block, and a decoder cost about 1 KB of
// allocations for each.
func jsonScalar(raw string) (any, bool) {
	switch raw {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	digits := strings.TrimPrefix(raw, "-")
	if digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	return json.Number(raw), true
}

// decodeJSON decodes the JSON text of parameter name strictly and checks
// the limits of its shape: nesting depth and, for the parameters of
// maxListItems, the length of the list.
func (p *params) decodeJSON(name, raw string) (any, bool) {
	if jsonDepth(raw) > maxJSONDepth {
		p.fail(errorf("%s is nested too deeply (limit: %d levels)", name, maxJSONDepth))
		return nil, false
	}
	v, err := decodeStrictJSON(raw)
	if err != nil {
		p.fail(errorf("%s is not valid JSON", name))
		return nil, false
	}
	if limit, ok := maxListItems[name]; ok {
		if list, isList := v.([]any); isList && len(list) > limit {
			p.fail(errorf("%s is too long (limit: %d items)", name, limit))
			return nil, false
		}
	}
	return v, true
}

// jsonDepth returns the deepest nesting of arrays and objects in the JSON
// text raw, which need not be valid; brackets inside strings do not count.
// It runs before decoding, so that a deep value costs no more than its
// length.
func jsonDepth(raw string) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func decodeStrictJSON(raw string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

// Bool returns a JSON boolean parameter, or def when it is absent.
func (p *params) Bool(name string, def bool) bool {
	v, ok := p.jsonValue(name)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		p.fail(errorf("%s is not a boolean", name))
		return def
	}
	return b
}

// asInt converts a decoded JSON value to an integer: a JSON number with no
// fraction or exponent.
func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// IntList returns a JSON array of integers; nil when absent.
func (p *params) IntList(name string) []int64 {
	v, ok := p.jsonValue(name)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		p.fail(errorf("%s is not a list", name))
		return nil
	}
	out := make([]int64, len(list))
	for i, e := range list {
		n, isInt := asInt(e)
		if !isInt {
			p.fail(errorf("%s[%d] is not an integer", name, i))
			return nil
		}
		out[i] = n
	}
	return out
}

func errorf(format string, args ...any) *chat.Error {
	return &chat.Error{Code: chat.CodeBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// RequiredBool returns a JSON boolean parameter that must be present.
func (p *params) RequiredBool(name string) bool {
	if p.err != nil {
		return false
	}
	if _, ok := p.lookup(name); !ok {
		p.fail(chat.MissingArgument(name))
		return false
	}
	return p.Bool(name, false)
}

// Decode reads a JSON-encoded parameter and passes its text to decode (a
// parser of package chat, whose errors carry the exact texts). It reports
// whether the parameter was present and decoded.
func (p *params) Decode(name string, decode func([]byte) error) bool {
	raw, ok := p.String(name)
	if !ok {
		return false
	}
	if _, ok := p.decodeJSON(name, raw); !ok {
		return false
	}
	if err := decode([]byte(raw)); err != nil {
		p.fail(err)
		return false
	}
	return true
}

// Int returns a JSON integer parameter and whether it was present.
func (p *params) Int(name string) (int64, bool) {
	v, ok := p.jsonValue(name)
	if !ok {
		return 0, false
	}
	n, isInt := asInt(v)
	if !isInt {
		p.fail(errorf("%s is not an integer", name))
		return 0, false
	}
	return n, true
}

// RequiredInt returns a JSON integer parameter that must be present.
func (p *params) RequiredInt(name string) int64 {
	n, ok := p.Int(name)
	if !ok && p.err == nil {
		p.fail(chat.MissingArgument(name))
	}
	return n
}

// BoolPtr returns a JSON boolean parameter, nil when absent.
func (p *params) BoolPtr(name string) *bool {
	if _, ok := p.peek(name); !ok {
		p.read[name] = true
		return nil
	}
	b := p.Bool(name, false)
	return &b
}

// peek returns the raw value of name without marking it read.
func (p *params) peek(name string) (string, bool) {
	if vs, ok := p.body[name]; ok && len(vs) > 0 {
		return vs[len(vs)-1], true
	}
	if vs, ok := p.query[name]; ok && len(vs) > 0 {
		return vs[len(vs)-1], true
	}
	return "", false
}

// OptString returns a plain string parameter, or nil when it is absent.
func (p *params) OptString(name string) *string {
	v, ok := p.String(name)
	if !ok {
		return nil
	}
	return &v
}

// OptBool returns a JSON boolean parameter, or nil when it is absent.
func (p *params) OptBool(name string) *bool {
	if _, ok := p.peek(name); !ok {
		p.read[name] = true
		return nil
	}
	b := p.Bool(name, false)
	if p.err != nil {
		return nil
	}
	return &b
}

// OptInt returns a JSON integer parameter, or nil when it is absent.
func (p *params) OptInt(name string) *int64 {
	if _, ok := p.peek(name); !ok {
		p.read[name] = true
		return nil
	}
	n, ok := p.Int(name)
	if !ok || p.err != nil {
		return nil
	}
	return &n
}

// pathID reads the path segment name of r as an ID: one to nineteen ASCII
// digits naming a positive int64, as the reference server's URL patterns
// match them. Anything else names nothing, and errInvalid says so.
func pathID(r *http.Request, name string, errInvalid error) (int64, error) {
	segment := r.PathValue(name)
	if !allDigits(segment) {
		return 0, errInvalid
	}
	id, err := strconv.ParseInt(segment, 10, 64)
	if err != nil || id == 0 {
		return 0, errInvalid
	}
	return id, nil
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
