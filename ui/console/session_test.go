package console

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Two consoles built by New in one process, as an SSH server builds one a
// session: each draws on its own output, at its own size, in its own colour
// profile (NO_COLOR in one: attributes, no colour); Stop, a hang-up, ends
// one and leaves the other running.
func TestNewConsolesPerSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	type session struct {
		out  *syncbuf.Buffer
		p    *tea.Program
		done chan struct{}
	}
	start := func(noColor bool, w, h int) session {
		out := &syncbuf.Buffer{}
		sess := testSession(t, e.client, app.Profile{Name: "test", Sender: "3000505"})
		trackSeed(t, sess.Paths, "test")
		opts := Options{Session: sess,
			Now: fixedClock, Input: &bytes.Buffer{}, Output: out, Environ: []string{"TERM=xterm-256color"},
			ColorProfile: colorprofile.ANSI256, NoColor: noColor, Width: w, Height: h}
		m, popts := New(context.Background(), opts)
		p := tea.NewProgram(probed{root: m.root}, popts...) // probed: asked about its state between frames
		s := session{out: out, p: p, done: make(chan struct{})}
		go func() {
			defer close(s.done)
			if _, err := p.Run(); err != nil {
				t.Errorf("program: %v", err)
			}
		}()
		t.Cleanup(func() { p.Quit(); <-s.done; m.Close() })
		return s
	}
	colour, plain := start(false, 100, 30), start(true, 80, 24)
	for _, s := range []session{colour, plain} {
		awaitState(t, s.p, "group 1 loaded", func(m *root) bool { return len(m.contacts.rows) == 8 && !m.contacts.loading })
	}
	var sizes [2][2]int
	for i, s := range []session{colour, plain} {
		ch := make(chan [2]int, 1)
		s.p.Send(probeMsg{fn: func(m *root) { ch <- [2]int{m.c.width, m.c.height} }})
		sizes[i] = <-ch
	}
	if sizes != [2][2]int{{100, 30}, {80, 24}} {
		t.Errorf("sizes %v, want each console at its own terminal's (100×30, 80×24)", sizes)
	}
	eventually.True(t, waitLimit, func() bool { return strings.Contains(plain.out.String(), "\x1b[7m") }, func() string { return "waiting for reverse video on the NO_COLOR console" })
	if !strings.Contains(colour.out.String(), "\x1b[38;5;") {
		t.Error("the 256-colour console drew no 256-colour sequence")
	}
	if m := colourSGR.FindString(plain.out.String()); m != "" || !strings.Contains(plain.out.String(), "\x1b[7m") {
		t.Errorf("the NO_COLOR console: colour sequence %q, reverse video %v; want no colour, attributes kept", m, strings.Contains(plain.out.String(), "\x1b[7m"))
	}

	plain.p.Send(Stop()) // its SSH session hung up
	select {
	case <-plain.done:
	case <-time.After(waitLimit):
		t.Fatal("Stop did not end the console")
	}
	ch := make(chan bool, 1)
	colour.p.Send(probeMsg{fn: func(m *root) { ch <- m.quitting() }})
	select {
	case quitting := <-ch:
		if quitting {
			t.Error("the other console is quitting too")
		}
	case <-colour.done:
		t.Fatal("Stop to one console ended the other")
	case <-time.After(waitLimit):
		t.Fatal("the other console does not answer")
	}
}
