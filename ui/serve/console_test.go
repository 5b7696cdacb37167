package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// testConsole stands in for ui/console in these tests of the SSH face: a
// bubbletea v2 model that shows who is signed in and, on "s", sends the
// test's pairs through the operator's session of ui/app (the flows the
// console calls: PrepareSend, then Start), as the console does. The real
// console is wired the same way (a ConsoleFactory).
type testConsole struct {
	t      Terminal
	rows   []model.PairRow
	done   chan<- string // every send's outcome, for the test to read
	ctx    context.Context
	cancel context.CancelFunc

	w, h       int
	status     string
	sendCancel context.CancelFunc // the running send's, nil when none
	stopping   bool
}

type testStopMsg struct{}

type sendDoneMsg struct{ text string }

func newTestConsole(rows []model.PairRow, done chan<- string) ConsoleFactory {
	return func(ctx context.Context, t Terminal) (Console, []tea.ProgramOption) {
		ctx, cancel := context.WithCancel(ctx)
		c := &testConsole{t: t, rows: rows, done: done, ctx: ctx, cancel: cancel, status: "ready", w: t.Width, h: t.Height}
		return c, []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithInput(t.Input), tea.WithOutput(t.Output),
			tea.WithEnvironment(t.Environ), tea.WithColorProfile(t.ColorProfile), tea.WithWindowSize(t.Width, t.Height)}
	}
}

func (c *testConsole) Init() tea.Cmd { return nil }

func (c *testConsole) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		c.w, c.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "s":
			if c.sendCancel == nil {
				return c, c.send()
			}
		case "q":
			return c, tea.Quit
		}
	case sendDoneMsg:
		c.sendCancel, c.status = nil, msg.text
		c.done <- c.t.Operator.Name + ": " + msg.text
		if c.stopping {
			return c, tea.Quit
		}
	case testStopMsg:
		c.stopping = true
		if c.sendCancel == nil {
			return c, tea.Quit
		}
		c.sendCancel() // stops after the chunk in flight; quits when it is recorded
	}
	return c, nil
}

// send plans, checks and starts a send as the console's composer does.
func (c *testConsole) send() tea.Cmd {
	ctx, cancel := context.WithCancel(c.ctx)
	c.sendCancel, c.status = cancel, "sending"
	s := c.t.App
	return func() tea.Msg {
		p, err := s.PrepareSend(ctx, app.SendRequest{Plan: s.Plan(s.Profile.Sender, c.rows), Source: app.TypedSource(), ChunkSize: 1})
		if err == nil {
			err = p.Refused()
		}
		var x *app.Send
		if err == nil {
			x, err = p.Start(ctx, app.SendOptions{})
		}
		var r *app.Refusal
		switch {
		case errors.As(err, &r):
			return sendDoneMsg{text: "refused: " + r.Text()}
		case err != nil:
			return sendDoneMsg{text: "refused: " + err.Error()}
		}
		for range x.Events() {
		}
		out, _ := x.Finish()
		return sendDoneMsg{text: fmt.Sprintf("sent %s accepted=%d unknown=%d", x.ID(), out.Summary.Counts.Accepted, out.Summary.Counts.Unknown)}
	}
}

func (c *testConsole) View() tea.View {
	// Spaces are drawn as underscores: a cell renderer may move the cursor
	// over a blank rather than write it, and the tests read the stream.
	status := strings.ReplaceAll(c.status, " ", "_")
	if len(status) > 60 {
		status = status[:60]
	}
	v := tea.NewView(fmt.Sprintf("operator=%s\nrole=%s\nsize=%dx%d\nterm=%s\nstatus=%s", c.t.Operator.Name, c.t.Operator.Role, c.w, c.h, c.t.Term, status))
	v.AltScreen = true
	return v
}

func (c *testConsole) ExitReport() string { return "" }

func (c *testConsole) Close() { c.cancel() }
