// Package console is smsdesk's bubbletea operator console: groups, contacts, a
// paired-message composer and live send results in one keyboard-first TUI.
//
// The root model only routes; every pane (groups, contacts, composer, confirm,
// results, history, help, setup and the small forms) owns its state in its own
// file. All panes share one context (size, styles, keys, client, logger,
// profile) passed in at construction.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Options configures the console. Everything the console needs is passed in;
// it reads no global state of its own.
type Options struct {
	// Session is the operator's session of the application layer (ui/app):
	// the profile, the client (nil opens the first-run setup screen) and
	// where state lives. Every flow goes through it.
	Session *app.Session
	// KeyFromEnv: the client's key came from SMSDESK_API_KEY, which wins over
	// a stored key; when the service refuses it, the setup screen says so.
	KeyFromEnv bool
	// Login verifies and stores a key for the setup screen, exactly as
	// `smsdesk login` does, and returns a client for it. Nil disables setup.
	Login LoginFunc
	// Retries are the client's notices that the service could not be reached
	// and when it will be tried again; the status bar shows them at once.
	Retries <-chan client.RetryEvent
	// SaveSenders stores the profile's sender lines (after the operator agreed
	// to add one in the composer). Nil: lines are added with config set only.
	SaveSenders func(lines []string) error
	// StateDir is where results exports default to; empty means the current directory.
	StateDir string
	// HomeDir is what a leading ~/ in a file name typed in a form stands for.
	HomeDir string
	// FilesDir, when set, is the only directory a file name typed in a form
	// may name (a relative name inside it): a console served over SSH
	// (smsdesk serve) reads and writes the server's files, not the
	// operator's, so opening, importing and exporting stay in this one
	// directory the server's admin chose.
	FilesDir string
	// Demo marks a console running on the built-in sandbox (shown in the status bar).
	Demo bool
	// Theme is "dark" (default) or "light"; decided before the program starts.
	Theme string
	// NoColor (NO_COLOR set): no colour at all; focus, selection and the
	// cursor are drawn with reverse, bold, underline and borders instead.
	NoColor bool
	// Logger receives debug logs (never the terminal the program owns). Nil discards.
	Logger *slog.Logger
	// Now is the clock (tests inject a fixed one). Nil means time.Now.
	Now func() time.Time
	// RedrawWait is how the console waits for its clock's next change of
	// the screen (redraw.go); nil: real time. Tests pass one they control.
	RedrawWait func(ctx context.Context, d time.Duration) error
	// Sleep is how sends and delivery polls wait (tests pass one that
	// returns at once). Nil means real waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Input and Output are the terminal the console draws on: an SSH
	// session's channel, or a test's buffers. Nil means stdin/stdout.
	Input  io.Reader
	Output io.Writer
	// Environ is that terminal's environment ("TERM=xterm-256color",
	// "COLORTERM=truecolor", "NO_COLOR=1", …): the colour profile is
	// detected from it and Output. An SSH server passes the session's; nil
	// means the process's own (os.Environ).
	Environ []string
	// ColorProfile, when set, is the colour profile frames are drawn in
	// (an SSH server knows its client's from the pty request) instead of
	// one detected from Output and Environ. NoColor caps it at
	// colorprofile.ASCII: attributes, no colour.
	ColorProfile colorprofile.Profile
	// Width and Height are the terminal's size when it is known before the
	// program starts (an SSH session's pty); zero asks the terminal.
	Width, Height int
	// NoAltScreen keeps the console in the normal screen buffer.
	NoAltScreen bool
	// NoMouse leaves the mouse to the terminal (selecting and copying text).
	NoMouse bool
	// Multiplexer is "tmux" or "screen" when the console runs inside one
	// (OSC 52 copies are wrapped to pass through it), else "".
	Multiplexer string
	// BidiVisual reorders right-to-left text for display (the bidi setting
	// resolved: visual, or auto on a terminal that does not reorder).
	BidiVisual bool
	// SaveBidi stores the bidi setting when the operator switches it with
	// its key ("visual" or "off"). Nil: the switch lasts this session only.
	SaveBidi func(mode string) error
	// Note is the status bar's first note (smsdesk serve: how right-to-left
	// text is shown on this terminal and which key changes it).
	Note string
	// ProgramOptions are extra tea.ProgramOptions (tests).
	ProgramOptions []tea.ProgramOption
}

