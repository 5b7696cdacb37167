package serve

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crypto/ed25519"
	"crypto/rand"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
)

func strangerKey(t *testing.T) gossh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAuth: only an operator's own key under their own name signs in;
// an unknown key, another operator's name, a password and
// keyboard-interactive are refused, and each refusal is logged with the
// key's fingerprint.
func TestAuth(t *testing.T) {
	w := newWorld(t, worldOptions{})
	stranger := strangerKey(t)
	for _, tc := range []struct {
		name, user string
		auth       gossh.AuthMethod
	}{
		{"unknown key", "sara", gossh.PublicKeys(stranger)},
		{"unknown key, unknown name", "mallory", gossh.PublicKeys(stranger)},
		{"sara's key as reza", "reza", gossh.PublicKeys(w.keys["sara"])},
		{"password", "sara", gossh.Password("hunter2")},
		{"keyboard-interactive", "sara", gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return []string{"x"}, nil })},
	} {
		if c, err := w.dial(tc.user, tc.auth); err == nil {
			c.Close()
			t.Errorf("%s: signed in", tc.name)
		}
	}
	log := w.log.String()
	if !strings.Contains(log, "refused: unknown key") || !strings.Contains(log, gossh.FingerprintSHA256(stranger.PublicKey())) ||
		!strings.Contains(log, "refused: key belongs to another operator") {
		t.Errorf("server log:\n%s", log)
	}
	c, err := w.dial("sara")
	if err != nil {
		t.Fatalf("sara's own key: %v", err)
	}
	c.Close()
}

// TestConsoleOverSSH: a known key gets the console in its own terminal:
// its operator, size and TERM; a resize reaches it; the login is logged
// with the operator and fingerprint.
func TestConsoleOverSSH(t *testing.T) {
	w := newWorld(t, worldOptions{})
	tm := w.open("sara", map[string]string{"NO_COLOR": "1"})
	tm.waitFor("operator=sara", "role=sender", "size=100x30", "term=xterm-256color")
	if err := tm.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("size=120x40")
	if err := tm.sess.WindowChange(400, 2000); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("400x150") // capped at MaxWidth×MaxHeight
	log := w.log.String()
	if !strings.Contains(log, "msg=login operator=sara fingerprint=SHA256:") || !strings.Contains(log, "colour=Ascii") {
		t.Errorf("server log:\n%s", log)
	}
	tm.key("q")
	if err := tm.sess.Wait(); err != nil {
		t.Errorf("q: the session ended with %v", err)
	}
}

// TestOneThingOnly: a command (exec), a session without a PTY, a
// subsystem (sftp), port forwarding both ways and agent forwarding are
// refused; the first two with one line and exit 1.
func TestOneThingOnly(t *testing.T) {
	w := newWorld(t, worldOptions{})
	c, err := w.dial("sara")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exit1 := func(what string, run func(*gossh.Session) ([]byte, error), want string) {
		t.Helper()
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		out, err := run(sess)
		var ee *gossh.ExitError
		if !errors.As(err, &ee) || ee.ExitStatus() != 1 || !strings.Contains(string(out), want) || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
			t.Errorf("%s: %v, %q; want exit 1 and one line with %q", what, err, out, want)
		}
	}
	exit1("exec", func(s *gossh.Session) ([]byte, error) { return s.CombinedOutput("cat /etc/passwd") }, "no commands")
	exit1("exec with a PTY", func(s *gossh.Session) ([]byte, error) {
		if err := s.RequestPty("xterm", 24, 80, nil); err != nil {
			return nil, err
		}
		return s.CombinedOutput("ls")
	}, "no commands")
	exit1("no PTY", func(s *gossh.Session) ([]byte, error) {
		out := &syncbuf.Buffer{}
		s.Stdout, s.Stderr = out, out
		if err := s.Shell(); err != nil {
			return nil, err
		}
		err := s.Wait()
		return []byte(out.String()), err
	}, "the console needs a terminal")

	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Error("sftp: accepted")
	}
	sess.Close()
	if conn, err := c.Dial("tcp", w.addr); err == nil {
		conn.Close()
		t.Error("local port forwarding (ssh -L): accepted")
	}
	if l, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
		t.Error("remote port forwarding (ssh -R): accepted")
	}
	sess, err = c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.RequestAgentForwarding(sess); err == nil {
		t.Error("agent forwarding (ssh -A): accepted")
	}
	sess.Close()
}

// TestViewerCannotSend: a viewer's send is refused naming the role it
// needs, and not one request reaches the service.
func TestViewerCannotSend(t *testing.T) {
	w := newWorld(t, worldOptions{})
	tm := w.open("vida", nil)
	tm.waitFor("operator=vida", "role=viewer")
	tm.key("s")
	if got := w.outcome(); !strings.Contains(got, "vida: refused: sending needs the sender role (vida is a viewer)") {
		t.Errorf("viewer's send: %s", got)
	}
	if n := w.sb.Requests(); n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
	if len(w.journals()) != 0 {
		t.Error("a journal was written")
	}
}

