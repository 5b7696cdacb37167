// Package serve is smsdesk's console served over SSH to a team (smsdesk
// serve): one host keeps the API key and the state; operators connect with
// their own SSH keys and each gets the full console in their own terminal,
// through the one application layer (ui/app) shared by every session: one
// client, one rate budget, one journal directory, one repeat guard.
//
// The server does one thing. Public-key auth only, against the operators
// file; no shell, no exec, no subsystems, no port or agent forwarding; a
// session without a PTY is refused. Built on charm.land/wish/v2 (Charm's
// SSH server for bubbletea programs) and its bubbletea middleware.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Defaults of smsdesk serve's flags.
const (
	DefaultAddr        = "127.0.0.1:2222"
	DefaultIdle        = 30 * time.Minute
	DefaultMaxSessions = 16
)

// Options configure a server. Operators, NewSession, Console and Stop are
// required.
type Options struct {
	// Addr is where to listen (host:port); DefaultAddr when empty.
	Addr string
	// HostKey is the server's key (LoadHostKey).
	HostKey gossh.Signer
	// Operators lists who may sign in; read at each attempt.
	Operators func() ([]config.OperatorEntry, error)
	// NewSession opens an operator's session of the application layer on
	// the server's one engine (its client, paths, profile and SendTracker).
	NewSession func(op model.Operator) *app.Session
	// Console builds a console per terminal; Stop is the message that tells
	// a running one to stop its sends after their chunk and quit
	// (console.Stop).
	Console ConsoleFactory
	Stop    func() tea.Msg
	// Idle ends a session with no keystroke for this long while none of
	// its sends runs; 0 never.
	Idle time.Duration
	// MaxSessions refuses sessions past this many at once (0: DefaultMaxSessions).
	MaxSessions int
	// AuthFailures refused keys within AuthWindow block a source address
	// until the window has passed (0: the defaults).
	AuthFailures int
	AuthWindow   time.Duration
	// Log is the server's log: logins, refusals, sessions' ends. Never the
	// API key (nothing here knows it). Nil discards.
	Log *slog.Logger
	// Now and Sleep are the clock (nil: real time); tests pass one they control.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Server is smsdesk serve's SSH server.
type Server struct {
	opts    Options
	srv     *ssh.Server
	log     *slog.Logger
	limiter *failureLimiter

	mu       sync.Mutex
	open     int                       // sessions admitted and not yet ended
	live     map[*liveSession]struct{} // their consoles, once running
	stopping bool
	sessions sync.WaitGroup // session handlers running
}

// liveSession is one open console.
type liveSession struct {
	op      model.Operator
	program *tea.Program
	console Console
	app     *app.Session
	act     *activity
	cancel  context.CancelFunc // the console's context
}

// New builds a server; nothing listens until Serve.
func New(o Options) (*Server, error) {
	if o.Operators == nil || o.NewSession == nil || o.Console == nil || o.Stop == nil || o.HostKey == nil {
		return nil, errors.New("serve: Operators, NewSession, Console, Stop and HostKey are required")
	}
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.AuthFailures <= 0 {
		o.AuthFailures = DefaultAuthFailures
	}
	if o.AuthWindow <= 0 {
		o.AuthWindow = DefaultAuthWindow
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = client.SleepContext
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: o, log: o.Log, limiter: newFailureLimiter(o.AuthFailures, o.AuthWindow, o.Now), live: map[*liveSession]struct{}{}}
	srv, err := wish.NewServer(
		// The host key first: wish.NewServer with none makes one (keygen)
		// and writes it, id_ed25519 and id_ed25519.pub, into the working
		// directory, which it also chmods to 0700.
		withHostKey(o.HostKey),
		wish.WithAddress(o.Addr),
		wish.WithVersion("smsdesk"),
		wish.WithPublicKeyAuth(s.publicKey),
		wish.WithMiddleware(
			bubbletea.MiddlewareWithProgramHandler(s.program),
			s.gatekeeper,
		),
	)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	// Sessions only: no direct-tcpip (port forwarding) channel, no global
	// requests (tcpip-forward), no subsystems (sftp); agent and X11
	// forwarding requests are answered no.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": sessionOnly}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback = nil
	srv.ReversePortForwardingCallback = nil
	srv.ConnectionFailedCallback = func(c net.Conn, err error) {
		s.log.Info("connection failed", "addr", hostOf(c.RemoteAddr()), "err", model.SanitizeLine(err.Error()))
	}
	s.srv = srv
	return s, nil
}

// withHostKey gives the server its host key as an option, before
// wish.NewServer looks for one.
func withHostKey(k gossh.Signer) ssh.Option {
	return func(srv *ssh.Server) error {
		srv.AddHostKey(k)
		return nil
	}
}

// Fingerprint is the host key's SHA-256 fingerprint, for operators to check
// at their first connection.
func (s *Server) Fingerprint() string { return gossh.FingerprintSHA256(s.opts.HostKey.PublicKey()) }

// Serve accepts connections on l until Shutdown or Close; it returns
// ssh.ErrServerClosed after them.
func (s *Server) Serve(l net.Listener) error { return s.srv.Serve(l) }

// Shutdown stops the server gracefully: no new connections; every console
// is told to stop (its sends stop after their chunk in flight, which is
// journaled, and it quits); then every send of the server's engine is
// waited for. When ctx ends first, every connection is closed at once.
func (s *Server) Shutdown(ctx context.Context, sends *app.SendTracker) error {
	s.mu.Lock()
	s.stopping = true
	live := make([]*liveSession, 0, len(s.live))
	for l := range s.live {
		live = append(live, l)
	}
	s.mu.Unlock()
	for _, l := range live {
		s.log.Info("telling the session the server stops", "operator", l.op.Name, "fingerprint", l.op.Fingerprint)
		go l.program.Send(s.opts.Stop()) // returns once the program has it, or has ended
	}
	done := make(chan struct{})
	go func() {
		s.sessions.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("sessions still open when the time ran out: %w", ctx.Err())
	}
	if sends != nil {
		if werr := sends.Wait(ctx); werr != nil && err == nil {
			err = fmt.Errorf("sends still running when the time ran out: %w", werr)
		}
	}
	_ = s.srv.Close()
	return err
}

// Close stops at once: every connection is closed (a chunk in flight is
// then unknown to the journal).
func (s *Server) Close() error { return s.srv.Close() }

// gatekeeper admits a session to the console, or refuses it with one line
// and exit 1: a command (exec), no PTY, the server full or stopping.
func (s *Server) gatekeeper(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		op, _ := operatorOf(sess)
		addr := hostOf(sess.RemoteAddr())
		refuse := func(why, say string) {
			s.log.Warn("session refused: "+why, "operator", op.Name, "fingerprint", op.Fingerprint, "addr", addr)
			wish.Fatalln(sess, "smsdesk serve: "+say)
		}
		if sess.RawCommand() != "" || sess.Subsystem() != "" {
			refuse("a command", "this server runs the console only, no commands: ssh -t -p PORT "+op.Name+"@HOST, without a command")
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			refuse("no terminal", "the console needs a terminal: connect with ssh -t (and without -T or -N)")
			return
		}
		if why := s.admit(); why != "" {
			refuse(why, why)
			return
		}
		defer s.leave()
		next(sess)
		if l, ok := sess.Context().Value(liveKey{}).(*liveSession); ok {
			s.end(sess, l)
		}
	}
}

