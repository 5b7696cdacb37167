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

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

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
	// Groups remembers the profile's known groups. Nil means the profile's
	// groups file in the session's state directory.
	Groups GroupStore
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
	// Sleep is how sends and delivery polls wait (tests pass one that
	// returns at once). Nil means real waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Input and Output replace the terminal (tests). Nil means stdin/stdout.
	Input  io.Reader
	Output io.Writer
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
	// ProgramOptions are extra tea.ProgramOptions (tests).
	ProgramOptions []tea.ProgramOption
}

// Run starts the console and blocks until the operator quits or ctx ends.
func Run(ctx context.Context, opts Options) error {
	prepareTerminal(opts)
	// Signals are the console's to handle: SIGTERM, SIGHUP (an SSH session
	// dropped) and SIGINT from outside stop a send after its chunk in flight,
	// as q → yes does; a second one quits at once.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if !opts.NoMouse {
		popts = append(popts, tea.WithMouseCellMotion())
	}
	if !opts.NoAltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	m := newRoot(ctx, opts)
	defer m.shutdown()
	p := tea.NewProgram(m, popts...)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case s := <-sigs:
				if n == 0 {
					p.Send(stopMsg{sig: s})
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
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("console: %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return nil
}

// prepareTerminal settles colours before the program starts: the background
// is taken from the theme rather than asked of the terminal (a query that can
// stall over SSH). NO_COLOR keeps attributes (reverse, bold, underline) on:
// the no-colour theme uses them for focus and the cursor, and no colour.
func prepareTerminal(opts Options) {
	lipgloss.SetHasDarkBackground(opts.Theme != "light")
	if opts.NoColor {
		lipgloss.SetColorProfile(termenv.ANSI)
	}
}

// hostOf returns the host of a base URL for display.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return base
	}
	return u.Host
}