// TestTwoOperatorsSameSend: sara's send is in flight when reza sends the
// same pairs: reza's is refused naming sara's send and sara; only sara's
// messages go.
func TestTwoOperatorsSameSend(t *testing.T) {
	w := newWorld(t, worldOptions{holdAt: 1})
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.waitFor("operator=sara")
	reza.waitFor("operator=reza")
	sara.key("s")
	w.waitHeld()
	reza.key("s")
	got := w.outcome()
	if !strings.HasPrefix(got, "reza: refused:") || !strings.Contains(got, "by sara") {
		t.Errorf("reza's send: %s", got)
	}
	w.releaseOnce()
	if got := w.outcome(); !strings.HasPrefix(got, "sara: sent") || !strings.Contains(got, "accepted=4 unknown=0") {
		t.Errorf("sara's send: %s", got)
	}
	if n := len(w.sb.Sent()); n != 4 {
		t.Errorf("the service took %d messages, want 4", n)
	}
	js := w.journals()
	if len(js) != 1 || js[0].Plan.Operator == nil || js[0].Plan.Operator.Name != "sara" || !strings.HasPrefix(js[0].Plan.Operator.Fingerprint, "SHA256:") {
		t.Errorf("journals: %d, operator %+v", len(js), js[0].Plan.Operator)
	}
}

// TestHangUpMidSend: the connection drops while a chunk is in flight: the
// chunk finishes and is journaled, the rest is not sent, nothing is unknown.
func TestHangUpMidSend(t *testing.T) {
	w := newWorld(t, worldOptions{holdAt: 2})
	tm := w.open("sara", nil)
	tm.waitFor("operator=sara")
	tm.key("s")
	w.waitHeld()
	tm.client.Close() // the laptop lid closes
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "session ended") },
		func() string { return "the session did not end:\n" + w.log.String() })
	w.releaseOnce()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	js := w.journals()
	if len(js) != 1 {
		t.Fatalf("%d journals", len(js))
	}
	if c := js[0].Counts(); c.Unknown != 0 || c.Accepted != 2 || c.NotSent != 2 {
		t.Errorf("after the hang-up: %+v; want 2 accepted, 2 not sent, 0 unknown", c)
	}
}

// TestShutdownMidSend: SIGTERM's path (Shutdown) while a chunk is in
// flight: the session is told, the chunk finishes and is journaled, the
// server stops; nothing is unknown.
func TestShutdownMidSend(t *testing.T) {
	w := newWorld(t, worldOptions{holdAt: 2})
	tm := w.open("sara", nil)
	tm.waitFor("operator=sara")
	tm.key("s")
	w.waitHeld()
	shutDown := w.shutdown()
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), "telling the session the server stops") },
		func() string { return "the session was not told:\n" + w.log.String() })
	w.releaseOnce()
	shutDown()
	select {
	case err := <-w.served:
		if !errors.Is(err, ssh.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		w.served <- err // for the cleanup
	case <-time.After(wait):
		t.Fatal("Serve did not return")
	}
	tm.waitFor("smsdesk serve is stopping")
	if c := w.journals()[0].Counts(); c.Unknown != 0 || c.Accepted != 2 || c.NotSent != 2 {
		t.Errorf("after the shutdown: %+v; want 2 accepted, 2 not sent, 0 unknown", c)
	}
}

// TestMaxSessions: past --max-sessions a session is refused with a line.
func TestMaxSessions(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.MaxSessions = 1 }})
	w.open("sara", nil).waitFor("operator=sara")
	tm := w.open("reza", nil)
	tm.waitFor("the most this server takes (--max-sessions)")
	var ee *gossh.ExitError
	if err := tm.sess.Wait(); !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("the second session ended with %v, want exit 1", err)
	}
}

// TestIdle: a session with no keystroke for --idle is ended (on a clock
// the test controls), saying why on its terminal (exit 1) and in the log.
func TestIdle(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.Idle, o.Now, o.Sleep = 30*time.Minute, clock.Now, clock.Sleep }})
	tm := w.open("sara", nil)
	var ee *gossh.ExitError
	if err := tm.sess.Wait(); !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("the idle session ended with %v, want exit 1", err)
	}
	const why = "no key for 30m: session closed (smsdesk serve --idle)"
	tm.waitFor("smsdesk serve: " + why)
	if !strings.Contains(w.log.String(), `closing the session: `+why+`" operator=sara`) || clock.Slept() < 30*time.Minute {
		t.Errorf("slept %v; log:\n%s", clock.Slept(), w.log.String())
	}
}

// TestHostKey: made once, 0600, the same at the next start; a key others
// can read is refused.
func TestHostKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", HostKeyFileName)
	a, created, err := LoadHostKey(path)
	if err != nil || !created {
		t.Fatalf("first load: %v %v", created, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || a.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("host key: %v %v %s", fi.Mode(), err, a.PublicKey().Type())
	}
	b, created, err := LoadHostKey(path)
	if err != nil || created || gossh.FingerprintSHA256(a.PublicKey()) != gossh.FingerprintSHA256(b.PublicKey()) {
		t.Fatalf("second load: %v %v", created, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadHostKey(path); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("0644: %v", err)
	}
}

// TestCloseBeforeServe: a server closed (a signal at start) before Serve
// has begun does not serve on: Serve returns ErrServerClosed and the
// listener is closed. (The library's Close misses a listener it does not
// have yet, and its Serve then reset its closed state and served.)
func TestCloseBeforeServe(t *testing.T) {
	signer, _, err := LoadHostKey(filepath.Join(t.TempDir(), HostKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{HostKey: signer, Operators: func() ([]config.OperatorEntry, error) { return nil, nil },
		NewSession: func(model.Operator) *app.Session { return nil }, Console: newTestConsole(nil, nil), Stop: func() tea.Msg { return testStopMsg{} }})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.Close()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		if !errors.Is(err, ssh.ErrServerClosed) {
			t.Errorf("Serve after Close: %v", err)
		}
	case <-time.After(wait):
		_ = l.Close()
		t.Fatal("Serve after Close serves on")
	}
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener still accepts")
	}
}
