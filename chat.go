// Package chat is an embeddable team-chat service: organizations, users,
// channels, topics, messages, reactions, uploads and push, with every business
// rule and permission check of the service's API.
//
// A Service is built from a Store (see the storage/memory and storage/sqlite
// packages) and a Config whose zero value works. Every operation is a method
// whose acting party is an explicit Actor: AsUser for a user the caller has
// authenticated, or Service.AuthenticateRequest for a request's
// credentials. The method re-reads that user inside its own transaction and
// checks that the account is active and allowed to act; no credential or
// user travels in a context. Failures are always *Error values carrying the
// wire code and the exact client-visible message, so the same rules hold
// whether the caller is a Go program or the HTTP adapter in the httpserver
// package.
package chat

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
	"golang.org/x/crypto/bcrypt"
)

// ServiceVersion is the release reported as service_version when
// Config.ServiceVersion is empty.
const ServiceVersion = "0.1.0"

// FeatureLevel is the service_feature_level reported to clients: the
// highest feature level of the reference API up to which every change this
// server's clients rely on is implemented, from 9 (principals as integers)
// to 490 (is_deleted).
const FeatureLevel = 490

// Config holds the settings of a Service. Every field has a working zero
// value, described with the field.
type Config struct {
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
	// Rand is the source of API keys and other secrets. Nil means
	// crypto/rand.Reader.
	Rand io.Reader
	// PasswordCost is the bcrypt cost for stored passwords. Zero means
	// bcrypt.DefaultCost; tests use bcrypt.MinCost to run fast.
	PasswordCost int
	// ServiceVersion is reported as service_version. Empty means the
	// ServiceVersion constant.
	ServiceVersion string
	// FakeEmailDomain is the domain of placeholder email addresses
	// (user{id}@domain) for organizations whose host is not a valid email
	// domain. Empty means "localhost".
	FakeEmailDomain string
	// Logger receives internal errors. Nil means slog.Default().
	Logger *slog.Logger
	// Hub holds the event queues of clients (POST /register). Nil means a
	// new Hub with default options, closed with the Service.
	Hub *Hub
	// Events receives the events of committed operations. Nil means Hub;
	// a server sharing its database with other processes wraps Hub in a
	// sink that also tells them. A sink that is a TxEventSink gets the
	// events of write operations inside their transaction.
	Events EventSink
	// JWTSecret is the key that verifies the tokens of POST
	// /jwt/fetch_api_key. Empty disables JWT login, except for the
	// organizations of JWTKeys.
	JWTSecret []byte
	// JWTKeys are keys of single organizations, by host, as the
	// reference's per-subdomain keys: a token signed with one logs in to
	// that organization only, and such an organization does not accept
	// JWTSecret.
	JWTKeys map[string][]byte
	// JWTAlgorithms are the accepted signing algorithms of those tokens.
	// Empty means HS256 only.
	JWTAlgorithms []string
	// JWTRequireExpiry refuses tokens without an exp claim, so that no
	// token logs in forever. Off by default, as in the reference server,
	// whose tokens need only an email claim.
	JWTRequireExpiry bool
	// MaxUploadMiB is the largest file, in mebibytes, that an upload may
	// store (max_file_upload_size_mib). Zero means DefaultMaxUploadMiB.
	MaxUploadMiB int
	// Blobs stores the bytes of uploaded files. Nil means in memory, lost
	// when the program ends; servers use the storage/blobfs package (a
	// directory), or storage/blobs3 (an S3-compatible bucket, which
	// processes on several machines share).
	Blobs BlobStore
	// APIKeySecret seals the API keys that the store holds, so that a copy
	// of the database yields no key that authenticates. Every process of
	// one database needs the same secret, kept outside it, at every start:
	// a key sealed under another secret neither authenticates nor can be
	// shown. Empty keeps keys readable in the store, as the reference
	// server does; SealAPIKeys seals those once a secret is set.
	APIKeySecret []byte
	// UploadURLKey signs the temporary download URLs of uploads. Empty
	// means a random key, so URLs from before a restart stop working
	// (they only last TemporaryURLValidity anyway); set it when several
	// processes serve the same uploads.
	UploadURLKey []byte
	// PushRelay sends push notifications to mobile devices. Nil disables
	// push: server_settings reports push_notifications_enabled false and
	// devices cannot register for end-to-end-encrypted push. The
	// pushrelay package provides the HTTP client.
	PushRelay PushRelay
	// WebPublicChannels lets organization owners create web-public
	// channels in organizations with spectator access. False means
	// "Web-public channels are not enabled."
	WebPublicChannels bool
	// RenderTimeBudget bounds the rendering of a long message (1 000 bytes
	// or more; shorter ones take microseconds): past it the message is
	// refused with ErrUnableToRender, as the reference refuses what its
	// renderer gives up on. Zero means DefaultRenderTimeBudget.
	RenderTimeBudget time.Duration
	// HighlightBudget bounds the time one message's code blocks spend in
	// the syntax highlighter's lexers, which on some input take far longer
	// than on code: past it, the message's other blocks are written
	// unhighlighted. Its math gets as long in KaTeX, past which the rest
	// is its source in tex-error spans. Zero means DefaultHighlightBudget
	// (250 ms).
	HighlightBudget time.Duration
	// DeleteTopicTimeBudget bounds the time one delete_topic request spends
	// deleting batches before it answers complete: false. Zero means 50
	// seconds, as the reference server.
	DeleteTopicTimeBudget time.Duration
	// AuthenticationMethods lists the login methods the server offers, by
	// their keys in GET /server_settings (see AuthenticationMethodNames).
	// Nil means password login by email address ("password" and "email");
	// a list without "password" turns password login off.
	AuthenticationMethods []string
	// ExternalAuthenticationMethods are the login methods that send users
	// to another site, in display order. Nil means none.
	ExternalAuthenticationMethods []ExternalAuthenticationMethod
	// VideoCalls creates video-call URLs. Nil turns video calls off.
	VideoCalls VideoCallProvider
	// DisposableEmailDomain reports whether a lower-case email domain is a
	// disposable-mail service, for organizations that refuse those
	// addresses. Nil means IsDisposableEmailDomain, a short built-in list.
	DisposableEmailDomain func(domain string) bool
	// BotStorageLimit bounds each user's bot storage, in code points of
	// keys and values. Zero means DefaultBotStorageLimit.
	BotStorageLimit int
	// UploadLocks serialises the writes to each resumable upload across
	// the processes that share the uploads' files (postgres.Locks). Nil
	// means locks within this process, enough for one process.
	UploadLocks NamedLocks
	// OutgoingWebhookClient makes the requests of outgoing-webhook bots.
	// Nil turns those bots off ("Outgoing webhook bots are not enabled on
	// this server."). A server on a network with private services gives
	// it a transport that refuses their addresses (chatd's
	// --outgoing-webhooks public does).
	OutgoingWebhookClient *http.Client
}

