// Package sandbox is a local implementation of the SMS service's API, for demos,
// training and tests. It speaks the documented API under /api/v1 — the five
// endpoints plus GET /sms/{message_id}/status — with the documented envelope,
// error codes, Bearer auth, validation, optional rate limiting, per-item send
// answers, simulated delivery and optional JSON-file persistence.
//
// It deliberately does not import smsdesk's client package, so that tests of the
// client and the send engine run against an independent server.
//
// Answers (ids are JSON integers, except message and batch ids, which are strings):
//
//	POST   /contact-groups              201 {"success":true,"data":{"id","name","description"|null,"created_at"},"message":null}
//	POST   /contacts                    201 {"success":true,"data":{"id","group_id","name"|null,"mobile":"09…","created_at"},"message":null}
//	GET    /contact-groups/{id}/contacts 200 {"success":true,"data":[contact…],
//	                                         "meta":{"current_page","per_page","total","last_page"},
//	                                         "links":{"first","last","prev"|null,"next"|null},"message":null}
//	DELETE /contacts/{id}               200 {"success":true,"data":null,"message":"deleted"}
//	POST   /sms/send-pair               200 {"success":true,"data":{"batch_id","accepted","rejected","items":[
//	                                         {"index","recipient","status":"accepted","message_id"} |
//	                                         {"index","recipient","status":"rejected","error_code","message"}]},"message":null}
//	GET    /sms/{message_id}/status     200 {"success":true,"data":{"message_id","recipient","status","updated_at"},"message":null}
//	GET    /account/credit              200 {"success":true,"data":{"rial","sms_count"},"message":null}
//	POST   /sandbox/reply               200 {"success":true,"data":{"message_id","webhook_status"},"message":null}
//	                                         (the sandbox's own, loopback only: posts an sms.inbound; reply.go)
//
// With Options.WebhookURL it posts signed webhook events as the service
// does (webhook.go).
//
// Errors: {"success":false,"error_code","message"[,"errors":{field:[…]}]} with
// unauthorized 401, not_found 404, method_not_allowed 405, bad_request 400,
// payload_too_large 413, validation_failed 422 (with errors), invalid_recipient
// 422, duplicate_contact 422, too_many_items 422, idempotency_key_reused 422,
// sender_not_allowed 403, insufficient_credit 402 (a send-pair request that
// needs more SMS parts than the credit holds is refused whole) and
// rate_limited 429 (with Retry-After). Rejected
// send items carry invalid_recipient, empty_message, message_too_long or
// invalid_message.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smsdesk/smsdesk/assets"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultKey           = "sk_test_sandbox"
	DefaultMaxItems      = 100
	DefaultPageSize      = 50
	MaxPageSize          = 1000
	DefaultDeliveryDelay = 2 * time.Second
	DefaultAddr          = "127.0.0.1:0"
	// DefaultSender is the one line the account owns when neither Senders nor
	// Seed gives it any.
	DefaultSender = "3000505"
)

