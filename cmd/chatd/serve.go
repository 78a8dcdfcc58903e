package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/httpserver"
	"github.com/teamchat/chat/internal/gcpace"
	"github.com/teamchat/chat/pushrelay"
	"github.com/teamchat/chat/storage/postgres"
)

// shutdownGrace is how long in-flight requests and transfers may run after
// a stop signal; long-polls are answered at once.
const shutdownGrace = 10 * time.Second

// Limits of the HTTP server. The API's form bodies are at most 10 MiB
// (413 beyond); large files go through the upload routes, which stream and
// are bound by neither BodyTimeout nor WriteTimeout.
const (
	// headerTimeout bounds the reading of a request's headers.
	headerTimeout = 10 * time.Second
	// maxHeaderBytes bounds the request line and headers; net/http answers
	// 431 Request Header Fields Too Large beyond it.
	maxHeaderBytes = 64 << 10
	// bodyTimeout bounds the reading of an API request's form body (408
	// beyond): 10 MiB at 175 KiB/s.
	bodyTimeout = 60 * time.Second
	// writeTimeout bounds an API request from its start to its answer. It
	// must exceed the longest long-poll of GET /events, 55 s (the Hub's
	// 45 s heartbeat plus up to 10 s of jitter), and delete_topic's 50 s
	// budget.
	writeTimeout = 90 * time.Second
	// idleTimeout is how long a kept-alive connection may wait for its
	// next request.
	idleTimeout = 120 * time.Second
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chatd serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	listen := fs.String("listen", "127.0.0.1:9991", "address to listen on")
	externalURL := fs.String("url", "", "URL of the organization created on the first start (default http://localhost:PORT)")
	orgName := fs.String("org-name", "Chat", "name of the organization created on the first start")
	ownerEmail := fs.String("owner-email", "owner@example.com", "email of the owner created on the first start")
	ownerName := fs.String("owner-name", "Owner", "full name of the owner created on the first start")
	maxUploadMiB := fs.Int("max-upload-mib", chat.DefaultMaxUploadMiB, "largest file an upload may store, in MiB")
	pushRelayURL := fs.String("push-relay-url", "", "URL of the push notification relay (push is disabled when empty)")
	jwtSecret := fs.String("jwt-secret", "", "HS256 key of the tokens of POST /jwt/fetch_api_key (JWT login is disabled when empty)")
	jwtRequireExp := fs.Bool("jwt-require-exp", false, "refuse JWTs without an exp claim (the reference accepts them)")
	jwtKeys := jwtKeyFlag{}
	fs.Var(jwtKeys, "jwt-key", "HOST=KEY: the HS256 key of one organization's tokens, instead of --jwt-secret (repeatable)")
	rateLimit := fs.Int("rate-limit", httpserver.DefaultRateLimits.PerUser,
		"requests per minute per user; 0 turns every rate limit off")
	videoProvider := fs.String("videocall-provider", "", "video-call provider: jitsi, or empty for none")
	videoURL := fs.String("videocall-url", "", "meeting server URL of the jitsi video-call provider, such as https://meet.example.org")
	uploadURLKey := fs.String("upload-url-key", "", "key that signs temporary download URLs; give every process of one database the same (default: random at each start)")
	authMethods := fs.String("auth-methods", "password,email", "comma-separated login methods reported by /server_settings; without password, password login is off")
	outgoing := fs.String("outgoing-webhooks", "public", "outgoing-webhook bots: public (their URLs may not reach private or loopback addresses), any, or off")
	gcHeadroomMiB := fs.Int("gc-headroom-mib", 32, "heap growth, in MiB, that the garbage collector allows between collections while the live heap is smaller; 0 keeps Go's default (GOGC, when set, wins)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if *maxUploadMiB <= 0 {
		return fmt.Errorf("invalid --max-upload-mib %d: want a positive number", *maxUploadMiB)
	}
	if *gcHeadroomMiB < 0 || *gcHeadroomMiB > 1<<20 {
		return fmt.Errorf("invalid --gc-headroom-mib %d: want 0 to 1048576 (1 TiB)", *gcHeadroomMiB)
	}
	if _, operatorSet := os.LookupEnv("GOGC"); !operatorSet && *gcHeadroomMiB > 0 {
		defer gcpace.Start(uint64(*gcHeadroomMiB) << 20).Stop()
	}
	videoCalls, err := videoCallProvider(*videoProvider, *videoURL)
	if err != nil {
		return err
	}
	methods, err := authenticationMethods(*authMethods)
	if err != nil {
		return err
	}
	cfg := chat.Config{
		Logger: logger, JWTSecret: []byte(*jwtSecret), JWTKeys: jwtKeys, JWTRequireExpiry: *jwtRequireExp,
		VideoCalls: videoCalls, AuthenticationMethods: methods,
		MaxUploadMiB: *maxUploadMiB, UploadURLKey: []byte(*uploadURLKey),
	}
	if cfg.OutgoingWebhookClient, err = outgoingWebhookClient(*outgoing); err != nil {
		return err
	}
	if *pushRelayURL != "" {
		relay, err := pushrelay.New(*pushRelayURL, nil)
		if err != nil {
			return err
		}
		cfg.PushRelay = relay
	}
	if cfg.Blobs, err = sf.blobs(ctx); err != nil {
		return err
	}
	if cfg.APIKeySecret, err = sf.secret(); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	if pg, ok := store.(*postgres.Store); ok {
		// Processes sharing the database hear each other's events: each
		// publishes through PostgreSQL and delivers what it hears to the
		// queues of its own clients.
		hub := chat.NewHub(chat.HubOptions{})
		events, err := postgres.NewEvents(ctx, pg, hub, postgres.EventsOptions{Logger: logger, Lost: hub.DropQueues})
		if err != nil {
			store.Close()
			return err
		}
		cfg.Hub, cfg.Events = hub, events
		// Resumable uploads take their locks in the database, so that two
		// processes never append to one upload at once.
		cfg.UploadLocks = pg.Locks()
		defer hub.Close()
		defer events.Close()
	}
	svc := chat.New(store, cfg)
	defer svc.Close()
	if n, err := svc.SealAPIKeys(ctx); err != nil {
		return fmt.Errorf("sealing the API keys: %w", err)
	} else if n > 0 {
		logger.Info("sealed the API keys stored readable", "keys", n)
	}
	go collectExpiredUploads(ctx, svc, logger)
	// On PostgreSQL the processes of a deployment share the request
	// budgets, so that a client cannot multiply its budget by the number
	// of processes.
	var shared httpserver.SharedBudgets
	if pg, ok := store.(*postgres.Store); ok {
		budgets := pg.RateBudgets()
		shared = budgets
		go sweepBudgets(ctx, budgets, logger)
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := firstRun(ctx, svc, stdout, ln.Addr().String(), *externalURL, *orgName, *ownerEmail, *ownerName); err != nil {
		return err
	}

	srv := &http.Server{
		Handler: httpserver.New(svc, httpserver.Options{
			Logger: logger, RateLimits: rateLimits(*rateLimit),
			BodyTimeout: bodyTimeout, WriteTimeout: writeTimeout, SharedBudgets: shared,
		}),
		ReadHeaderTimeout: headerTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("serving", "addr", "http://"+ln.Addr().String(), "store", sf.kind, "data", sf.data)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	// Long-polls answer at once; other requests and transfers get the
	// grace, and whatever still runs then is cut: a stop is not a failure.
	svc.Drain()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Warn("requests still running after the grace were cut", "grace", shutdownGrace, "err", err)
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// firstChannel is the default channel of the first organization.
const firstChannel = "general"

// firstRun creates an organization, its owner and a default channel when
// the store has none, and prints how to reach it.
func firstRun(ctx context.Context, svc *chat.Service, out io.Writer, addr, externalURL, name, email, fullName string) error {
	orgs, err := svc.Orgs(ctx)
	if err != nil || len(orgs) > 0 {
		return err
	}
	if externalURL == "" {
		externalURL = defaultURL(addr)
	}
	u, err := url.Parse(externalURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("invalid --url %q", externalURL)
	}
	password := rand.Text()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: name, Host: u.Host, URL: externalURL,
		OwnerEmail: email, OwnerName: fullName, OwnerPassword: password,
	})
	if err != nil {
		// Processes sharing a database may start together: the one that
		// lost the race finds the organization the other created.
		if orgs, lerr := svc.Orgs(ctx); lerr == nil && len(orgs) > 0 {
			return nil
		}
		return fmt.Errorf("creating the first organization: %w", err)
	}
	// A new organization of the reference server starts with channels and
	// messages; its terminal client cannot even open one without a
	// message to show. The owner starts a default channel, whose creation
	// the notification bot announces in it.
	owner := chat.AsUser(org.UserID)
	if _, err := svc.Subscribe(ctx, owner, chat.SubscribeRequest{
		Subscriptions: []chat.ChannelSpec{{Name: firstChannel, Description: "Everyone's channel"}}}); err != nil {
		return fmt.Errorf("creating the first channel: %w", err)
	}
	general, err := svc.ChannelIDByName(ctx, owner, firstChannel)
	if err != nil {
		return fmt.Errorf("creating the first channel: %w", err)
	}
	if err := svc.SetDefaultChannel(ctx, owner, general, true); err != nil {
		return fmt.Errorf("creating the first channel: %w", err)
	}
	fmt.Fprintf(out, `First start: created the organization %q at %s.
  owner email:    %s
  owner password: %s
  owner API key:  %s
Try it:
  curl -sSu %s:%s http://%s/api/v1/users
`, name, org.RealmURL, org.Email, password, org.APIKey, org.Email, org.APIKey, addr)
	return nil
}

// defaultURL is the organization URL for a listening address: localhost
// for loopback and unspecified addresses, the address itself otherwise.
func defaultURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// rateLimits are the limits for --rate-limit n: n requests per minute per
// user, with the reference server's limits for addresses and logins; none
// at all for 0.
func rateLimits(perUser int) httpserver.RateLimits {
	if perUser <= 0 {
		return httpserver.RateLimits{}
	}
	rl := httpserver.DefaultRateLimits
	rl.PerUser = perUser
	return rl
}

// videoCallProvider builds the provider that --videocall-provider names.
func videoCallProvider(name, serverURL string) (chat.VideoCallProvider, error) {
	switch name {
	case "":
		if serverURL != "" {
			return nil, errors.New("--videocall-url needs --videocall-provider")
		}
		return nil, nil
	case "jitsi":
		j, err := chat.NewJitsiMeet(serverURL)
		if err != nil {
			return nil, fmt.Errorf("--videocall-url: %w", err)
		}
		return j, nil
	}
	return nil, fmt.Errorf("unknown --videocall-provider %q (want jitsi)", name)
}

// authenticationMethods parses --auth-methods.
func authenticationMethods(list string) ([]string, error) {
	out := []string{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(chat.AuthenticationMethodNames, name) {
			return nil, fmt.Errorf("unknown --auth-methods entry %q (want some of %s)", name,
				strings.Join(chat.AuthenticationMethodNames, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// jwtKeyFlag collects --jwt-key HOST=KEY flags.
type jwtKeyFlag map[string][]byte

func (f jwtKeyFlag) String() string { return strconv.Itoa(len(f)) + " keys" }

func (f jwtKeyFlag) Set(v string) error {
	host, key, ok := strings.Cut(v, "=")
	if !ok || host == "" || key == "" {
		return errors.New("want HOST=KEY")
	}
	f[strings.ToLower(host)] = []byte(key)
	return nil
}

// collectExpiredUploads removes expired resumable uploads and orphaned
// files at the start and then every hour, until ctx ends.
func collectExpiredUploads(ctx context.Context, svc *chat.Service, logger *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if n, err := svc.CollectExpiredUploads(ctx); err != nil {
			logger.Error("collecting expired uploads", "err", err)
		} else if n > 0 {
			logger.Info("collected expired uploads", "uploads", n)
		}
		if n, err := svc.CollectOrphanedFiles(ctx); err != nil {
			logger.Error("collecting orphaned files", "err", err)
		} else if n > 0 {
			logger.Info("collected orphaned files", "files", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// sweepBudgets removes the full request budgets every ten minutes, until
// ctx ends.
func sweepBudgets(ctx context.Context, b *postgres.RateBudgets, logger *slog.Logger) {
	tick := time.NewTicker(10 * time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if err := b.Sweep(ctx, now); err != nil {
				logger.Error("sweeping request budgets", "err", err)
			}
		}
	}
}
