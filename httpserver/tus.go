package httpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat"
)

// Resumable uploads: the tus 1.0.0 core protocol with the creation,
// termination, expiration and concatenation extensions, at /api/v1/tus/, behind the API's
// Basic authentication. The protocol lives here; the rules (owner, size
// limit, lifetime, the attachment made at the end) in chat.Service.

const tusVersion = "1.0.0"

// tusExtensions are the extensions of the protocol served.
const tusExtensions = "creation,termination,expiration,concatenation"

// setExpires writes Upload-Expires for an upload that can still expire.
func setExpires(h http.Header, up chat.ResumableUpload) {
	if !up.Expires.IsZero() && up.Result == nil {
		h.Set("Upload-Expires", up.Expires.UTC().Format(http.TimeFormat))
	}
}

func (s *Server) tusRoutes() {
	collection := func(w http.ResponseWriter, r *http.Request) {
		s.tus(w, r, "")
	}
	// OPTIONS, which tus answers without credentials, is not listed.
	create := []string{http.MethodPost}
	s.handleRaw(Prefix+"/tus", chat.OpResumableUpload, create, collection)
	s.handleRaw(Prefix+"/tus/{$}", chat.OpResumableUpload, create, collection)
	s.handleRaw(Prefix+"/tus/{id}", chat.OpResumableUpload, []string{http.MethodHead, http.MethodPatch, http.MethodDelete}, func(w http.ResponseWriter, r *http.Request) {
		s.tus(w, r, r.PathValue("id"))
	})
}

// tusError writes a tus failure: the status, and the message as
// {"message": ...} (the reference server's tus answers).
func tusError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"message": msg})
	b = append(b, '\n')
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, b)
}

// tusStatus is the tus status of a domain error; ok is false for errors
// that are not the protocol's (authentication, internal).
func tusStatus(err error) (int, bool) {
	var e *chat.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	switch {
	case errors.Is(err, chat.ErrUploadNotFound):
		return http.StatusNotFound, true
	case errors.Is(err, chat.ErrUploadOffsetMismatch):
		return http.StatusConflict, true
	case errors.Is(err, chat.ErrUploadTooLong):
		return http.StatusRequestEntityTooLarge, true
	case errors.Is(err, chat.ErrUploadSizeDeferred):
		return http.StatusLengthRequired, true
	case errors.Is(err, chat.ErrPartialIncomplete):
		return http.StatusBadRequest, true
	case strings.HasPrefix(e.Msg, "File is larger than"):
		return http.StatusRequestEntityTooLarge, true
	}
	return 0, false
}

func (s *Server) tus(w http.ResponseWriter, r *http.Request, id string) {
	h := w.Header()
	h.Set("Tus-Resumable", tusVersion)
	if r.Method == http.MethodOptions {
		h.Set("Tus-Version", tusVersion)
		h.Set("Tus-Extension", tusExtensions)
		h.Set("Tus-Max-Size", strconv.FormatInt(int64(s.svc.MaxUploadMiB())<<20, 10))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// Clients behind proxies that pass only GET and POST name the method
	// in X-HTTP-Method-Override, as the tus protocol allows.
	if o := r.Header.Get("X-HTTP-Method-Override"); o != "" && r.Method == http.MethodPost {
		r.Method = strings.ToUpper(o)
	}
	allowed := []string{http.MethodOptions, http.MethodPost}
	if id != "" {
		allowed = []string{http.MethodDelete, http.MethodHead, http.MethodOptions, http.MethodPatch}
	}
	if !slices.Contains(allowed, r.Method) {
		writeMethodNotAllowed(w, allowed)
		return
	}
	if r.Header.Get("Tus-Resumable") != tusVersion {
		h.Set("Tus-Version", tusVersion)
		tusError(w, http.StatusPreconditionFailed, "Unsupported version")
		return
	}
	actor, err := s.admit(w, r, chat.OpResumableUpload)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.tusCreate(w, r, actor)
	case http.MethodHead:
		s.tusHead(w, r, actor, id)
	case http.MethodPatch:
		s.tusPatch(w, r, actor, id)
	case http.MethodDelete:
		if err := s.svc.TerminateResumableUpload(r.Context(), actor, id); err != nil {
			s.tusFail(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// fail answers a domain error of a tus request.
func (s *Server) tusFail(w http.ResponseWriter, err error) {
	if status, ok := tusStatus(err); ok {
		var e *chat.Error
		errors.As(err, &e)
		tusError(w, status, e.Msg)
		return
	}
	writeError(w, s.log, err)
}

// parseTusMetadata decodes Upload-Metadata: comma-separated pairs of a key
// and an optional base64 value.
func parseTusMetadata(header string) (map[string]string, bool) {
	out := map[string]string{}
	if strings.TrimSpace(header) == "" {
		return out, true
	}
	for _, pair := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(pair), " ")
		if key == "" {
			return nil, false
		}
		decoded, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return nil, false
		}
		out[key] = string(decoded)
	}
	return out, true
}

// formatTusMetadata encodes metadata as Upload-Metadata does, keys in
// order.
func formatTusMetadata(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k
		if m[k] != "" {
			pairs[i] += " " + base64.StdEncoding.EncodeToString([]byte(m[k]))
		}
	}
	return strings.Join(pairs, ",")
}

