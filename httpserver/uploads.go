package httpserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat"
)

// uploadRoutes registers the upload routes: POST /api/v1/user_uploads
// (streamed, outside parseParams, which holds bodies in memory), the API
// form of a download, the downloads themselves (outside /api/v1, as in the
// reference server) and the resumable uploads of /api/v1/tus/.
func (s *Server) uploadRoutes() {
	s.handleRaw(Prefix+"/user_uploads", chat.OpUploadFile, []string{http.MethodPost}, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodPost {
			writeMethodNotAllowed(w, []string{http.MethodPost})
			return
		}
		s.postUpload(w, r)
	})
	s.handle("/user_uploads/{realm_id}/{path...}", map[string]endpoint{
		http.MethodGet: {chat.OpTemporaryUploadURL, s.temporaryUploadURL},
	})
	s.handle("/attachments", map[string]endpoint{
		http.MethodGet: {chat.OpAttachments, s.getAttachments},
	})
	s.handle("/attachments/{attachment_id}", map[string]endpoint{
		http.MethodDelete: {chat.OpDeleteAttachment, s.deleteAttachment},
	})
	get := []string{http.MethodGet}
	s.handleRaw("/user_uploads/{realm_id}/{path...}", chat.OpOpenAttachment, get, getOnly(func(w http.ResponseWriter, r *http.Request) {
		s.download(w, r, false)
	}))
	s.handleRaw("/user_uploads/download/{realm_id}/{path...}", chat.OpOpenAttachment, get, getOnly(func(w http.ResponseWriter, r *http.Request) {
		s.download(w, r, true)
	}))
	s.handleRaw("/user_uploads/temporary/{token}/{filename}", chat.OpOpenTemporaryUpload, get, getOnly(s.temporaryDownload))
	s.tusRoutes()
}

// getOnly answers methods other than GET and HEAD with the JSON 405.
func getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeMethodNotAllowed(w, []string{http.MethodGet, http.MethodHead})
			return
		}
		h(w, r)
	}
}

// maxUploadFieldBytes bounds the non-file parts of an upload body, which are
// read and ignored.
const maxUploadFieldBytes = 1 << 20

// bodyReadError marks a failure to read the request body, which is the
// client's, not the storage's.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "reading the request body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// bodyReader tags the read errors of a request body.
type bodyReader struct{ r io.Reader }

func (b bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = &bodyReadError{err}
	}
	return n, err
}

// POST /user_uploads: exactly one file part, under any field name, streamed
// to the blob store part by part; other parts are read and reported as
// ignored parameters.
func (s *Server) postUpload(w http.ResponseWriter, r *http.Request) {
	actor, err := s.admit(w, r, chat.OpUploadFile)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	release, ok := s.transfers.acquire(strconv.FormatInt(actor.UserID(), 10))
	if !ok {
		w.Header().Set("Connection", "close")
		writeError(w, s.log, errTooManyTransfers)
		return
	}
	defer release()
	res, ignored, err := s.streamUpload(w, r, actor)
	if err != nil {
		var readErr *bodyReadError
		if errors.As(err, &readErr) {
			err = bodyError(readErr.err)
		}
		// The client may still be sending a body we will not read.
		w.Header().Set("Connection", "close")
		writeError(w, s.log, err)
		return
	}
	writeSuccess(w, s.log, fields{{"uri", res.URI}, {"url", res.URL}, {"filename", res.Filename}}, ignored)
}

func (s *Server) streamUpload(w http.ResponseWriter, r *http.Request, actor chat.Actor) (chat.UploadResult, []string, error) {
	rc := http.NewResponseController(w)
	ctx := r.Context()
	var ignored []string
	for name := range r.URL.Query() {
		ignored = append(ignored, name)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return chat.UploadResult{}, nil, chat.ErrNoFileToUpload
	}
	var (
		staged     *chat.StagedUpload
		fieldBytes int64
		sawPart    bool
	)
	defer func() {
		if staged != nil {
			staged.Discard(ctx)
		}
	}()
	for {
		part, err := mr.NextPart()
		// An empty body has no parts, not even the final boundary.
		if err == io.EOF || !sawPart && errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return chat.UploadResult{}, nil, &bodyReadError{err}
		}
		sawPart = true
		if part.FileName() == "" {
			// A form field: read it away within the limit of all fields.
			ignored = append(ignored, part.FormName())
			n, err := io.Copy(io.Discard, io.LimitReader(bodyReader{part}, maxUploadFieldBytes-fieldBytes+1))
			if err != nil {
				return chat.UploadResult{}, nil, err
			}
			if fieldBytes += n; fieldBytes > maxUploadFieldBytes {
				return chat.UploadResult{}, nil, errBodyTooLarge
			}
			continue
		}
		if staged != nil {
			return chat.UploadResult{}, nil, chat.ErrOneFileAtATime
		}
		staged, err = s.svc.StageUpload(ctx, actor, chat.Upload{
			Filename:    part.FileName(),
			ContentType: part.Header.Get("Content-Type"),
			Body:        bodyReader{idleReader{r: part, rc: rc}},
		})
		if err != nil {
			return chat.UploadResult{}, nil, err
		}
	}
	if staged == nil {
		return chat.UploadResult{}, nil, chat.ErrNoFileToUpload
	}
	res, err := staged.Commit(ctx)
	staged = nil // committed or deleted by Commit
	if err != nil {
		return chat.UploadResult{}, nil, err
	}
	slices.Sort(ignored)
	return res, slices.Compact(ignored), nil
}

