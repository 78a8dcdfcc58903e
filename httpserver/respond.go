package httpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/teamchat/chat"
)

// field is one key of a success answer, after "result" and "msg".
type field struct {
	key string
	val any
}

// fields is a success answer's data, in the order it is written.
type fields []field

// inline is a field value whose JSON object members are written at the top
// level of the answer, as GET /users/me does with the user object.
type inline struct{ v any }

// appender is implemented by values that write their own JSON (the user
// lists), which skips the reflection and re-validation of encoding/json.
type appender interface {
	AppendJSON([]byte) []byte
}

// sizeHinter is implemented by large values that can estimate their JSON
// length, so that the answer is allocated once.
type sizeHinter interface {
	SizeHint() int
}

// statusByCode maps error codes to HTTP statuses; codes not listed answer
// 400, as in the reference server.
var statusByCode = map[chat.Code]int{
	chat.CodeUnauthorized:          http.StatusUnauthorized,
	chat.CodeAuthenticationFailed:  http.StatusUnauthorized,
	chat.CodeUserDeactivated:       http.StatusUnauthorized,
	chat.CodeRealmDeactivated:      http.StatusUnauthorized,
	chat.CodePasswordAuthDisabled:  http.StatusUnauthorized,
	chat.CodePasswordResetRequired: http.StatusUnauthorized,
	chat.CodeNonexistentSubdomain:  http.StatusNotFound,
	chat.CodeNotFound:              http.StatusNotFound,
	chat.CodeRateLimitHit:          http.StatusTooManyRequests,
	chat.CodeInternalServerError:   http.StatusInternalServerError,
	// Push relay failures.
	chat.CodeAdminActionRequired:          http.StatusForbidden,
	chat.CodeFailedToConnectBouncer:       http.StatusBadGateway,
	chat.CodeInternalServerErrorOnBouncer: http.StatusBadGateway,
}

// statusByError gives the few errors whose status is not their code's: a
// request body that is too large (413) or too slow (408) is refused with
// the HTTP status that proxies and clients know, while its body is the
// usual BAD_REQUEST envelope.
var statusByError = map[*chat.Error]int{
	errBodyTooLarge: http.StatusRequestEntityTooLarge,
	errBodyTimeout:  http.StatusRequestTimeout,
}

// internalError is what clients see of any failure that is not theirs.
var internalError = &chat.Error{Code: chat.CodeInternalServerError, Msg: "Internal server error"}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// appendValue appends the JSON form of v, without HTML escaping.
func appendValue(b []byte, v any) ([]byte, error) {
	if a, ok := v.(appender); ok {
		return a.AppendJSON(b), nil
	}
	if s, ok := v.(string); ok && plainJSONString(s) {
		// A queue ID, a name: quoted as encoding/json quotes it, without
		// an encoder (every long-poll's answer carries one).
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"'), nil
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// plainJSONString reports whether s is printable ASCII that JSON writes
// as it is, between quotes (encoding/json with SetEscapeHTML(false)).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// writeSuccess writes the success envelope: result, msg, the fields in
// order, and ignored_parameters_unsupported when the request carried
// parameters that the operation did not read.
func writeSuccess(w http.ResponseWriter, log *slog.Logger, data fields, ignored []string) {
	size := 256
	for _, f := range data {
		if h, ok := f.val.(sizeHinter); ok {
			size += h.SizeHint()
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"result":"success","msg":""`...)
	var err error
	for _, f := range data {
		if in, ok := f.val.(inline); ok {
			obj, e := appendValue(nil, in.v)
			if e != nil || len(obj) < 2 || obj[0] != '{' {
				err = errors.Join(e, errors.New("inline value is not a JSON object"))
				break
			}
			if len(obj) > 2 {
				b = append(b, ',')
				b = append(b, obj[1:len(obj)-1]...)
			}
			continue
		}
		b = append(b, ',')
		b = strconv.AppendQuote(b, f.key)
		b = append(b, ':')
		if b, err = appendValue(b, f.val); err != nil {
			break
		}
	}
	if err != nil {
		writeError(w, log, err)
		return
	}
	if len(ignored) > 0 {
		b = append(b, `,"ignored_parameters_unsupported":`...)
		b, _ = appendValue(b, ignored)
	}
	b = append(b, "}\n"...)
	writeJSON(w, http.StatusOK, b)
}

// writeError writes the error envelope of err. A *chat.Error is shown as it
// is; anything else, and internal errors, are logged with their cause and
// answered with a generic 500.
func writeError(w http.ResponseWriter, log *slog.Logger, err error) {
	var e *chat.Error
	if !errors.As(err, &e) || e.Code == chat.CodeInternalServerError {
		log.Error("internal error", "err", err)
		e = internalError
	}
	status, ok := statusByError[e]
	if !ok {
		status, ok = statusByCode[e.Code]
	}
	if !ok {
		status = http.StatusBadRequest
	}
	if e.Code == chat.CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="zulip"`)
	}
	b := make([]byte, 0, 128)
	b = append(b, `{"result":"error","msg":`...)
	b, _ = appendValue(b, e.Msg)
	b = append(b, `,"code":`...)
	b, _ = appendValue(b, string(e.Code))
	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(b, ',')
		b, _ = appendValue(b, k)
		b = append(b, ':')
		var vErr error
		if b, vErr = appendValue(b, e.Data[k]); vErr != nil {
			log.Error("encoding error data", "key", k, "err", vErr)
			b = append(b, "null"...)
		}
	}
	b = append(b, "}\n"...)
	writeJSON(w, status, b)
}

// writeMethodNotAllowed answers a method the route does not serve. Like the
// reference server, the body has no code.
func writeMethodNotAllowed(w http.ResponseWriter, allowed []string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	b := []byte(`{"result":"error","msg":"Method Not Allowed","allowed_methods":`)
	b, _ = appendValue(b, allowed)
	b = append(b, "}\n"...)
	writeJSON(w, http.StatusMethodNotAllowed, b)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
