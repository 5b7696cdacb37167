package console

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/model/syncbuf"
	"github.com/smsdesk/smsdesk/ui/app"
)

// counting counts the messages that reach the console (each is a redraw),
// probes aside.
type counting struct {
	probed
	updates *atomic.Int64
	seen    *syncbuf.Buffer // the type of each message counted, for a failure
	final   *atomic.Bool    // the load's last count has come (Final)
}

func (c counting) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case probeMsg, framesMsg:
	case spinner.TickMsg:
		// The spinner turns in real time while something loads; the
		// tick it asked for last lands once after the load, whenever
		// the machine gets to it (1 run in 20 under -race on a busy
		// machine, inside the ten fake minutes). What is measured here
		// is the console's clock, which the test owns.
	default:
		c.updates.Add(1)
		if c.seen != nil {
			fmt.Fprintf(c.seen, "%T\n", msg)
		}
	}
	if cm, ok := msg.(contactCountMsg); ok && cm.Final && c.final != nil {
		c.final.Store(true)
	}
	_, cmd := c.probed.Update(msg)
	return c, cmd
}

// TestIdleConsoleRedrawsOnlyOnChange: an idle console on a clock the test
// moves (its wait for the next change is answered at once, the clock moved
// by what it asked): once its rate budget has refilled, ten minutes pass
// with no redraw at all; with quiet hours on (the status bar's note, in
// minutes) one a minute. (Before: a redraw every second, 600 in ten
// minutes, from a fixed tick: 20 idle served sessions cost 10% of a core.)
func TestIdleConsoleRedrawsOnlyOnChange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		quiet    model.QuietHours
		min, max int64 // redraws in the ten minutes
	}{
		{"no quiet hours", model.QuietHours{}, 0, 0},
		{"quiet hours on", model.QuietHours{On: true, Start: 22 * 60, End: 8 * 60}, 9, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := sandbox.New(sandbox.Options{Seed: true, DeliveryDelay: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			base, err := srv.Start("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			clock := fakeclock.New(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
			noSleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
			cl, err := client.New(base, srv.Key(), client.WithRatePerMinute(60), client.WithClock(clock.Now, noSleep), heldRequests)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
			t.Cleanup(func() { paths.CloseLedger() })
			trackSeed(t, paths, "test")
			// The ledger made before the console starts, as smsdesk serve
			// and the console's command make it: making it writes its id in
			// config.toml, a change of the file the console would hear of
			// (and read the rules again) in the idle minutes.
			if _, err := paths.Ledger(t.Context()); err != nil {
				t.Fatal(err)
			}
			sess := (&app.Engine{Client: cl, Paths: paths, Now: clock.Now, Sleep: noSleep,
				Profile: app.Profile{Name: "test", BaseURL: "http://sandbox.test/api/v1", Sender: "3000505", ChunkSize: 100, Quiet: tc.quiet}}).Session(nil)
			asked := make(chan time.Duration)
			wait := func(ctx context.Context, d time.Duration) error {
				select {
				case asked <- d:
					clock.Advance(d)
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			var updates atomic.Int64
			seen, final := &syncbuf.Buffer{}, &atomic.Bool{}
			m := counting{probed: newProbed(Options{Session: sess, Now: clock.Now, Sleep: noSleep, RedrawWait: wait}), updates: &updates, seen: seen, final: final}
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
			t.Cleanup(func() {
				_ = tm.Quit()
				tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
				m.shutdown()
			})
			waitModel(t, tm, "group 1 loaded", func(m *root) bool {
				// the opt-out list's read (off the loop, from the ledger) is
				// a message too: idle starts after it has come
				// (and the load's final count, which the groups pane saves)
				return len(m.contacts.rows) == 8 && !m.contacts.loading && !m.busy() && m.contacts.optOutsKnown && final.Load()
			})
			// idle runs the clock on by at least d, one asked wait at a time.
			idle := func(d time.Duration) {
				for end := clock.Now().Add(d); clock.Now().Before(end); {
					select {
					case <-asked:
					case <-time.After(waitLimit):
						t.Fatalf("the console's clock waits no more at %v", clock.Now())
					}
				}
			}
			idle(2 * time.Minute) // the rate budget the loads spent refills
			before := updates.Load()
			seenBefore := seen.String()
			idle(10 * time.Minute)
			<-asked // what a last wake delivered has been taken: the next wait is asked after it
			if n := updates.Load() - before; n < tc.min || n > tc.max {
				t.Errorf("%d redraws in ten idle minutes, want %d to %d; the messages:\n%s", n, tc.min, tc.max, strings.TrimPrefix(seen.String(), seenBefore))
			}
			probe := make(chan string, 1)
			tm.Send(probeMsg{fn: func(m *root) { probe <- m.rateText() }})
			if got := <-probe; got != "rate 60/60 per min" {
				t.Errorf("the status bar's rate: %q", got)
			}
		})
	}
}

// TestCountdownChange: a countdown redraws when its text changes, at its
// own resolution: minutes while minutes show, seconds in its last minute,
// and so on after it is due.
func TestCountdownChange(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		before time.Duration // now is at minus this (negative: after at)
	}{{2 * time.Hour}, {10*time.Minute + 10*time.Second}, {90 * time.Second}, {61 * time.Second}, {45 * time.Second},
		{300 * time.Millisecond}, {0}, {-20 * time.Second}, {-5 * time.Minute}} {
		now := at.Add(-tc.before)
		d := countdownChange(at, now)
		text := model.DueText(at, now)
		if got := model.DueText(at, now.Add(d)); got == text {
			t.Errorf("%v before: after %v it still reads %q", tc.before, d, got)
		}
		if got := model.DueText(at, now.Add(d-2*time.Millisecond)); d > 2*time.Millisecond && got != text {
			t.Errorf("%v before: it changed before %v (%q to %q)", tc.before, d, text, got)
		}
		if tc.before >= 2*time.Minute && d < 10*time.Second && d != time.Millisecond {
			t.Errorf("%v before: a minutes countdown woke after %v", tc.before, d)
		}
	}
}
