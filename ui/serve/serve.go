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
	"log/slog"
	"net"
	"sync"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	recovery "charm.land/wish/v2/recover"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Server is smsdesk serve's SSH server.
type Server struct {
	opts    Options
	srv     *ssh.Server
	log     *slog.Logger
	limiter *failureLimiter
	starts  *startups
	quit    chan struct{} // closed by halt: the recheck ends

	mu        sync.Mutex
	open      int                          // sessions admitted and not yet ended
	live      map[ssh.Session]*liveSession // their consoles, once running
	stopping  bool
	halted    bool           // Close, or the end of Shutdown: Serve serves no more
	listeners []net.Listener // given to Serve
	sessions  sync.WaitGroup // session handlers running

	runnerOnce sync.Once
	stopRunner context.CancelFunc // ends the runner's loop (under mu once set)
	runnerDone chan struct{}      // closed when it has ended
}

// New builds a server; nothing listens until Serve.
func New(o Options) (*Server, error) {
	if o.Operators == nil || o.NewSession == nil || o.Console == nil || o.Stop == nil || o.HostKey == nil {
		return nil, errors.New("serve: Operators, NewSession, Console, Stop and HostKey are required")
	}
	o = o.withDefaults()
	s := &Server{opts: o, log: o.Log, limiter: newFailureLimiter(o.AuthFailures, o.AuthWindow, o.Now),
		starts: newStartups(o.MaxStartups, o.MaxStartupsPerSource, o.Now, o.Rand), quit: make(chan struct{}), live: map[ssh.Session]*liveSession{}}
	srv, err := wish.NewServer(
		// The host key first: wish.NewServer with none makes one (keygen)
		// and writes it, id_ed25519 and id_ed25519.pub, into the working
		// directory, which it also chmods to 0700.
		withHostKey(o.HostKey),
		wish.WithAddress(o.Addr),
		wish.WithVersion("smsdesk"),
		wish.WithPublicKeyAuth(s.publicKey),
		// A panic in one session ends that session, not the server (as
		// soft-serve wraps its chain); it is logged with the operator.
		wish.WithMiddleware(recovery.MiddlewareWithLogger(panicLog{s.log},
			bubbletea.MiddlewareWithProgramHandler(s.program),
			s.gatekeeper,
		)),
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
	// Before login: the grace (x/crypto's handshake deadline, which
	// covers the authentication), the caps on connections signing in,
	// and at most MaxAuthTries refused keys a connection.
	srv.HandshakeTimeout = o.LoginGrace
	srv.ConnCallback = s.admitConn
	srv.ServerConfigCallback = s.serverConfig
	srv.ConnectionFailedCallback = s.connectionFailed
	s.srv = srv
	return s, nil
}

// connectionFailed logs a connection that ended before it was served: one
// not signed in within the login grace, or one whose handshake failed.
func (s *Server) connectionFailed(c net.Conn, err error) {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		s.log.Info("closed: not signed in within the login grace", "addr", hostOf(c.RemoteAddr()), "grace", s.opts.LoginGrace.String())
		return
	}
	s.log.Info("connection failed", "addr", hostOf(c.RemoteAddr()), "err", model.SanitizeLine(err.Error()))
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

// ErrServerClosed is what Serve returns once Shutdown or Close ended it:
// the end asked for, not a failure.
var ErrServerClosed = ssh.ErrServerClosed

// Serve accepts connections on l until Shutdown or Close; it returns
// ErrServerClosed after them. While it serves, the operators file is
// read again every Recheck for the open sessions.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.halted {
		s.mu.Unlock()
		_ = l.Close()
		return ssh.ErrServerClosed
	}
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	go s.recheck()
	s.startRunner()
	err := s.srv.Serve(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted { // closed before the library had l: it saw only l's Accept fail
		return ssh.ErrServerClosed
	}
	return err
}

// admitConn counts a new connection in among those signing in, closing the
// stalled ones it sheds (MaxStartups), or closes it at once when the server
// is full of connections that are all still talking. One that has not sent
// its version within the version grace is closed then.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	host := hostOf(c.RemoteAddr())
	sc, shed, why := s.starts.begin(c, host)
	for _, v := range shed {
		s.log.Info("closed to make room: "+v.why, "addr", v.host, "for", host)
		_ = v.conn.Close()
	}
	if why != "" {
		s.log.Warn("connection refused: "+why, "addr", host)
		return nil
	}
	grace := s.opts.VersionGrace
	sc.s.closeUnversioned(grace, func() {
		s.log.Info("closed: no SSH version within the version grace", "addr", host, "grace", grace.String())
	})
	ctx.SetValue(startupKey{}, sc.s)
	return sc
}