// liveKey is where a session keeps its console.
type liveKey struct{}

// leave counts a session out.
func (s *Server) leave() {
	s.mu.Lock()
	s.open--
	s.mu.Unlock()
	s.sessions.Done()
}

// admit counts a session in, or says why not.
func (s *Server) admit() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopping:
		return "the server is stopping; try again when it is back"
	case s.open >= s.opts.MaxSessions:
		return fmt.Sprintf("%d sessions are open, the most this server takes (--max-sessions); try again later", s.opts.MaxSessions)
	}
	s.open++
	s.sessions.Add(1)
	return ""
}

// program builds the operator's console on the session's terminal
// (wish's bubbletea middleware runs it, sends it resizes and quits it when
// the connection drops).
func (s *Server) program(sess ssh.Session) *tea.Program {
	op, ok := operatorOf(sess)
	if !ok {
		return nil
	}
	pty, _, _ := sess.Pty()
	env := append(sess.Environ(), "TERM="+pty.Term)
	act := newActivity(s.opts.Now)
	t := Terminal{
		Operator: op, App: s.opts.NewSession(op),
		Input: act.reader(sess), Output: sess,
		Environ: env, Term: model.SanitizeLine(pty.Term), Width: min(pty.Window.Width, maxCols), Height: min(pty.Window.Height, maxRows),
		ColorProfile: profileOf(env),
	}
	ctx := sess.Context()
	// The console's own context ends when it has quit (end), not with the
	// connection: a hang-up quits the program (wish's middleware) as q
	// does, and end then closes the console, which stops its send after
	// the chunk in flight. Killed by the connection's context instead, the
	// program would end with an error for every hang-up.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c, popts := s.opts.Console(cctx, t)
	popts = append(popts, tea.WithFilter(sessionFilter))
	p := tea.NewProgram(c, popts...)
	l := &liveSession{op: op, program: p, console: c, app: t.App, act: act, cancel: cancel}
	ctx.SetValue(liveKey{}, l)
	s.mu.Lock()
	s.live[l] = struct{}{}
	stopping := s.stopping
	s.mu.Unlock()
	if stopping { // admitted as the server began to stop: told once it runs
		go p.Send(s.opts.Stop())
	}
	s.log.Info("login", "operator", op.Name, "fingerprint", op.Fingerprint, "role", string(op.Role), "addr", hostOf(sess.RemoteAddr()),
		"term", t.Term, "size", fmt.Sprintf("%dx%d", t.Width, t.Height), "colour", t.ColorProfile.String())
	go s.watch(ctx, l)
	return p
}