// POST /api/v1/tus/: creation.
func (s *Server) tusCreate(w http.ResponseWriter, r *http.Request, actor chat.Actor) {
	if concat := r.Header.Get("Upload-Concat"); strings.HasPrefix(concat, "final;") {
		s.tusConcatenate(w, r, actor, strings.TrimPrefix(concat, "final;"))
		return
	} else if concat != "" && concat != "partial" {
		tusError(w, http.StatusBadRequest, "Invalid Upload-Concat header")
		return
	}
	var length int64 = -1
	if v := r.Header.Get("Upload-Length"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			tusError(w, http.StatusBadRequest, "Invalid Upload-Length header")
			return
		}
		length = n
	} else if r.Header.Get("Upload-Defer-Length") != "1" {
		tusError(w, http.StatusBadRequest, "Missing Upload-Length header")
		return
	}
	meta, ok := parseTusMetadata(r.Header.Get("Upload-Metadata"))
	if !ok {
		tusError(w, http.StatusBadRequest, "Invalid Upload-Metadata header")
		return
	}
	var up chat.ResumableUpload
	var err error
	if r.Header.Get("Upload-Concat") == "partial" {
		up, err = s.svc.CreatePartialUpload(r.Context(), actor, length)
		w.Header().Set("Upload-Concat", "partial")
	} else {
		up, err = s.svc.CreateResumableUpload(r.Context(), actor, length, meta)
	}
	if err != nil {
		s.tusFail(w, err)
		return
	}
	w.Header().Set("Location", Prefix+"/tus/"+up.ID)
	w.Header().Set("Upload-Offset", "0")
	setExpires(w.Header(), up)
	if up.Result != nil { // empty: complete at once
		writeUploadResult(w, http.StatusCreated, up.Result)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// tusConcatenate answers POST with Upload-Concat: final;{urls}: the
// partial uploads named, in order, become one file.
func (s *Server) tusConcatenate(w http.ResponseWriter, r *http.Request, actor chat.Actor, urls string) {
	var ids []string
	for _, u := range strings.Fields(urls) {
		if i := strings.LastIndex(u, "/tus/"); i >= 0 {
			u = u[i+len("/tus/"):]
		}
		ids = append(ids, strings.TrimSuffix(u, "/"))
	}
	if len(ids) == 0 {
		tusError(w, http.StatusBadRequest, "Invalid Upload-Concat header")
		return
	}
	meta, ok := parseTusMetadata(r.Header.Get("Upload-Metadata"))
	if !ok {
		tusError(w, http.StatusBadRequest, "Invalid Upload-Metadata header")
		return
	}
	up, err := s.svc.ConcatenateUploads(r.Context(), actor, ids, meta)
	if err != nil {
		s.tusFail(w, err)
		return
	}
	w.Header().Set("Location", Prefix+"/tus/"+up.ID)
	w.Header().Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
	writeUploadResult(w, http.StatusCreated, up.Result)
}

// HEAD /api/v1/tus/{id}: where to resume.
func (s *Server) tusHead(w http.ResponseWriter, r *http.Request, actor chat.Actor, id string) {
	up, err := s.svc.ResumableUploadState(r.Context(), actor, id)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if err != nil {
		if status, ok := tusStatus(err); ok {
			w.WriteHeader(status)
			return
		}
		writeError(w, s.log, err)
		return
	}
	h.Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
	h.Set("Upload-Length", strconv.FormatInt(up.Length, 10))
	setExpires(h, up)
	if up.Partial {
		h.Set("Upload-Concat", "partial")
	}
	if len(up.Metadata) > 0 {
		h.Set("Upload-Metadata", formatTusMetadata(up.Metadata))
	}
	w.WriteHeader(http.StatusOK)
}

// PATCH /api/v1/tus/{id}: the next bytes. The answer to the request that
// completes the upload carries the JSON of POST /user_uploads.
func (s *Server) tusPatch(w http.ResponseWriter, r *http.Request, actor chat.Actor, id string) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/offset+octet-stream" {
		tusError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/offset+octet-stream")
		return
	}
	offset, err := strconv.ParseInt(r.Header.Get("Upload-Offset"), 10, 64)
	if err != nil || offset < 0 {
		tusError(w, http.StatusBadRequest, "Invalid Upload-Offset header")
		return
	}
	release, ok := s.transfers.acquire(strconv.FormatInt(actor.UserID(), 10))
	if !ok {
		w.Header().Set("Connection", "close")
		tusError(w, http.StatusTooManyRequests, errTooManyTransfers.Msg)
		return
	}
	defer release()
	body := idleReader{r: r.Body, rc: http.NewResponseController(w)}
	up, err := s.svc.AppendResumableUpload(r.Context(), actor, id, offset, bodyReader{body})
	var readErr *bodyReadError
	switch {
	case errors.As(err, &readErr):
		// What arrived is kept; the client resumes from Upload-Offset.
		w.Header().Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
		tusError(w, http.StatusBadRequest, "Could not read the request body")
		return
	case err != nil:
		s.tusFail(w, err)
		return
	}
	w.Header().Set("Upload-Offset", strconv.FormatInt(up.Offset, 10))
	setExpires(w.Header(), up)
	if up.Result != nil && up.Offset == up.Length {
		writeUploadResult(w, http.StatusOK, up.Result)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// writeUploadResult writes the success envelope of POST /user_uploads.
func writeUploadResult(w http.ResponseWriter, status int, res *chat.UploadResult) {
	b := []byte(`{"result":"success","msg":"","uri":`)
	b, _ = appendValue(b, res.URI)
	b = append(b, `,"url":`...)
	b, _ = appendValue(b, res.URL)
	b = append(b, `,"filename":`...)
	b, _ = appendValue(b, res.Filename)
	b = append(b, "}\n"...)
	writeJSON(w, status, b)
}