// startupKey is where a connection keeps its place among those signing in.
type startupKey struct{}

// serverConfig is x/crypto's configuration for one connection: a signed-in
// connection leaves the count of those signing in; at most MaxAuthTries
// refused keys.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{
		MaxAuthTries: MaxAuthTries,
		AuthLogCallback: func(_ gossh.ConnMetadata, _ string, err error) {
			if st, ok := ctx.Value(startupKey{}).(*startup); ok && err == nil {
				st.done()
			}
		},
	}
}

// panicLog writes a recovered session's panic in the server's log.
type panicLog struct{ log *slog.Logger }

func (p panicLog) Printf(format string, v ...any) {
	p.log.Error("a session panicked; it is closed, the server goes on", "panic", fmt.Sprintf(format, v...))
}

// Shutdown stops the server gracefully: no new connections; every console
// is told to stop (its sends stop after their chunk in flight, which is
// journaled, and it quits); then every send of the server's engine is
// waited for. When ctx ends first, every connection is closed at once.
func (s *Server) Shutdown(ctx context.Context, sends *app.SendTracker) error {
	s.mu.Lock()
	s.stopping = true
	live := make([]*liveSession, 0, len(s.live))
	for _, l := range s.live {
		live = append(live, l)
	}
	s.mu.Unlock()
	for _, l := range live {
		s.log.Info("telling the session the server stops", "operator", l.op.Name, "fingerprint", l.op.Fingerprint)
		go l.program.Send(s.opts.Stop()) // returns once the program has it, or has ended
	}
	runner := s.haltRunner() // its send stops after the chunk in flight, as the operators' do
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
	// The scheduler's loop ends before the sends are waited for: a send it
	// starts is added to the tracker, and an add that races the wait is a
	// WaitGroup misused (the race detector caught TestServeStartsADueSend's
	// shutdown doing so). Once the loop has ended it starts none.
	if runner != nil {
		select {
		case <-runner:
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("the scheduler still running when the time ran out: %w", ctx.Err())
			}
		}
	}
	if sends != nil {
		if werr := sends.Wait(ctx); werr != nil && err == nil {
			err = fmt.Errorf("sends still running when the time ran out: %w", werr)
		}
	}
	s.halt()
	_ = s.srv.Close()
	return err
}

// Close stops at once: every connection is closed (a chunk in flight is
// then unknown to the journal).
func (s *Server) Close() error {
	s.haltRunner()
	s.halt()
	return s.srv.Close()
}

// halt ends serving for good: the listeners given to Serve are closed (a
// Close just before Serve has begun would not reach them through the
// library, which then serves on) and the recheck ends.
func (s *Server) halt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted {
		return
	}
	s.halted = true
	close(s.quit)
	for _, l := range s.listeners {
		_ = l.Close()
	}
}

// gatekeeper admits a session to the console, or refuses it with one line
// and exit 1: a key that is not (or no longer) an operator's, a command
// (exec), no PTY, the server full or stopping.
func (s *Server) gatekeeper(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		addr := hostOf(sess.RemoteAddr())
		op, notOperator := s.signedIn(sess)
		refuse := func(why, say string) {
			s.log.Warn("session refused: "+why, "operator", op.Name, "fingerprint", op.Fingerprint, "user", model.SanitizeLine(sess.User()), "addr", addr)
			wish.Fatalln(sess, "smsdesk serve: "+say)
		}
		if notOperator != "" {
			refuse(notOperator, "not an operator of this server (smsdesk operators list on the server)")
			return
		}
		sess.Context().SetValue(operatorKey{}, op)
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
		defer func() { // also after a panic in the console: its work ends, its place is freed
			if l := s.liveOf(sess); l != nil {
				s.end(sess, l)
			}
		}()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("session failed", "operator", op.Name, "fingerprint", op.Fingerprint, "addr", addr)
				wish.Fatalln(sess, "smsdesk serve: this session failed and is closed; the others go on (the server's log says why)")
				panic(r) // for wish's recover middleware, which logs it with its stack
			}
		}()
		next(sess)
	}
}

// liveOf is the console running on sess (nil when none).
func (s *Server) liveOf(sess ssh.Session) *liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[sess]
}

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