// uploadPath reads the {realm_id} and {path...} segments of a download.
func uploadPath(r *http.Request) (int64, string, bool) {
	realmID, err := pathID(r, "realm_id", chat.ErrFileNotFound)
	rest := r.PathValue("path")
	return realmID, rest, err == nil && rest != ""
}

// GET /api/v1/user_uploads/{realm_id}/{path}: a short-lived URL that needs
// no credentials.
func (s *Server) temporaryUploadURL(c *call) (fields, error) {
	realmID, rest, ok := uploadPath(c.r)
	if !ok {
		return nil, chat.ErrFileNotFound
	}
	url, err := s.svc.TemporaryUploadURL(c.ctx, c.actor, realmID, rest)
	if err != nil {
		return nil, err
	}
	return fields{{"url", url}}, nil
}

// GET /user_uploads/{realm_id}/{path} and /user_uploads/download/...:
// the bytes, to a user allowed to read them (Basic credentials).
func (s *Server) download(w http.ResponseWriter, r *http.Request, forceDownload bool) {
	actor, err := s.admit(w, r, chat.OpOpenAttachment)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	realmID, rest, ok := uploadPath(r)
	if !ok {
		writeFileError(w, s, chat.ErrFileNotFound)
		return
	}
	release, ok := s.transfers.acquire(strconv.FormatInt(actor.UserID(), 10))
	if !ok {
		writeError(w, s.log, errTooManyTransfers)
		return
	}
	defer release()
	a, blob, err := s.svc.OpenAttachment(r.Context(), actor, realmID, rest)
	if err != nil {
		writeFileError(w, s, err)
		return
	}
	defer blob.Close()
	serveBlob(idleWriter{w, http.NewResponseController(w)}, r, s.log, a, blob, forceDownload)
}

// GET /user_uploads/temporary/{token}/{filename}
func (s *Server) temporaryDownload(w http.ResponseWriter, r *http.Request) {
	if _, err := s.admit(w, r, chat.OpOpenTemporaryUpload); err != nil {
		writeError(w, s.log, err)
		return
	}
	release, ok := s.transfers.acquire("ip:" + clientIP(r))
	if !ok {
		writeError(w, s.log, errTooManyTransfers)
		return
	}
	defer release()
	a, blob, err := s.svc.OpenTemporaryUpload(r.Context(), r.PathValue("token"), r.PathValue("filename"))
	if err != nil {
		writeFileError(w, s, err)
		return
	}
	defer blob.Close()
	serveBlob(idleWriter{w, http.NewResponseController(w)}, r, s.log, a, blob, false)
}

// writeFileError answers a failed download: a missing or forbidden file
// with the reference server's HTML page, anything else as JSON.
func writeFileError(w http.ResponseWriter, s *Server, err error) {
	if errors.Is(err, chat.ErrFileNotFound) {
		body := "<p>" + chat.ErrFileNotFound.Msg + "</p>"
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, body)
		return
	}
	writeError(w, s.log, err)
}

// inlineTypes are the content types a browser may show in place; anything
// else is served as a download, so that an uploaded page or script never
// runs in the server's origin.
func inlineType(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "image/svg+xml":
		return false
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "audio/"):
		return true
	}
	return mt == "application/pdf" || mt == "text/plain"
}

// serveBlob writes a file with its name and type; ranges, HEAD and
// conditional requests come from http.ServeContent. A blob that its store
// serves itself (an S3 store's) is answered with a redirect to its
// short-lived link, with the same headers, as the reference server does
// with S3.
func serveBlob(w http.ResponseWriter, r *http.Request, log *slog.Logger, a chat.Attachment, blob chat.Blob, forceDownload bool) {
	disposition := "attachment"
	if !forceDownload && inlineType(a.ContentType) {
		disposition = "inline"
	}
	header := chat.BlobHeader{
		ContentType:        a.ContentType,
		ContentDisposition: mime.FormatMediaType(disposition, map[string]string{"filename": a.Name}),
		CacheControl:       "private, max-age=3600",
	}
	h := w.Header()
	if lb, ok := blob.(chat.LinkedBlob); ok {
		link, err := lb.Link(r.Context(), header)
		if err != nil {
			writeError(w, log, fmt.Errorf("linking to a download: %w", err))
			return
		}
		// The link lives a minute or so: never cache the redirect longer.
		h.Set("Cache-Control", "private, no-store")
		http.Redirect(w, r, link, http.StatusFound)
		return
	}
	h.Set("Content-Type", header.ContentType)
	h.Set("Content-Disposition", header.ContentDisposition)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Set("Cache-Control", header.CacheControl)
	http.ServeContent(w, r, "", blob.ModTime(), blob)
}

// GET /attachments
func (s *Server) getAttachments(c *call) (fields, error) {
	res, err := s.svc.Attachments(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"attachments", res.Attachments}, {"upload_space_used", res.UploadSpaceUsed}}, nil
}

// DELETE /attachments/{attachment_id}
func (s *Server) deleteAttachment(c *call) (fields, error) {
	id, err := pathID(c.r, "attachment_id", chat.ErrInvalidAttachment)
	if err != nil {
		return nil, err
	}
	return nil, s.svc.DeleteAttachment(c.ctx, c.actor, id)
}
