package console

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"go.uber.org/goleak"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	// Every piece of background work the console starts (loads, imports,
	// sends, polls) must have ended when the tests do: a goroutine blocked on
	// a channel nobody reads fails the package.
	goleak.VerifyTestMain(m,
		// teatest's own SIGINT watcher lives as long as the test binary;
		// bubbletea's Tick goroutines end with their timers, and the batch
		// waiting for them with them. A Cmd of ours that blocks is still
		// found: its own goroutine is not ignored.
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"),
		goleak.IgnoreAnyFunction("github.com/charmbracelet/bubbletea.Tick.func1"),
		goleak.IgnoreAnyFunction("github.com/charmbracelet/bubbletea.(*Program).execBatchMsg"))
}

// fixedNow is the injected clock: goldens never show the real time.
var fixedNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// env is a console wired to a real in-process sandbox over loopback.
type env struct {
	srv    *sandbox.Server
	client *client.Client
	groups GroupStore
	opts   Options
	base   string
}

func (e *env) clientBase() string { return e.base }

var groupNewsletter = model.Group{ID: "4", Name: "Newsletter"}

// namedGolden compares a named frame with testdata/<test>_<name>.golden.
func namedGolden(t *testing.T, name, frame string) {
	t.Helper()
	t.Run(name, func(t *testing.T) { requireGolden(t, frame) })
}

// newEnv starts a seeded sandbox and a client for it; the profile tracks the
// seed's groups as a real one would after `groups track`.
func newEnv(t *testing.T, sopts sandbox.Options) *env {
	t.Helper()
	sopts.Seed = true
	if sopts.DeliveryDelay == 0 {
		sopts.DeliveryDelay = -1
	}
	srv, err := sandbox.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cl, err := client.New(base, srv.Key(), client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	// A real state directory, as production has: sends are journaled,
	// the groups file and contact caches are written.
	dir := t.TempDir()
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	for _, g := range []model.Group{{ID: "1", Name: "مشتریان تهران"}, {ID: "2", Name: "Support team"}, {ID: "3", Name: "VIP"}} {
		if err := config.TrackGroup(paths, "test", g); err != nil {
			t.Fatal(err)
		}
	}
	groups := ConfigGroups(paths, "test")
	now := func() time.Time { return fixedNow }
	// Delivery polls wait between rounds: no real seconds in tests.
	sleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	sess := &app.Session{Client: cl, Paths: paths, Now: now, Sleep: sleep,
		Profile: app.Profile{Name: "test", BaseURL: "http://sandbox.test/api/v1", Sender: "3000505",
			Senders: []string{"3000505", "10004346"}, ChunkSize: 100}}
	e := &env{srv: srv, client: cl, groups: groups, base: base}
	e.opts = Options{Session: sess, Groups: groups, Now: now, Sleep: sleep}
	return e
}

// start runs the console under teatest at 100×30.
func (e *env) start(t *testing.T) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, newProbed(e.opts), teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() { _ = tm.Quit() }) // a test that stops early leaves no program running
	return tm
}

// startOnGroup1 starts the console and waits until the first group's eight
// seeded contacts are loaded.
func (e *env) startOnGroup1(t *testing.T) *teatest.TestModel {
	t.Helper()
	tm := e.start(t)
	// Rows show per page; the load is over when its last message has come
	// and the groups pane has the count (a frame taken before then is a
	// spinner, not the settled screen).
	waitModel(t, tm, "group 1 loaded", func(m *root) bool {
		return len(m.contacts.rows) == 8 && !m.contacts.loading && m.groups.counts["1"] == 8
	})
	return tm
}

// waitFor waits until the program's output contains every one of want.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := string(b)
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// waitModel polls the live model (through the program) until cond holds.
func waitModel(t *testing.T, tm *teatest.TestModel, what string, cond func(m *root) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ch := make(chan bool, 1)
		tm.Send(probeMsg{fn: func(m *root) { ch <- cond(m) }})
		select {
		case ok := <-ch:
			if ok {
				return
			}
		case <-time.After(2 * time.Second):
		}
		time.Sleep(20 * time.Millisecond)
	}
	ch := make(chan string, 1)
	tm.Send(probeMsg{fn: func(m *root) { ch <- m.View() }})
	select {
	case v := <-ch:
		t.Fatalf("timed out waiting for %s; screen:\n%s", what, v)
	case <-time.After(2 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// finalView quits and returns the last frame the model draws.
func finalView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
	return m.View()
}

var volatile = regexp.MustCompile(`rate \d+/\d+ per (min|\d+ s) *`)

// requireGolden compares a frame with testdata/<test name>.golden (-update
// rewrites it). The rate budget is masked: it refills with wall time.
func requireGolden(t *testing.T, frame string) {
	t.Helper()
	frame = volatile.ReplaceAllStringFunc(frame, func(s string) string {
		const mask = "rate N/N per min"
		return mask + strings.Repeat(" ", max(len(s)-len(mask), 0))
	})
	golden.RequireEqual(t, []byte(frame))
}

// namedKeys are the special keys the tests press by name.
var namedKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"ctrl+c": tea.KeyCtrlC, "ctrl+s": tea.KeyCtrlS, "down": tea.KeyDown, "up": tea.KeyUp,
	"ctrl+l": tea.KeyCtrlL, "ctrl+z": tea.KeyCtrlZ, "home": tea.KeyHome, "end": tea.KeyEnd,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
}

// press is the key message for a named key, or for typing s.
func press(s string) tea.KeyMsg {
	if k, ok := namedKeys[s]; ok {
		return tea.KeyMsg{Type: k}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// typeText sends each rune of s as its own key press (teatest.Type splits bytes,
// which breaks Persian).
func typeText(tm *teatest.TestModel, s string) {
	for _, r := range s {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func fixedClock() time.Time { return fixedNow }

// testSession is a session on a temporary state directory, as production
// has one: what a test sends is journaled, what it tracks is in a groups
// file. cl may be nil (the setup screen); a profile without a name is
// "default", as the console calls it.
func testSession(tb testing.TB, cl *client.Client, prof app.Profile) *app.Session {
	tb.Helper()
	dir := tb.TempDir()
	return &app.Session{Client: cl, Paths: config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state")), Profile: prof, Now: fixedClock}
}
