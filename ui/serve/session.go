package serve

// One operator's console, from the moment it is built on their terminal
// to its end: when it quits, when the server ends it (idle, the operator
// removed, the operators file no longer safe) and when the server stops.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// liveSession is one open console.
type liveSession struct {
	sess    ssh.Session
	op      model.Operator
	program *tea.Program
	console Console
	app     *app.Session
	act     *activity
	cancel  context.CancelFunc // the console's context
	// closing is why the server ends the session (nil: it does not): the
	// terminal is told it when the console has quit.
	closing atomic.Pointer[string]
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
		Environ: env, Term: model.SanitizeLine(pty.Term), Width: clamp(pty.Window.Width, MaxWidth), Height: clamp(pty.Window.Height, MaxHeight),
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
	l := &liveSession{sess: sess, op: op, program: p, console: c, app: t.App, act: act, cancel: cancel}
	s.mu.Lock()
	s.live[sess] = l
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

// A client's window is drawn at most MaxWidth×MaxHeight cells, the size
// of a real screen (a 4K monitor in a small font): a frame is a buffer of
// cells on the server, and a client may claim any size.
const MaxWidth, MaxHeight = 400, 150

// clamp is a window dimension as drawn: at least 1, at most most.
func clamp(n, most int) int { return max(1, min(n, most)) }

// sessionFilter is what the server changes in a session's messages:
// ctrl+z must not suspend the server (a suspend is answered as resumed),
// and a window is never bigger than MaxWidth×MaxHeight.
func sessionFilter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	case tea.WindowSizeMsg:
		return tea.WindowSizeMsg{Width: clamp(m.Width, MaxWidth), Height: clamp(m.Height, MaxHeight)}
	}
	return msg
}

// end runs when the console has quit (the operator quit, the server
// stops or ends the session, or the operator hung up): its background
// work ends (a send it left running finishes its chunk in flight and is
// journaled by the engine, which the server waits for before it exits)
// and what became of its sends, and why the server ended it, are told to
// the terminal, if it is still there, and the log.
func (s *Server) end(sess ssh.Session, l *liveSession) {
	l.console.Close()
	l.cancel()
	s.mu.Lock()
	delete(s.live, sess)
	stopping := s.stopping
	s.mu.Unlock()
	report := l.console.ExitReport()
	if report != "" {
		_, _ = io.WriteString(sess, model.Sanitize(report)+"\n")
	}
	why := ""
	if w := l.closing.Load(); w != nil {
		why = *w
		_, _ = io.WriteString(sess, "smsdesk serve: "+why+"\n")
	}
	if stopping {
		_, _ = io.WriteString(sess, "smsdesk serve is stopping; your sends are in history when it is back.\n")
	}
	s.log.Info("session ended", "operator", l.op.Name, "fingerprint", l.op.Fingerprint, "addr", hostOf(sess.RemoteAddr()),
		"report", model.SanitizeLine(report), "closed_by_server", why)
	if why != "" {
		_ = sess.Exit(1)
	}
}

// closeFor ends a session for the reason why (said on its terminal and in
// the log). stop asks the console to stop as at a shutdown (its sends
// stop after their chunk in flight, then it quits); else it is quit at
// once, as a hang-up quits it (end still lets a chunk in flight finish
// and be journaled).
func (s *Server) closeFor(l *liveSession, why string, stop bool) {
	if !l.closing.CompareAndSwap(nil, &why) {
		return // already being closed
	}
	s.log.Warn("closing the session: "+why, "operator", l.op.Name, "fingerprint", l.op.Fingerprint, "addr", hostOf(l.sess.RemoteAddr()))
	if stop {
		go l.program.Send(s.opts.Stop()) // returns once the program has it, or has ended
		return
	}
	l.program.Quit()
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
			s.closeFor(l, fmt.Sprintf("no key for %s: session closed (smsdesk serve --idle)", shortDuration(s.opts.Idle)), true)
			return
		}
	}
}

// shortDuration writes 30m0s as 30m and 1h0m0s as 1h.
func shortDuration(d time.Duration) string {
	t := d.String()
	if strings.HasSuffix(t, "m0s") {
		t = strings.TrimSuffix(t, "0s")
	}
	if strings.HasSuffix(t, "h0m") {
		t = strings.TrimSuffix(t, "0m")
	}
	return t
}

// recheck reads the operators file again every Recheck while the server
// runs, for the open sessions: an operator removed, or a file that can no
// longer be trusted (StrictModes), ends their sessions at once. (Every
// action of a session is checked against the file as it is then too, by
// the application layer; this closes the session itself.)
func (s *Server) recheck() {
	t := time.NewTicker(s.opts.Recheck)
	defer t.Stop()
	said := ""
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		live := make([]*liveSession, 0, len(s.live))
		for _, l := range s.live {
			live = append(live, l)
		}
		s.mu.Unlock()
		if len(live) == 0 {
			continue
		}
		list, err := s.opts.Operators()
		if err != nil && err.Error() != said {
			s.log.Error("the operators file cannot be trusted: every session is closed, every login refused", "err", model.SanitizeLine(err.Error()))
		}
		if said = ""; err != nil {
			said = err.Error()
		}
		for _, l := range live {
			if why := stillOperator(l, list, err); why != "" {
				s.closeFor(l, why, false)
				continue
			}
			s.followRole(l)
		}
	}
}

// roleChanged makes a console draw again: its status bar names the role
// as last read (its actions are decided by the file anyway).
type roleChanged struct{}

// followRole reads the operator's standing again for their session of the
// application layer; a role changed is logged and shown.
func (s *Server) followRole(l *liveSession) {
	if l.app == nil {
		return
	}
	before := l.app.Current()
	now, err := l.app.Recheck()
	if err != nil || before == nil || now.Role == before.Role {
		return
	}
	s.log.Info("role changed", "operator", l.op.Name, "fingerprint", l.op.Fingerprint, "from", string(before.Role), "to", string(now.Role))
	go l.program.Send(roleChanged{}) // returns once the program has it, or has ended
}

// stillOperator says why l's operator may no longer use the console
// ("": they may).
func stillOperator(l *liveSession, list []config.OperatorEntry, err error) string {
	if err != nil {
		return "the operators file of this server can no longer be trusted; every session is closed (the server's log says why)"
	}
	key := l.sess.PublicKey()
	if key == nil {
		return "no key"
	}
	if e, ok := config.FindOperator(list, key); !ok || e.Name != l.op.Name {
		return l.op.Name + " is no longer an operator of this server (smsdesk operators remove); session closed"
	}
	return ""
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