// Service is the handle on which every operation is a method. It is safe for
// concurrent use.
type Service struct {
	store storage.Store
	cfg   Config
	hub   *Hub
	// ownHub says the hub was made by New, so Close closes it.
	ownHub bool
	// readMessage decides whether a user can read a message, for access to
	// the files messages link (canReadMessage; tests may replace it).
	readMessage messageReadChecker
	// tusLocks serialises the writes to each resumable upload.
	tusLocks keyedMutex
	// accepted remembers the credentials AuthenticateRequest accepted.
	accepted acceptedCredentials
	// checks batches the credential checks of long-polls (events_checks.go).
	checks actorChecks
	// dummy is the hash failed logins of unknown accounts compare with.
	dummyOnce sync.Once
	dummy     []byte
	// outgoing bounds the outgoing-webhook requests in flight;
	// outgoingDone counts them, so that Close waits for them.
	outgoing     chan struct{}
	outgoingDone sync.WaitGroup
	// heavy holds a token per piece of heavy work running: password
	// hashes and long messages' renderings (heavySlots).
	heavy chan struct{}
	// renderContent renders a message's content (tests replace it).
	renderContent func(rc *renderContext, content string) (markdown.Result, error)
	// apiKeys seals API keys; nil without Config.APIKeySecret.
	apiKeys *apiKeySealer
	// rest frees a heavy slot after its rest (restSlot; tests replace it).
	rest func(d time.Duration, free func())
	// quickHighlight is the highlighting budget of a short message's
	// rendering outside the heavy slots (renderAhead; tests change it).
	quickHighlight time.Duration
	// realmDescriptions keeps organizations' descriptions as rendered
	// (realmDescription).
	realmDescriptions renderedDescriptions
}

