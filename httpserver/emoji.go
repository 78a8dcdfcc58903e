package httpserver

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/teamchat/chat"
)

// emojiRoutes registers adding and deactivating custom emoji (outside
// parseParams: the image is a multipart file) and the emoji images, public
// as in the reference server's local-storage layout.
func (s *Server) emojiRoutes() {
	methods := []string{http.MethodPost, http.MethodDelete}
	ops := map[string]chat.Operation{http.MethodPost: chat.OpAddRealmEmoji, http.MethodDelete: chat.OpDeactivateRealmEmoji}
	s.handleRawOps(Prefix+"/realm/emoji/{emoji_name}", ops, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			s.addRealmEmoji(w, r)
		case http.MethodDelete:
			s.deactivateRealmEmoji(w, r)
		default:
			writeMethodNotAllowed(w, methods)
		}
	})
	s.handleRaw("/user_avatars/{realm_id}/emoji/images/{file}", chat.OpRealmEmojiImage, []string{http.MethodGet},
		getOnly(s.emojiImage))
}

// POST /realm/emoji/{emoji_name}: one file part, of at most 5 MiB.
func (s *Server) addRealmEmoji(w http.ResponseWriter, r *http.Request) {
	actor, err := s.admit(w, r, chat.OpAddRealmEmoji)
	if err == nil {
		err = s.readEmojiUpload(r, actor)
	}
	if err != nil {
		var readErr *bodyReadError
		if errors.As(err, &readErr) {
			err = bodyError(readErr.err)
		}
		w.Header().Set("Connection", "close")
		writeError(w, s.log, err)
		return
	}
	writeSuccess(w, s.log, nil, nil)
}

func (s *Server) readEmojiUpload(r *http.Request, actor chat.Actor) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return chat.ErrNoFileToUpload
	}
	var fieldBytes int64
	files := 0
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return &bodyReadError{err}
		}
		if part.FileName() == "" {
			n, err := io.Copy(io.Discard, io.LimitReader(bodyReader{part}, maxUploadFieldBytes-fieldBytes+1))
			if err != nil {
				return err
			}
			if fieldBytes += n; fieldBytes > maxUploadFieldBytes {
				return errBodyTooLarge
			}
			continue
		}
		if files++; files > 1 {
			return chat.ErrOneFileAtATime
		}
		if err := s.svc.AddRealmEmoji(r.Context(), actor, r.PathValue("emoji_name"), bodyReader{part}); err != nil {
			return err
		}
	}
	if files == 0 {
		return chat.ErrNoFileToUpload
	}
	return nil
}

// DELETE /realm/emoji/{emoji_name}
func (s *Server) deactivateRealmEmoji(w http.ResponseWriter, r *http.Request) {
	actor, err := s.admit(w, r, chat.OpDeactivateRealmEmoji)
	if err == nil {
		err = s.svc.DeactivateRealmEmoji(r.Context(), actor, r.PathValue("emoji_name"))
	}
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	writeSuccess(w, s.log, nil, nil)
}

// GET /user_avatars/{realm_id}/emoji/images/{file}
func (s *Server) emojiImage(w http.ResponseWriter, r *http.Request) {
	if _, err := s.admit(w, r, chat.OpRealmEmojiImage); err != nil {
		writeError(w, s.log, err)
		return
	}
	realmID, err := strconv.ParseInt(r.PathValue("realm_id"), 10, 64)
	if err != nil {
		writeFileError(w, s, chat.ErrFileNotFound)
		return
	}
	file := r.PathValue("file")
	blob, err := s.svc.OpenRealmEmojiImage(r.Context(), realmID, file)
	if err != nil {
		writeFileError(w, s, err)
		return
	}
	defer blob.Close()
	if ct := mime.TypeByExtension(path.Ext(file)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	// An image's name changes with its content: it may be cached for long.
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, blob)
}