// Options configure a Server. The zero value is a usable in-memory sandbox.
type Options struct {
	Key           string        // the Bearer key it accepts; default DefaultKey
	RatePerMinute int           // 0 = no limit; else requests per window (RateWindow) per key → 429 rate_limited
	RateWindow    time.Duration // the rate window, whole seconds; 0 = a minute
	RateHeaders   string        // RateHeadersLaravel (default), RateHeadersFull or RateHeadersNone
	// RateWindowStart is how a window is counted: WindowStartSecond
	// (default: from the start of its first request's second, as Laravel
	// does), WindowStartFirst (from its first request) or WindowSliding.
	RateWindowStart string
	DataFile        string   // "" = in memory; else JSON persistence with atomic writes (0600)
	Seed            bool     // load the seed data from assets (groups, contacts, sender lines)
	Senders         []string // sender lines the account owns (Seed adds its own; none at all → DefaultSender)
	MaxItems        int      // max items per send-pair request; default 100; over → 422 too_many_items
	PageSize        int      // contacts per page; default 50; ?per_page= / ?limit= up to MaxPerPage
	// MaxPerPage is the largest page ?per_page= gets (a larger one is cut to
	// it, and the answer's meta.per_page says so); 0 = MaxPageSize. Tests of
	// paging set it to PageSize: a service that ignores per_page.
	MaxPerPage int
	// LinksWithoutPerPage writes next, prev, first and last links with the
	// page number only, as Laravel's paginator does unless the app appends
	// the query: a client that follows them gets the default page size.
	LinksWithoutPerPage bool
	// DropEvery, when above 0, loses the answer of every DropEvery-th
	// send-pair request (the 3rd, 6th, … for 3): the service sends its
	// messages and closes the connection without a word, as a flaky link
	// or proxy does (ServeThenLose). Drills of unknown outcomes use it.
	DropEvery int
	// BigGroup, when above 0, adds a group of that many generated contacts
	// ("Paging drill") to a fresh state, after the seed's groups: a list
	// long enough to page.
	BigGroup      int
	DeliveryDelay time.Duration    // one step of pending → sent → delivered|failed; 0 = 2 s; negative = final at once
	Now           func() time.Time // clock for timestamps, delivery and rate windows; default time.Now
	Idempotency   bool             // replay the first answer to a POST with the same Idempotency-Key (default off)
	// Credit is the SMS parts the account can send (nil: what DataFile holds,
	// else DefaultCredit). A send-pair request that needs more is refused
	// whole: 402 insufficient_credit.
	Credit *int64
	// NoCreditEndpoint makes GET /account/credit answer 404, like deployments
	// that do not have it.
	NoCreditEndpoint bool
	Logger           *slog.Logger // request log at Debug (never the key); default discards

	// WebhookURL, when set, is where the sandbox posts its webhook events
	// (sms.sent, then sms.delivered or sms.failed, as each message's status
	// turns), signed with WebhookSecret as the service signs them.
	WebhookURL    string
	WebhookSecret string
	// DeliveredShare is the share of messages delivered (the rest fail),
	// in their status and their events; nil: DefaultDeliveredShare.
	DeliveredShare *float64
	// DuplicateShare is the share of events posted twice; ReorderShare the
	// share of messages whose final event comes before sms.sent. 0: none.
	DuplicateShare, ReorderShare float64
	// WebhookClient posts the events (nil: a client with a 10 s timeout).
	WebhookClient *http.Client
}

// SentMessage is one message the service accepted.
type SentMessage struct {
	MessageID string
	Sender    string
	Recipient string // normalised, 09xxxxxxxxx
	Message   string
	At        time.Time
}

// Server is a running (or runnable) sandbox. Its methods are safe for concurrent use.
type Server struct {
	opts    Options
	senders map[string]bool
	log     *slog.Logger
	handler http.Handler

	requests atomic.Int64
	sends    atomic.Int64 // send-pair requests, for DropEvery
	countMu  sync.Mutex
	byPath   map[string]int // "POST /sms/send-pair" → requests served
	limiter  *rateLimiter
	idem     *idempotencyCache

	mu    sync.Mutex // guards state
	state *state

	persist *persister
	poster  *poster // nil without a WebhookURL

	lifeMu sync.Mutex
	http   *http.Server
	closed bool
}

// New builds a sandbox from opts: it applies defaults, loads DataFile when it
// exists (seeding only a fresh store) and returns a Server ready to serve.
func New(opts Options) (*Server, error) {
	if err := applyDefaults(&opts); err != nil {
		return nil, err
	}
	seed, err := loadSeed()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, log: opts.Logger, senders: senderSet(opts, seed)}
	if err := s.loadState(seed); err != nil {
		return nil, err
	}
	if opts.Credit != nil {
		c := *opts.Credit
		s.state.Credit = &c
	}
	if opts.RatePerMinute > 0 {
		s.limiter = newRateLimiter(opts.RatePerMinute, opts.RateWindow, opts.RateWindowStart, opts.RateHeaders)
	}
	if opts.Idempotency {
		s.idem = newIdempotencyCache(10000)
	}
	s.handler = s.routes()
	if opts.WebhookURL != "" {
		s.poster = newPoster(opts)
	}
	return s, nil
}

// senderSet is the sender lines the sandbox accepts: the options', the seed's
// when seeding, else DefaultSender.
func senderSet(opts Options, seed *assets.SeedData) map[string]bool {
	senders := map[string]bool{}
	for _, l := range opts.Senders {
		senders[strings.TrimSpace(l)] = true
	}
	if opts.Seed {
		for _, l := range seed.Senders {
			senders[l] = true
		}
	}
	if len(senders) == 0 {
		senders[DefaultSender] = true
	}
	return senders
}

// loadState reads the data file when there is one, and seeds a fresh state
// when asked (saving it at once).
func (s *Server) loadState(seed *assets.SeedData) error {
	fresh := true
	s.state = newState()
	if s.opts.DataFile != "" {
		s.persist = newPersister(s.opts.DataFile, s.snapshot, s.log)
		st, found, err := loadState(s.opts.DataFile)
		if err != nil {
			return err
		}
		if found {
			s.state, fresh = st, false
		}
	}
	if (!s.opts.Seed && s.opts.BigGroup == 0) || !fresh {
		return nil
	}
	if s.opts.Seed {
		if err := s.state.applySeed(seed, s.opts.Now()); err != nil {
			return err
		}
	}
	s.state.addBigGroup(s.opts.BigGroup, s.opts.Now())
	if s.persist != nil {
		return s.persist.saveNow()
	}
	return nil
}

