package cli

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/smsdesk/smsdesk/model"
)

// IOStreams are what a command reads and writes, and what they are (gh's
// iostreams): stdin, stdout and stderr, whether each is a terminal, and
// stdout's width. The root command sets them up once per run, before any
// command runs (setUp): under --json stderr carries only the final error;
// --quiet drops progress, notes and warnings; --jq and --json=FIELDS read
// what a command prints to Out; text for people is sanitised where it
// meets the terminal.
type IOStreams struct {
	In io.Reader
	// Out is stdout: text for people (sanitised), or JSON under --json
	// (which escapes its own controls).
	Out io.Writer
	// ErrOut is stderr for progress, notes and warnings (sanitised):
	// io.Discard under --json and --quiet.
	ErrOut io.Writer
	// InIsTerminal and OutIsTerminal say whether stdin and stdout are a
	// terminal: a question may be asked; a table is aligned and fitted.
	InIsTerminal, OutIsTerminal bool

	// width is stdout's width when it is a terminal (nil or 0: $COLUMNS,
	// else 80); getenv reads $COLUMNS.
	width  func() int
	getenv func(string) string
	// terminal is the terminal's stderr itself, for questions: kept when
	// --json or --quiet silence ErrOut, and not sanitised (a prompt draws
	// with the terminal's own controls; through the sanitiser login's
	// masked prompt drew nothing at all).
	terminal io.Writer
	// rawErr is ErrOut before sanitising, for the progress bar's own
	// terminal control (its carriage return and erase-line).
	rawErr io.Writer
}

// newIOStreams are env's streams as given, before the root command's
// flags are read.
func newIOStreams(env Env) *IOStreams {
	return &IOStreams{In: env.Stdin, Out: env.Stdout, ErrOut: env.Stderr, InIsTerminal: env.StdinIsTerminal, OutIsTerminal: env.StdoutIsTerminal,
		width: env.TerminalWidth, getenv: env.Getenv}
}

// setUp makes the streams what the command's flags ask: stdout filtered by
// --json=FIELDS and --jq (filter: the buffer a command prints into, nil
// when neither is given), stderr silenced by --json (asJSON) or --quiet,
// and text for people sanitised.
func (ios *IOStreams) setUp(filter io.Writer, asJSON, quiet bool) {
	ios.terminal = ios.ErrOut
	if filter != nil {
		ios.Out = filter
	}
	if quiet || asJSON {
		ios.ErrOut = io.Discard
	}
	ios.rawErr = ios.ErrOut
	ios.ErrOut = model.NewSanitizingWriter(ios.ErrOut)
	if !asJSON {
		ios.Out = model.NewSanitizingWriter(ios.Out)
	}
}

// Terminal is where a question is asked (see terminal).
func (ios *IOStreams) Terminal() io.Writer {
	if ios.terminal != nil {
		return ios.terminal
	}
	return ios.ErrOut
}

// ErrIsTerminal reports whether progress may redraw a line in place:
// stderr is a terminal and is not silenced.
func (ios *IOStreams) ErrIsTerminal() bool {
	f, ok := ios.terminal.(*os.File) // the real stderr, before --json, --quiet or sanitising
	if ios.rawErr == io.Discard {
		return false
	}
	return ok && term.IsTerminal(int(f.Fd()))
}

// ProgressOut is where progress goes: stderr as it is (a terminal's bar
// rewrites its line), or sanitised when it is not a terminal.
func (ios *IOStreams) ProgressOut() io.Writer {
	if ios.ErrIsTerminal() && ios.rawErr != nil {
		return ios.rawErr
	}
	return ios.ErrOut
}

// Width is stdout's width in columns: the terminal's, else $COLUMNS, else
// 80 (as gh assumes).
func (ios *IOStreams) Width() int {
	if ios.width != nil {
		if n := ios.width(); n > 0 {
			return n
		}
	}
	if ios.getenv != nil {
		if n, err := strconv.Atoi(ios.getenv("COLUMNS")); err == nil && n > 0 {
			return n
		}
	}
	return 80
}

// Confirm asks a yes/no question on the terminal; the default is no. It
// refuses (a usage error) when stdin is not a terminal, naming the flag
// that skips it.
func (ios *IOStreams) Confirm(question, skipFlag string) (bool, error) {
	if !ios.InIsTerminal {
		// The question ends in "?" or "."; the reason follows it whole.
		return false, usageError("stdin is not a terminal, so smsdesk cannot ask %q: pass %s to go ahead", question, skipFlag)
	}
	printf(ios.Terminal(), "%s [y/N] ", question)
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