// New returns a Service over store. Empty fields of cfg take the defaults
// documented on Config.
func New(store storage.Store, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.PasswordCost == 0 {
		cfg.PasswordCost = bcrypt.DefaultCost
	}
	if cfg.ServiceVersion == "" {
		cfg.ServiceVersion = ServiceVersion
	}
	if cfg.FakeEmailDomain == "" {
		cfg.FakeEmailDomain = "localhost"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxUploadMiB <= 0 {
		cfg.MaxUploadMiB = DefaultMaxUploadMiB
	}
	if cfg.Blobs == nil {
		cfg.Blobs = newMemBlobs(cfg.Now)
	}
	if len(cfg.UploadURLKey) == 0 {
		cfg.UploadURLKey = make([]byte, 32)
		rand.Read(cfg.UploadURLKey) // never fails
	}
	if cfg.RenderTimeBudget <= 0 {
		cfg.RenderTimeBudget = DefaultRenderTimeBudget
	}
	if cfg.HighlightBudget <= 0 {
		cfg.HighlightBudget = DefaultHighlightBudget
	}
	if cfg.DeleteTopicTimeBudget == 0 {
		cfg.DeleteTopicTimeBudget = 50 * time.Second
	}
	if len(cfg.JWTAlgorithms) == 0 {
		cfg.JWTAlgorithms = []string{"HS256"}
	}
	if cfg.AuthenticationMethods == nil {
		cfg.AuthenticationMethods = []string{"password", "email"}
	}
	if cfg.ExternalAuthenticationMethods == nil {
		cfg.ExternalAuthenticationMethods = []ExternalAuthenticationMethod{}
	}
	if cfg.BotStorageLimit <= 0 {
		cfg.BotStorageLimit = DefaultBotStorageLimit
	}
	if cfg.DisposableEmailDomain == nil {
		cfg.DisposableEmailDomain = IsDisposableEmailDomain
	}
	s := &Service{store: store, outgoing: make(chan struct{}, maxOutgoingWebhooks), heavy: make(chan struct{}, heavySlots()),
		rest: restSlot, apiKeys: newAPIKeySealer(cfg.APIKeySecret),
		renderContent:  (*renderContext).render,
		quickHighlight: min(quickHighlightBudget, cfg.HighlightBudget)}
	if s.hub = cfg.Hub; s.hub == nil {
		s.hub = NewHub(HubOptions{Now: cfg.Now})
		s.ownHub = true
	}
	if cfg.Events == nil {
		cfg.Events = s.hub
	}
	s.cfg = cfg
	s.readMessage = s.canReadMessage
	return s
}

// Drain answers every long-poll in progress at once and makes later ones
// answer without waiting (see Hub.Drain): a server shutting down calls it
// before it stops serving, so that no client waits for an answer that
// will not come. The queues stay; the program's owner may call it.
func (s *Service) Drain() { s.hub.Drain() }

// Close waits for the outgoing-webhook requests in flight (each lasts at
// most 10 seconds), then closes the event hub it made and the underlying
// store.
func (s *Service) Close() error {
	s.outgoingDone.Wait()
	if s.ownHub {
		s.hub.Close()
	}
	return s.store.Close()
}

// now returns the current time, in UTC and without monotonic reading, so that
// values round-trip through every backend unchanged.
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Round(0) }

// view runs fn, for actor, in a read-only transaction, turning storage
// failures into internal errors.
func (s *Service) view(ctx context.Context, actor Actor, fn func(storage.Tx) error) error {
	return internal(s.store.View(ctx, s.withPendingAuth(actor, fn)))
}

// update runs fn, for actor, in a read-write transaction: everything fn wrote is
// committed when it returns nil and nothing when it returns an error. A
// context that ended while fn ran rolls back too, so that a request whose
// deadline passed (its client already given up on) never commits.
func (s *Service) update(ctx context.Context, actor Actor, fn func(storage.Tx) error) error {
	fn = s.withPendingAuth(actor, fn)
	return internal(s.store.Update(ctx, func(tx storage.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return ctx.Err()
	}))
}
