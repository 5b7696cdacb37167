package console

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// countingWriter counts the bytes the program writes to its terminal.
type countingWriter struct {
	mu        sync.Mutex
	n         int
	last      time.Time
	lastChunk string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	w.last = time.Now()
	w.lastChunk = string(p)
	return len(p), nil
}

func (w *countingWriter) read() (int, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.last
}

// settle waits for the frame an action asked for (a write after since, or
// 500 ms without one), then until the output is quiet.
func (w *countingWriter) settle(since time.Time) int {
	for deadline := since.Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, last := w.read(); last.After(since) {
			break
		}
	}
	return w.quiet()
}

// quiet waits until nothing was written for 150 ms and returns the count.
func (w *countingWriter) quiet() int {
	for {
		n, last := w.read()
		if time.Since(last) > 150*time.Millisecond {
			return n
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// BenchmarkBytesPerAction measures what the slow-SSH issue measures: the
// bytes the console's renderer writes to the terminal for one action at
// 100×30 (a 300-contact group): one row of scrolling, one character typed
// in the composer, tab between panes, and idle seconds. The renderer here
// is the program's own (bubbletea's), writing into a counter; the figures
// are the "before" column of BENCHMARKS.md's byte table. Run with
// go test -run '^$' -bench BytesPerAction -benchtime 20x ./ui/console
func BenchmarkBytesPerAction(b *testing.B) {
	for _, action := range []struct {
		name  string
		setup []tea.Msg
		key   func(i int) tea.Msg
	}{
		// Past the last row shown, each ↓ scrolls the table by one row.
		{"scroll one row", repeat(press("down"), 30), func(int) tea.Msg { return press("down") }},
		{"move the cursor one row", nil, func(i int) tea.Msg {
			if i%2 == 0 {
				return press("down")
			}
			return press("up")
		}},
		{"tab between panes", nil, func(int) tea.Msg { return press("tab") }},
		{"composer character", []tea.Msg{press("c")}, func(i int) tea.Msg {
			if i%2 == 0 {
				return press("x")
			}
			return press("backspace")
		}},
	} {
		b.Run(action.name, func(b *testing.B) {
			out, p := bytesProgram(b)
			for _, m := range action.setup {
				p.Send(m)
			}
			before := out.quiet()
			n := 0
			for b.Loop() {
				sent := time.Now()
				p.Send(action.key(n))
				n++
				out.settle(sent)
			}
			after, _ := out.read()
			b.ReportMetric(float64(after-before)/float64(n), "bytes/action")
		})
	}
	b.Run("idle second", func(b *testing.B) {
		out, _ := bytesProgram(b)
		before := out.quiet()
		n := 0
		for b.Loop() {
			time.Sleep(time.Second)
			n++
		}
		after, _ := out.read()
		b.ReportMetric(float64(after-before)/float64(n), "bytes/s")
	})
}

func repeat(m tea.Msg, n int) []tea.Msg {
	out := make([]tea.Msg, n)
	for i := range out {
		out[i] = m
	}
	return out
}

// bytesProgram runs the console at 100×30 on the sandbox's 300-contact
// group, writing into a counter.
func bytesProgram(b *testing.B) (*countingWriter, *tea.Program) {
	b.Helper()
	sb, err := sandbox.New(sandbox.Options{Seed: true, DeliveryDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	base, err := sb.Start("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sb.Close() })
	cl, err := client.New(base, sb.Key(), client.WithRatePerMinute(60000))
	if err != nil {
		b.Fatal(err)
	}
	sess := testSession(b, cl, app.Profile{Name: "test", Sender: "3000505"})
	if err := config.TrackGroup(sess.Paths, "test", model.Group{ID: "4", Name: "Newsletter"}); err != nil {
		b.Fatal(err)
	}
	m := newRoot(b.Context(), Options{Session: sess, Now: fixedClock})
	out := &countingWriter{last: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	// A terminal with 256 colours, as the issue measured (the tests' ASCII
	// profile writes no colour codes at all); TERM says what the renderer
	// may use to move the cursor and scroll.
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithContext(ctx), tea.WithoutSignalHandler(),
		tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithColorProfile(colorprofile.ANSI256))
	done := make(chan struct{})
	go func() { _, _ = p.Run(); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	p.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	for deadline := time.Now().Add(10 * time.Second); ; {
		out.quiet()
		if len(m.contacts.rows) == 300 || time.Now().After(deadline) {
			break
		}
	}
	if len(m.contacts.rows) != 300 {
		b.Fatalf("the group loaded %d contacts", len(m.contacts.rows))
	}
	p.Send(press("tab")) // the contacts pane
	out.quiet()
	return out, p
}

var _ io.Writer = (*countingWriter)(nil)
