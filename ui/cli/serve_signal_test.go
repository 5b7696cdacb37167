package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// stubborn is a console that does not quit when told to stop (as one
// whose send's chunk is still in flight does not): only a second signal
// ends the server then.
type stubborn struct{ stops chan struct{} }

type stopTold struct{}

func (m *stubborn) Init() tea.Cmd { return nil }
func (m *stubborn) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(stopTold); ok {
		m.stops <- struct{}{}
	}
	return m, nil
}
func (m *stubborn) View() tea.View     { return tea.NewView("stubborn") }
func (m *stubborn) ExitReport() string { return "" }
func (m *stubborn) Close()             {}

// TestServeSignals: the first signal tells every session and waits for
// them; a second one closes every connection at once (exit 130).
func TestServeSignals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	userKey, _ := gossh.NewSignerFromKey(priv)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(userKey.PublicKey())))
	if _, err := config.AddOperator(paths, config.OperatorEntry{Name: "sara", Key: line, Role: model.RoleSender}); err != nil {
		t.Fatal(err)
	}
	hostKey, _, err := serve.LoadHostKey(filepath.Join(dir, "host"))
	if err != nil {
		t.Fatal(err)
	}
	m := &stubborn{stops: make(chan struct{}, 1)}
	srv, err := serve.New(serve.Options{Addr: "127.0.0.1:0", HostKey: hostKey,
		Operators:  func() ([]config.OperatorEntry, error) { return config.ReadOperators(paths) },
		NewSession: func(op model.Operator) *app.Session { return (&app.Engine{Paths: paths}).Session(&op) },
		Console: func(ctx context.Context, term serve.Terminal) (serve.Console, []tea.ProgramOption) {
			return m, []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(term.Input), tea.WithOutput(term.Output), tea.WithWindowSize(term.Width, term.Height)}
		},
		Stop: func() tea.Msg { return stopTold{} }})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	var stderr syncbuf.Buffer
	result := make(chan error, 1)
	go func() { result <- serveUntilStopped(context.Background(), srv, l, &app.SendTracker{}, sigs, &stderr) }()

	c, err := gossh.Dial("tcp", l.Addr().String(), &gossh.ClientConfig{User: "sara", Auth: []gossh.AuthMethod{gossh.PublicKeys(userKey)},
		HostKeyCallback: gossh.FixedHostKey(hostKey.PublicKey()), Timeout: waitLimit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var out syncbuf.Buffer
	sess.Stdout = &out
	if err := sess.RequestPty("xterm", 24, 80, nil); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	eventually.Contains(t, waitLimit, &out, "stubborn") // the console
	sigs <- os.Interrupt                                // the first: the session is told, and the server waits for it
	select {
	case <-m.stops:
	case <-time.After(waitLimit):
		t.Fatal("the session was not told")
	}
	select {
	case err := <-result:
		t.Fatalf("the server stopped with the session still open: %v", err)
	default:
	}
	sigs <- os.Interrupt // the second: at once
	select {
	case err := <-result:
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitInterrupted {
			t.Errorf("second signal: %v, want exit 130", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the second signal did not stop the server")
	}
	if !strings.Contains(stderr.String(), "Again to quit at once") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// failingServer serves until it is shut down, then says its listener
// failed (as one whose socket broke while it stopped would).
type failingServer struct{ stopped chan struct{} }

func (s *failingServer) Serve(net.Listener) error {
	<-s.stopped
	return errors.New("accept tcp 127.0.0.1:2222: too many open files")
}
func (s *failingServer) Shutdown(context.Context, *app.SendTracker) error {
	close(s.stopped)
	return nil
}
func (s *failingServer) Close() error { return nil }

// TestServeSaysItsErrorAtShutdown: an error the server returns as it stops
// is said on stderr, never dropped (issue 41 §6: serve read the served
// channel and let its error go).
func TestServeSaysItsErrorAtShutdown(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 1)
	sigs <- os.Interrupt
	var stderr syncbuf.Buffer
	err := serveUntilStopped(context.Background(), &failingServer{stopped: make(chan struct{})}, nil, &app.SendTracker{}, sigs, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "serve: accept tcp 127.0.0.1:2222: too many open files") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
