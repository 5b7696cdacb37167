// Package webhook is smsdesk's webhook receiver (smsdesk webhook, and
// smsdesk serve --webhook-addr): an HTTP face over one entry of the
// application layer, app.Engine.ReceiveEvent. The service POSTs each event
// to http://ADDR/webhook/PROFILE; the receiver reads at most 64 KB of it,
// asks ReceiveEvent, and answers 200 only once the event is committed to
// the ledger (a repeat, committed before, is 200 too), 401 for a missing or
// wrong signature, 404 for a profile it does not receive, 413 for a body
// too large, 400 for one that is not an event, and 503 (Retry-After) when
// the ledger cannot commit it, so that the service tries again. Nothing is
// stored but what is answered 200.
//
// The server has header, read, write and idle timeouts and a header size
// limit, so a slow or stalled client cannot hold a connection; it listens
// on loopback unless told otherwise, with TLS left to a reverse proxy in
// front (README). The service gives no event id and no timestamp header:
// an event is identified by (message_id, event), and no replay window is
// possible.
package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// DefaultAddr is where the receiver listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8787"

// SignatureHeader carries the service's signature of the body.
const SignatureHeader = "X-Irnoti-Signature"

// The server's bounds: a client must send its headers within
// ReadHeaderTimeout and its whole request within ReadTimeout; an answer
// must be written within WriteTimeout (a commit that waits on the ledger
// longer is answered 503 first: see Handler); an idle keep-alive
// connection is closed after IdleTimeout.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 10 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 16 << 10
	// CommitTimeout bounds a request's wait for its commit, inside
	// WriteTimeout: past it the answer is 503, and the service's next try
	// finds the event (committed after all) or not.
	CommitTimeout = 8 * time.Second
	// RetryAfter is what a 503 tells the service to wait, in seconds.
	RetryAfter = "30"
)

// Receiver takes one webhook post: app.Engine.ReceiveEvent.
type Receiver interface {
	ReceiveEvent(ctx context.Context, profile string, raw []byte, signature string) (app.Receipt, error)
}

// Options configure a server.
type Options struct {
	// Receiver is asked for every post (required).
	Receiver Receiver
	// Log gets a line for every post not taken, and for each unmatched
	// event (nil: none).
	Log *slog.Logger
}

// Server is a webhook receiver.
type Server struct {
	http *http.Server
	log  *slog.Logger
	recv Receiver

	told sync.Map // profiles told "not configured" once
}

// New makes a server; Serve runs it on a listener.
func New(o Options) *Server {
	s := &Server{recv: o.Receiver, log: o.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s
}

// Serve answers posts on l until Shutdown or Close; then it returns
// http.ErrServerClosed.
func (s *Server) Serve(l net.Listener) error { return s.http.Serve(l) }

// Shutdown stops taking connections and waits for the posts in flight to
// be answered (their events committed or refused), until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// Close closes every connection at once.
func (s *Server) Close() error { return s.http.Close() }

// Handler is the receiver's routes: POST /webhook/{profile}; another
// method there is 405, any other path 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook/{profile}", s.receive)
	mux.HandleFunc("/webhook/{profile}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		answer(w, http.StatusMethodNotAllowed, "events are POSTed here")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		answer(w, http.StatusNotFound, "not found: events are posted to /webhook/PROFILE")
	})
	return mux
}

// receive answers one post.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) {
	profile := r.PathValue("profile")
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, app.WebhookBodyLimit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		s.refused(r, &app.WebhookRefusal{Problem: app.WebhookTooLarge, Profile: model.SanitizeLine(profile), Reason: "the body is over 64 KB"})
		answer(w, http.StatusRequestEntityTooLarge, "the body is over 64 KB")
		return
	case err != nil:
		answer(w, http.StatusBadRequest, "the body did not arrive whole")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), CommitTimeout)
	defer cancel()
	receipt, err := s.recv.ReceiveEvent(ctx, profile, raw, r.Header.Get(SignatureHeader))
	if err != nil {
		status, words := statusOf(err)
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", RetryAfter)
		}
		s.refused(r, err)
		answer(w, status, words)
		return
	}
	if receipt.Unmatched {
		s.log.Info("webhook event for a message smsdesk has not recorded (kept, unmatched)", "profile", receipt.Profile,
			"event", model.SanitizeLine(receipt.Event), "message_id", model.SanitizeLine(receipt.MessageID))
	}
	words := "committed"
	if receipt.Duplicate {
		words = "duplicate: committed before"
	}
	answer(w, http.StatusOK, words)
}

// statusOf is the status and words a refusal is answered with.
func statusOf(err error) (int, string) {
	p, ok := app.IsWebhookRefusal(err)
	if !ok {
		return http.StatusServiceUnavailable, "not committed: try again"
	}
	switch p {
	case app.WebhookUnknownProfile, app.WebhookNotConfigured:
		return http.StatusNotFound, "no such profile receives webhooks here"
	case app.WebhookNoSignature, app.WebhookBadSignature:
		return http.StatusUnauthorized, "the signature does not match"
	case app.WebhookTooLarge:
		return http.StatusRequestEntityTooLarge, "the body is over 64 KB"
	case app.WebhookMalformed:
		return http.StatusBadRequest, "not an event"
	}
	return http.StatusServiceUnavailable, "not committed: try again"
}

// refused logs a post not taken: the profile's missing secret once, the
// rest each time (never the body, the signature or the secret).
func (s *Server) refused(r *http.Request, err error) {
	var ref *app.WebhookRefusal
	if !errors.As(err, &ref) {
		s.log.Warn("webhook post not committed", "from", r.RemoteAddr, "error", model.SanitizeLine(err.Error()))
		return
	}
	if ref.Problem == app.WebhookNotConfigured {
		if _, told := s.told.LoadOrStore(ref.Profile, true); told {
			return
		}
	}
	s.log.Warn("webhook post refused", "profile", ref.Profile, "problem", string(ref.Problem), "from", r.RemoteAddr,
		"reason", model.SanitizeLine(ref.Reason))
}

// answer writes status with a short JSON body.
func answer(w http.ResponseWriter, status int, words string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"status": words})
}
