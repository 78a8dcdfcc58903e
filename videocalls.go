package chat

import (
	"context"
	"encoding/base32"
	"errors"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/teamchat/chat/storage"
)

// VideoCallProvider creates video-call URLs for POST /calls/videocall/create.
// Set one as Config.VideoCalls; without one, video calls are off.
type VideoCallProvider interface {
	// ID is the provider's video_chat_provider value, never
	// VideoChatDisabled.
	ID() int64
	// HasToken reports whether the user has completed the provider's
	// authorization (has_videocall_token). Providers that need none report
	// true.
	HasToken(ctx context.Context, userID int64) (bool, error)
	// CreateCall returns the URL of a new call for the request. It returns
	// *Error values for failures the user should see (such as
	// CodeInvalidVideoCallProviderToken); any other error is internal.
	CreateCall(ctx context.Context, req VideoCallRequest) (string, error)
}

// VideoCallRequest describes who asks for a call.
type VideoCallRequest struct {
	RealmID int64
	UserID  int64
	// Rand is the service's source of randomness, for room names.
	Rand io.Reader
}

// Video-call provider IDs of the built-in providers, as the reference
// server numbers them.
const (
	VideoChatJitsiMeet int64 = 1
	VideoChatZoom      int64 = 3
)

// Video-call errors.
var (
	// ErrVideoCallsNotConfigured answers a call request on a server
	// without a provider (the reference names the provider's missing
	// credentials; this server may have no provider at all).
	ErrVideoCallsNotConfigured = &Error{Code: CodeBadRequest, Msg: "Video call provider credentials have not been configured"}
	// ErrVideoCallsDisabled answers a call request in an organization
	// whose video_chat_provider is VideoChatDisabled.
	ErrVideoCallsDisabled = &Error{Code: CodeBadRequest, Msg: "Video calls are disabled in this organization"}
)

// JitsiMeet is a provider that needs no account: each call is a room with
// an unguessable name on a Jitsi-style meeting server, which creates rooms
// on first visit.
type JitsiMeet struct {
	// ServerURL is the meeting server, such as https://meet.example.org.
	ServerURL string
}

// ID returns VideoChatJitsiMeet.
func (JitsiMeet) ID() int64 { return VideoChatJitsiMeet }

// HasToken returns true: Jitsi needs no authorization.
func (JitsiMeet) HasToken(context.Context, int64) (bool, error) { return true, nil }

// roomNameEncoding spells room names in lower-case letters and digits,
// which every meeting server accepts in a path.
var roomNameEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// CreateCall returns ServerURL followed by a room name of 128 random bits.
func (j JitsiMeet) CreateCall(_ context.Context, req VideoCallRequest) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(req.Rand, b[:]); err != nil {
		return "", err
	}
	return strings.TrimRight(j.ServerURL, "/") + "/" + roomNameEncoding.EncodeToString(b[:]), nil
}

// NewJitsiMeet checks that serverURL is an absolute http(s) URL and returns
// the provider.
func NewJitsiMeet(serverURL string) (JitsiMeet, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return JitsiMeet{}, errors.New("the video-call server URL must be an absolute http or https URL without query")
	}
	return JitsiMeet{ServerURL: serverURL}, nil
}

// VideoCallTokens stores the users' OAuth access tokens of an
// OAuthVideoCalls provider.
type VideoCallTokens interface {
	// Token returns the user's token, or ErrNotFound when there is none.
	Token(ctx context.Context, userID int64) (string, error)
	// SetToken stores the user's token after the OAuth flow.
	SetToken(ctx context.Context, userID int64, token string) error
	// ClearToken forgets the user's token; no token is not an error.
	ClearToken(ctx context.Context, userID int64) error
}

// ErrInvalidVideoCallToken is what OAuthVideoCalls.Meet returns when the
// provider refused the token (expired, revoked).
var ErrInvalidVideoCallToken = errors.New("chat: video-call provider refused the access token")

// OAuthVideoCalls is the shape of providers whose meetings belong to the
// user's own account there (Zoom, Webex): the user authorizes the service
// once through OAuth, and each call is created with that user's token.
type OAuthVideoCalls struct {
	// ProviderID is the video_chat_provider value, such as
	// VideoChatZoom.
	ProviderID int64
	// DisplayName names the provider in error messages, such as "Zoom".
	DisplayName string
	// Tokens holds the users' tokens.
	Tokens VideoCallTokens
	// Meet creates a meeting with the token and returns its URL; it
	// returns ErrInvalidVideoCallToken when the provider refused the token.
	Meet func(ctx context.Context, token string) (string, error)
}

