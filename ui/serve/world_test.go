package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/console"
)

// wait bounds every wait on the server or a client: the tests wait for
// events (a frame drawn, a request arriving), never for time to pass. It
// guards against a hang and is no budget: 10 s was too little for a
// session's first frame under -race on a busy machine (load 17-27 on 2
// cores: TestConsoleOverSSH, TestRealConsoleTwoOperators, …HangUp and
// …Shutdown each failed there, waiting on a screen that came later).
const wait = 3 * time.Minute

// world is a server on 127.0.0.1 with three operators (sara and reza
// send, vida views), over a sandbox of the service on loopback whose
// send-pair requests can be held (hold) to catch a send mid-flight.
type world struct {
	t       *testing.T
	sb      *sandbox.Server
	paths   config.Paths
	tracker *app.SendTracker
	srv     *Server
	addr    string
	hostKey gossh.PublicKey
	keys    map[string]gossh.Signer
	done    chan string // each send's outcome, "operator: text"
	log     *syncbuf.Buffer
	served  chan error
	cols    int

	sends   atomic.Int32  // send-pair requests begun
	holdAt  int32         // the request to hold (0: none)
	held    chan struct{} // closed when that request has arrived
	release chan struct{} // close to let it through
}

type worldOptions struct {
	rows   []model.PairRow
	holdAt int32
	serve  func(*Options)
	// real serves the real console (ui/console) on a seeded sandbox, its
	// groups tracked, sends one pair per request; else the stand-in.
	real bool
	// cols is the width of the terminals opened (default 100; the real
	// console's status bar needs room for a whole refusal).
	cols int
}

func pairRows(n int) []model.PairRow {
	rows := make([]model.PairRow, n)
	for i := range rows {
		rows[i] = model.PairRow{Line: i + 2, Recipient: "0912000000" + string(rune('0'+i)), Message: "code " + string(rune('A'+i))}
	}
	return rows
}

func newWorld(t *testing.T, o worldOptions) *world {
	t.Helper()
	if o.rows == nil {
		o.rows = pairRows(4)
	}
	w := &world{t: t, keys: map[string]gossh.Signer{}, done: make(chan string, 16), log: &syncbuf.Buffer{},
		served: make(chan error, 1), holdAt: o.holdAt, cols: max(o.cols, 100), held: make(chan struct{}), release: make(chan struct{})}
	var err error
	if w.sb, err = sandbox.New(sandbox.Options{Seed: o.real, DeliveryDelay: -1}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(w.holding(w.sb.Handler()))
	t.Cleanup(hs.Close)
	t.Cleanup(w.releaseOnce)
	dir := t.TempDir()
	w.paths = config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	// The ledger is closed once the server and its sessions have ended
	// (this cleanup runs after the server's, registered below), before the
	// directory is removed.
	t.Cleanup(func() { _ = w.paths.CloseLedger() })
	prof := &config.Profile{Name: "live", BaseURL: hs.URL + "/api/v1", Sender: sandbox.DefaultSender}
	if o.real {
		prof.Sender, prof.Senders, prof.ChunkSize = w.sb.Senders()[0], w.sb.Senders(), 1
		for _, g := range w.sb.Groups() {
			if err := config.TrackGroup(w.paths, "live", g); err != nil {
				t.Fatal(err)
			}
		}
	}
	cl, err := app.NewClient(w.paths, prof.BaseURL, w.sb.Key(), prof, app.ClientOptions{}, client.WithRatePerMinute(60000),
		client.WithTimeout(wait)) // a request the world holds is held as long as the test waits, not the production 30 s
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(w.log, nil))
	w.tracker = &app.SendTracker{Log: logger}
	for name, role := range map[string]model.Role{"sara": model.RoleSender, "reza": model.RoleSender, "vida": model.RoleViewer} {
		w.addOperator(name, role)
	}
	signer, _, err := LoadHostKey(filepath.Join(w.paths.StateDir, HostKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	w.hostKey = signer.PublicKey()
	opts := Options{
		Addr: "127.0.0.1:0", HostKey: signer,
		Operators: TrustedOperators(w.paths),
		NewSession: func(op model.Operator) *app.Session {
			eng := &app.Engine{Profile: app.ResolveProfile("live", prof.BaseURL, prof, config.KeyKind(w.sb.Key())), Client: cl, Paths: w.paths, Tracker: w.tracker,
				Operators: TrustedOperators(w.paths)}
			if o.real { // delivery polls wait between rounds: no real seconds in tests
				eng.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
			}
			return eng.Session(&op)
		},
		Console: newTestConsole(o.rows, w.done),
		Stop:    func() tea.Msg { return testStopMsg{} },
		Log:     logger,
	}
	if o.real {
		opts.Console, opts.Stop = realConsole, console.Stop
	}
	if o.serve != nil {
		o.serve(&opts)
	}
	// As smsdesk serve does, the ledger is opened before serving: a first
	// run makes it here, not in a session's first read, which may still be
	// making it (the ledger's file, config.toml) when the test ends.
	if _, err := w.paths.Ledger(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w.srv, err = New(opts); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.addr = l.Addr().String()
	go func() { w.served <- w.srv.Serve(l) }()
	t.Cleanup(func() {
		_ = w.srv.Close()
		select {
		case <-w.served:
		case <-time.After(wait):
			t.Error("the server did not stop")
		}
		// The sessions' handlers end their consoles (and what those write to
		// the state directory) after the listener has closed: wait for them
		// before the temporary directory is removed.
		ended := make(chan struct{})
		go func() { w.srv.sessions.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(wait):
			t.Error("a session did not end after the server stopped")
		}
	})
	return w
}

// shutdown begins a graceful Shutdown of the world's server; the func it
// returns waits for it and fails the test if it errs or does not return.
func (w *world) shutdown() (finished func()) {
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		stopped <- w.srv.Shutdown(ctx, w.tracker)
	}()
	return func() {
		w.t.Helper()
		select {
		case err := <-stopped:
			if err != nil {
				w.t.Fatalf("shutdown: %v", err)
			}
		case <-time.After(wait):
			w.t.Fatal("shutdown did not return")
		}
	}
}

// holding lets the test hold the holdAt-th send-pair request until release.
func (w *world) holding(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
			if n := w.sends.Add(1); n == w.holdAt {
				close(w.held)
				<-w.release
			}
		}
		h.ServeHTTP(rw, r)
	})
}