// Model is one operator's console on one terminal, the tea.Model a
// tea.Program runs. Build one per terminal with New: a console keeps no
// state outside itself, reads no environment and handles no signals, so a
// server can run one per SSH session in the same process.
type Model struct{ root *root }

// New builds a console and the options of the tea.Program that draws it on
// opts' terminal (Input, Output, Environ, ColorProfile, Width×Height). The
// console's background work (loads, imports, sends) runs under ctx:
// cancelling it cancels them; call Close when the program has ended.
//
// The console handles no signals itself (the options include
// tea.WithoutSignalHandler). Whoever owns the terminal tells it that it is
// going away by sending Stop() through the program: Run does so on SIGINT,
// SIGTERM and SIGHUP, an SSH server when the session hangs up.
//
//	m, popts := console.New(ctx, opts)
//	defer m.Close()
//	p := tea.NewProgram(m, popts...)
//	go func() { <-hangup; p.Send(console.Stop()) }()
//	_, err := p.Run()
//	report := m.ExitReport() // what became of a send or import; tell the operator
func New(ctx context.Context, opts Options) (*Model, []tea.ProgramOption) {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Environ != nil {
		popts = append(popts, tea.WithEnvironment(opts.Environ))
	}
	if p := colourProfile(opts); p != colorprofile.Unknown {
		popts = append(popts, tea.WithColorProfile(p))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	popts = append(popts, opts.ProgramOptions...)
	return &Model{root: newRoot(ctx, opts)}, popts
}

// colourProfile is the profile the program is told to draw in, or Unknown to
// let it detect one. NO_COLOR keeps attributes (reverse, bold, underline),
// which the no-colour theme uses for focus and the cursor, and no colour.
func colourProfile(opts Options) colorprofile.Profile {
	p := opts.ColorProfile
	if opts.NoColor && (p == colorprofile.Unknown || p > colorprofile.ASCII) {
		p = colorprofile.ASCII
	}
	return p
}

// Stop is the message that tells a running console its terminal is going
// away, or that it was asked to end (SIGTERM, SIGHUP, an SSH session's
// hang-up): a running send stops after its chunk in flight and an import
// after its row in flight, and the console quits once they are recorded, as
// q → yes does. A second Stop quits at once (that chunk is then unknown).
// Send it with (*tea.Program).Send.
func Stop() tea.Msg { return stopMsg{} }

// Init implements tea.Model: the first frame at once, the known groups loading.
func (m *Model) Init() tea.Cmd { return m.root.Init() }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.root.Update(msg)
	return m, cmd
}

// View implements tea.Model: the frame, in the alternate screen and with the
// mouse unless the options said not to.
func (m *Model) View() tea.View { return m.root.View() }

// ExitReport says, after the program ended, what became of a send that was
// running or stopped this session (its id, counts and how to continue) and of
// imports that did not finish. "" when there is nothing to say.
func (m *Model) ExitReport() string { return m.root.ExitReport() }

// Close ends the console's background work still in flight. Call it when the
// program has ended.
func (m *Model) Close() { m.root.shutdown() }

// Run starts the console on this process's terminal and blocks until the
// operator quits or ctx ends. Signals are the console's to handle here:
// SIGTERM, SIGHUP (an SSH session dropped) and SIGINT from outside stop a
// send after its chunk in flight, as q → yes does; a second one quits at
// once. What became of a send or an import is written to stderr after the
// terminal is restored.
func Run(ctx context.Context, opts Options) error {
	m, popts := New(ctx, opts)
	defer m.Close()
	p := tea.NewProgram(m, popts...)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case <-sigs:
				if n == 0 {
					p.Send(Stop())
				} else {
					p.Kill()
				}
			case <-done:
				return
			}
		}
	}()
	_, err := p.Run()
	signal.Stop(sigs)
	close(done)
	if r := m.ExitReport(); r != "" {
		fmt.Fprintln(os.Stderr, r) // the terminal is restored; after SIGHUP it may be gone
	}
	// Killed (a second signal, or ctx ended) is how the operator asked to
	// leave; a panic is killed too in bubbletea v2, and is an error.
	if err != nil && (!errors.Is(err, tea.ErrProgramKilled) || errors.Is(err, tea.ErrProgramPanic)) {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}

// hostOf returns the host of a base URL for display.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return base
	}
	return u.Host
}