// A client's window is drawn at most this big: a frame is a buffer of
// cells on the server, and a client may claim any size.
const maxCols, maxRows = 1000, 500

// sessionFilter is what the server changes in a session's messages:
// ctrl+z must not suspend the server (a suspend is answered as resumed),
// and a window is never bigger than maxCols×maxRows.
func sessionFilter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	case tea.WindowSizeMsg:
		return tea.WindowSizeMsg{Width: min(m.Width, maxCols), Height: min(m.Height, maxRows)}
	}
	return msg
}

// end runs when the console has quit (the operator quit, the server
// stops, or the operator hung up): its background work ends (a send it
// left running finishes its chunk in flight and is journaled by the
// engine, which the server waits for before it exits) and what became of
// its sends is told to the terminal, if it is still there, and the log.
func (s *Server) end(sess ssh.Session, l *liveSession) {
	l.console.Close()
	l.cancel()
	s.mu.Lock()
	delete(s.live, l)
	stopping := s.stopping
	s.mu.Unlock()
	report := l.console.ExitReport()
	if report != "" {
		_, _ = io.WriteString(sess, model.Sanitize(report)+"\n")
	}
	if stopping {
		_, _ = io.WriteString(sess, "smsdesk serve is stopping; your sends are in history when it is back.\n")
	}
	s.log.Info("session ended", "operator", l.op.Name, "fingerprint", l.op.Fingerprint, "addr", hostOf(sess.RemoteAddr()),
		"report", model.SanitizeLine(report))
}

// watch ends an idle session: no keystroke for Idle while none of its
// sends runs. It is told as at a shutdown: the console quits.
func (s *Server) watch(ctx context.Context, l *liveSession) {
	if s.opts.Idle <= 0 {
		return
	}
	every := min(s.opts.Idle/4, 30*time.Second)
	for {
		if err := s.opts.Sleep(ctx, every); err != nil {
			return
		}
		if l.app.Running() == 0 && s.opts.Now().Sub(l.act.lastInput()) >= s.opts.Idle {
			s.log.Info("session idle: ending it", "operator", l.op.Name, "fingerprint", l.op.Fingerprint, "idle", s.opts.Idle.String())
			l.program.Send(s.opts.Stop())
			return
		}
	}
}

// activity is when a terminal last sent a key.
type activity struct {
	now  func() time.Time
	mu   sync.Mutex
	last time.Time
}

func newActivity(now func() time.Time) *activity { return &activity{now: now, last: now()} }

func (a *activity) lastInput() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

func (a *activity) reader(r io.Reader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		n, err := r.Read(p)
		if n > 0 {
			a.mu.Lock()
			a.last = a.now()
			a.mu.Unlock()
		}
		return n, err
	})
}

type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