var releaseMu sync.Mutex

func (w *world) releaseOnce() {
	releaseMu.Lock()
	defer releaseMu.Unlock()
	select {
	case <-w.release:
	default:
		close(w.release)
	}
}

func (w *world) addOperator(name string, role model.Role) {
	w.t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		w.t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		w.t.Fatal(err)
	}
	w.keys[name] = signer
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey()))) + " " + name + "@test"
	if _, err := config.AddOperator(w.paths, config.OperatorEntry{Name: name, Key: line, Role: role}); err != nil {
		w.t.Fatal(err)
	}
}

// dial connects as user with signer (nil: user's own key).
func (w *world) dial(user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	if len(auth) == 0 {
		auth = []gossh.AuthMethod{gossh.PublicKeys(w.keys[user])}
	}
	return gossh.Dial("tcp", w.addr, &gossh.ClientConfig{User: user, Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(w.hostKey), Timeout: wait})
}

// terminal is an SSH session with a PTY, as `ssh -t` opens one.
type terminal struct {
	t      *testing.T
	client *gossh.Client
	sess   *gossh.Session
	in     interface{ Write([]byte) (int, error) }
	out    *syncbuf.Buffer
}

func (w *world) open(user string, env map[string]string) *terminal {
	w.t.Helper()
	c, err := w.dial(user)
	if err != nil {
		w.t.Fatalf("%s: %v", user, err)
	}
	w.t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		w.t.Fatal(err)
	}
	for k, v := range env {
		if err := sess.Setenv(k, v); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := sess.RequestPty("xterm-256color", 30, w.cols, gossh.TerminalModes{}); err != nil {
		w.t.Fatal(err)
	}
	out := &syncbuf.Buffer{}
	sess.Stdout, sess.Stderr = out, out
	in, err := sess.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		w.t.Fatal(err)
	}
	return &terminal{t: w.t, client: c, sess: sess, in: in, out: out}
}

// waitFor waits until the terminal has received every one of texts.
func (tm *terminal) waitFor(texts ...string) {
	tm.t.Helper()
	eventually.True(tm.t, wait, func() bool {
		s := tm.out.String()
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	}, func() string {
		return "the terminal shows " + strings.Join(texts, ", ") + "; it has:\n" + tm.out.String()
	})
}

func (tm *terminal) key(k string) {
	tm.t.Helper()
	if _, err := tm.in.Write([]byte(k)); err != nil {
		tm.t.Fatal(err)
	}
}

// outcome is the next send's outcome a console reports.
func (w *world) outcome() string {
	w.t.Helper()
	select {
	case s := <-w.done:
		return s
	case <-time.After(wait):
		w.t.Fatal("no send ended")
	}
	return ""
}

func (w *world) waitHeld() {
	w.t.Helper()
	select {
	case <-w.held:
	case <-time.After(wait):
		w.t.Fatalf("send-pair request %d never came (%d did)", w.holdAt, w.sends.Load())
	}
}

// journals are every send journaled in the world's state directory.
func (w *world) journals() []*model.JournalState {
	w.t.Helper()
	list, err := config.ListJournals(context.Background(), w.paths)
	if err != nil {
		w.t.Fatal(err)
	}
	out := make([]*model.JournalState, 0, len(list))
	for _, l := range list {
		if l.Err != nil {
			w.t.Fatalf("journal %s: %v", l.ID, l.Err)
		}
		out = append(out, l.State)
	}
	return out
}

var _ = errors.Is
var _ = ssh.ErrServerClosed
var _ context.Context

// noKeyAnywhere fails if the API key is in the server's log, a terminal's
// stream or any file of the state or config directory (journals, audit,
// host key, operators).
func (w *world) noKeyAnywhere(terms ...*terminal) {
	w.t.Helper()
	key := w.sb.Key()
	if strings.Contains(w.log.String(), key) {
		w.t.Error("the API key is in the server's log")
	}
	for _, tm := range terms {
		if strings.Contains(tm.out.String(), key) {
			w.t.Error("the API key reached a terminal")
		}
	}
	for _, dir := range []string{w.paths.StateDir, w.paths.ConfigDir} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(path)
			if bytes.Contains(data, []byte(key)) {
				w.t.Errorf("the API key is in %s", path)
			}
			if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 && !strings.HasSuffix(path, ".lock") {
				w.t.Errorf("%s is mode %v, want 0600", path, fi.Mode().Perm())
			}
			return nil
		})
	}
}