// ID returns ProviderID.
func (o *OAuthVideoCalls) ID() int64 { return o.ProviderID }

// HasToken reports whether the user has a stored token.
func (o *OAuthVideoCalls) HasToken(ctx context.Context, userID int64) (bool, error) {
	_, err := o.Tokens.Token(ctx, userID)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// CreateCall creates a meeting with the user's token. A user without a
// token, or whose token the provider refused (the token is then
// forgotten), gets INVALID_VIDEO_CALL_PROVIDER_TOKEN "Invalid {DisplayName}
// access token"; another failure of Meet is "Failed to create
// {DisplayName} call".
func (o *OAuthVideoCalls) CreateCall(ctx context.Context, req VideoCallRequest) (string, error) {
	invalid := &Error{Code: CodeInvalidVideoCallProviderToken, Msg: "Invalid " + o.DisplayName + " access token"}
	token, err := o.Tokens.Token(ctx, req.UserID)
	if errors.Is(err, storage.ErrNotFound) {
		return "", invalid
	}
	if err != nil {
		return "", err
	}
	link, err := o.Meet(ctx, token)
	if errors.Is(err, ErrInvalidVideoCallToken) {
		if err := o.Tokens.ClearToken(ctx, req.UserID); err != nil {
			return "", err
		}
		return "", invalid
	}
	if err != nil {
		return "", &Error{Code: CodeBadRequest, Msg: "Failed to create " + o.DisplayName + " call", Err: err}
	}
	return link, nil
}

// MemoryVideoCallTokens is a VideoCallTokens in memory, for tests and
// single-process servers. The zero value is ready to use.
type MemoryVideoCallTokens struct {
	mu     sync.Mutex
	tokens map[int64]string
}

// Token returns the user's token or ErrNotFound.
func (m *MemoryVideoCallTokens) Token(_ context.Context, userID int64) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[userID]
	if !ok {
		return "", storage.ErrNotFound
	}
	return t, nil
}

// SetToken stores the user's token.
func (m *MemoryVideoCallTokens) SetToken(_ context.Context, userID int64, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[int64]string{}
	}
	m.tokens[userID] = token
	return nil
}

// ClearToken forgets the user's token.
func (m *MemoryVideoCallTokens) ClearToken(_ context.Context, userID int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, userID)
	return nil
}

// CreateVideoCall returns the URL of a new video call from the configured
// provider. Any active user may call it.
//
// Errors: ErrVideoCallsNotConfigured when the server has no provider;
// ErrVideoCallsDisabled when the organization turned video calls off; the
// provider's errors (INVALID_VIDEO_CALL_PROVIDER_TOKEN for OAuth providers).
func (s *Service) CreateVideoCall(ctx context.Context, actor Actor) (string, error) {
	var req VideoCallRequest
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		if s.cfg.VideoCalls == nil {
			return ErrVideoCallsNotConfigured
		}
		if realm.VideoChatProvider == VideoChatDisabled {
			return ErrVideoCallsDisabled
		}
		req = VideoCallRequest{RealmID: realm.ID, UserID: u.ID, Rand: s.cfg.Rand}
		return nil
	})
	if err != nil {
		return "", err
	}
	// The provider may call out over the network: not inside a transaction.
	link, err := s.cfg.VideoCalls.CreateCall(ctx, req)
	var e *Error
	if errors.As(err, &e) && e.Code == CodeInvalidVideoCallProviderToken {
		// The user has no usable token (any refused one is forgotten):
		// their clients learn that they must authorize again.
		s.cfg.Events.Publish(ctx, []Event{{RealmID: req.RealmID, UserIDs: []int64{req.UserID},
			Payload: map[string]any{"type": "has_videocall_token", "value": false}}})
	}
	return link, internal(err)
}

// HasVideoCallToken reports whether the actor has completed the
// authorization of the configured video-call provider (false without one).
// Any active user may call it. Errors: those of authentication.
func (s *Service) HasVideoCallToken(ctx context.Context, actor Actor) (bool, error) {
	if err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, _, err := s.actor(tx, actor)
		return err
	}); err != nil {
		return false, err
	}
	if s.cfg.VideoCalls == nil {
		return false, nil
	}
	ok, err := s.cfg.VideoCalls.HasToken(ctx, actor.UserID())
	return ok, internal(err)
}