func applyDefaults(o *Options) error {
	o.Key = strings.TrimSpace(o.Key)
	if o.Key == "" {
		o.Key = DefaultKey
	}
	if strings.ContainsAny(o.Key, " \t\r\n") {
		return errors.New("sandbox: the key must not contain spaces; choose one like sk_test_mykey")
	}
	if err := checkRate(o); err != nil {
		return err
	}
	if err := checkSizes(o); err != nil {
		return err
	}
	if err := checkWebhook(o); err != nil {
		return err
	}
	if o.MaxItems == 0 {
		o.MaxItems = DefaultMaxItems
	}
	if o.MaxPerPage <= 0 || o.MaxPerPage > MaxPageSize {
		o.MaxPerPage = MaxPageSize
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.DeliveryDelay == 0 {
		o.DeliveryDelay = DefaultDeliveryDelay
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// checkSizes refuses counts and sizes out of range.
func checkSizes(o *Options) error {
	switch {
	case o.MaxItems < 0:
		return fmt.Errorf("sandbox: max items %d: want 0 (default %d) or more", o.MaxItems, DefaultMaxItems)
	case o.DropEvery < 0:
		return fmt.Errorf("sandbox: drop every %d: want 0 (never) or more", o.DropEvery)
	case o.BigGroup < 0 || o.BigGroup > maxBigGroup:
		return fmt.Errorf("sandbox: big group of %d: want 0 (none) up to %d contacts", o.BigGroup, maxBigGroup)
	case o.PageSize < 0 || o.PageSize > MaxPageSize:
		return fmt.Errorf("sandbox: page size %d: want 0 (default %d) up to %d", o.PageSize, DefaultPageSize, MaxPageSize)
	}
	return nil
}

// Handler returns the sandbox's HTTP handler (the API lives under /api/v1).
func (s *Server) Handler() http.Handler { return s.handler }

// Key returns the Bearer key the sandbox accepts.
func (s *Server) Key() string { return s.opts.Key }

// Requests returns the number of API requests served so far (any endpoint,
// any outcome, 401s and 429s included).
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Sent returns every message the service accepted, in order (including those
// loaded from DataFile).
func (s *Server) Sent() []SentMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SentMessage, len(s.state.Messages))
	for i, m := range s.state.Messages {
		out[i] = SentMessage{MessageID: m.ID, Sender: m.Sender, Recipient: m.Recipient, Message: m.Message, At: m.At}
	}
	return out
}

// Start listens on addr (default DefaultAddr, loopback) and serves in the
// background. It returns the base URL, e.g. "http://127.0.0.1:41234/api/v1".
func (s *Server) Start(addr string) (string, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := listen(addr)
	if err != nil {
		return "", err
	}
	return s.serveOn(ln)
}

// listen listens on addr, with an error that says what to do.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen on %s: %w (pick another --addr or free the port)", addr, err)
	}
	return ln, nil
}

// serveOn serves on ln in the background (closing it when the sandbox cannot
// start) and returns the base URL.
func (s *Server) serveOn(ln net.Listener) (string, error) {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed {
		_ = ln.Close() // the error above is the one to report
		return "", errors.New("sandbox: start after close; build a new one with New")
	}
	if s.http != nil {
		_ = ln.Close() // the error above is the one to report
		return "", errors.New("sandbox: already started")
	}
	s.http = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("sandbox: serve", "err", err)
		}
	}()
	return "http://" + ln.Addr().String() + "/api/v1", nil
}

// Close stops serving (at once, dropping open connections) and flushes
// DataFile. It is safe to call more than once.
func (s *Server) Close() error {
	return s.shutdown(context.Background(), false)
}

// shutdown stops the HTTP server (gracefully when asked) and flushes state.
func (s *Server) shutdown(ctx context.Context, graceful bool) error {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.http != nil {
		var err error
		if graceful {
			err = s.http.Shutdown(ctx)
		} else {
			err = s.http.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sandbox: stop serving: %w", err))
		}
	}
	if s.poster != nil {
		s.poster.stop()
	}
	if s.persist != nil {
		if err := s.persist.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// snapshot marshals the state for persistence.
func (s *Server) snapshot() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.marshal()
}

// changed records that the state changed; DataFile is written soon after.
func (s *Server) changed() {
	if s.persist != nil {
		s.persist.markDirty()
	}
}
