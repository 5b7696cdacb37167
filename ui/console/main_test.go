package console

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/rivo/uniseg"
	"go.uber.org/goleak"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/app"
)

func TestMain(m *testing.M) {
	// The tests wait on programs, sandboxes and byte budgets' seconds far
	// more than they compute (3.5 s of CPU in a 5 s run): more of them run
	// side by side than the cores, unless -test.parallel says otherwise.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
	// Every piece of background work the console starts (loads, imports,
	// sends, polls) must have ended when the tests do: a goroutine blocked on
	// a channel nobody reads fails the package.
	goleak.VerifyTestMain(m,
		// teatest's own SIGINT watcher lives as long as the test binary;
		// bubbletea's Tick goroutines end with their timers, and the batch
		// waiting for them with them. A Cmd of ours that blocks is still
		// found: its own goroutine is not ignored.
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.Tick.func1"),
		goleak.IgnoreAnyFunction("charm.land/bubbletea/v2.(*Program).execBatchMsg"))
}

// waitLimit bounds each wait on the console's state (a model, a frame, a
// request arriving, a program's end). It guards against a hang and is no
// budget: the tests wait for states, never for times, and a machine busy
// with other work takes as long as it takes to reach one. Ten seconds (forty
// under -race) was too little there: with both cores busy and other
// builds running (load 16-19 on 2 cores), TestSendCancelThenRetry's retry
// was a tenth through its delivery watch when the wait gave up. A test that
// hangs still fails, showing the screen it was stuck on, well inside go
// test's own -timeout.
const waitLimit = 3 * time.Minute

// heldRequests gives the tests' clients a request timeout as long as the
// waits: their gates hold requests on purpose, for as long as a busy
// machine takes to reach the next step, and the production 30 s ended a
// held import row under -race at load 27 (TestImportsOwnedPerGroup saw
// "0 added" where it waited for two imports running).
var heldRequests = client.WithTimeout(waitLimit)

// fixedNow is the injected clock: goldens never show the real time.
var fixedNow = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// env is a console wired to a real in-process sandbox over loopback.
type env struct {
	srv    *sandbox.Server
	client *client.Client
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
	return newEnvBehind(t, sopts, nil)
}

// newEnvBehind is newEnv with the sandbox's handler wrapped (nil: as it
// is), for a service that loses answers or holds requests.
func newEnvBehind(t *testing.T, sopts sandbox.Options, wrap func(http.Handler) http.Handler) *env {
	t.Helper()
	sopts.Seed = true
	if sopts.DeliveryDelay == 0 {
		sopts.DeliveryDelay = -1
	}
	srv, err := sandbox.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var base string
	if wrap == nil {
		base, err = srv.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
	} else {
		hs := httptest.NewServer(wrap(srv.Handler()))
		t.Cleanup(hs.Close)
		base = hs.URL + "/api/v1"
	}
	cl, err := client.New(base, srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	// A real state directory, as production has: sends are journaled,
	// the groups file and contact caches are written.
	dir := t.TempDir()
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	t.Cleanup(func() { paths.CloseLedger() })
	trackSeed(t, paths, "test")
	now := func() time.Time { return fixedNow }
	// Delivery polls wait between rounds: no real seconds in tests.
	sleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	sess := (&app.Engine{Client: cl, Paths: paths, Now: now, Sleep: sleep,
		Profile: app.Profile{Name: "test", BaseURL: "http://sandbox.test/api/v1", Sender: "3000505",
			Senders: []string{"3000505", "10004346"}, ChunkSize: 100}}).Session(nil)
	e := &env{srv: srv, client: cl, base: base}
	e.opts = Options{Session: sess, Now: now, Sleep: sleep}
	return e
}

// trackSeed tracks the seed's groups 1–3 for profile, as a real profile
// would after `groups track`.
func trackSeed(t testing.TB, paths config.Paths, profile string) {
	t.Helper()
	for _, g := range []model.Group{{ID: "1", Name: "مشتریان تهران"}, {ID: "2", Name: "Support team"}, {ID: "3", Name: "VIP"}} {
		if err := config.TrackGroup(paths, profile, g); err != nil {
			t.Fatal(err)
		}
	}
}

// track tracks g for the env's profile.
func (e *env) track(t testing.TB, g model.Group) {
	t.Helper()
	if err := config.TrackGroup(e.opts.Session.Paths, e.opts.Session.Profile.Name, g); err != nil {
		t.Fatal(err)
	}
}

// knownGroups are the env profile's known groups, as its groups file has them.
func (e *env) knownGroups(t testing.TB) []config.KnownGroup {
	t.Helper()
	known, err := e.opts.Session.KnownGroups()
	if err != nil {
		t.Fatal(err)
	}
	return known
}

// start runs the console under teatest at 100×30.
func (e *env) start(t *testing.T) *teatest.TestModel {
	t.Helper()
	tm := startProgram(t, e.opts)
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
	// spinner, not the settled screen), and the opt-out list has been read
	// (its message, a success, clears the status bar's last refusal: a
	// test's first key may not come before it).
	waitModel(t, tm, "group 1 loaded", func(m *root) bool {
		return len(m.contacts.rows) == 8 && !m.contacts.loading && m.groups.counts["1"] == 8 && m.contacts.optOutsKnown
	})
	return tm
}

// startProgram runs a console under teatest at 100×30, in the ASCII colour
// profile: what the tests see does not depend on the terminal they run in.
// When the test ends the program is quit and, as Run does when its program
// has ended, the console's work still in flight is ended with it.
func startProgram(t *testing.T, opts Options) *teatest.TestModel {
	t.Helper()
	return startProgramAt(t, opts, 100, 30)
}

// startProgramAt is startProgram on a w×h terminal.
func startProgramAt(t *testing.T, opts Options, w, h int) *teatest.TestModel {
	t.Helper()
	m := newProbed(opts)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(waitLimit))
		m.shutdown()
	})
	return tm
}

// waitFor waits until the frames the program drew since the last waitFor
// contain every one of want. It reads the frames (as text) rather than the
// program's output: bubbletea v2's renderer writes only the cells that
// changed, so a word on the screen need not appear whole in the bytes.
func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	var seen strings.Builder
	eventually.True(t, waitLimit, func() bool {
		ch := make(chan []string, 1)
		tm.Send(framesMsg{ch: ch})
		select {
		case frames := <-ch:
			for _, f := range frames {
				seen.WriteString(f)
			}
		case <-time.After(2 * time.Second):
		}
		return containsAll(seen.String(), want)
	}, func() string {
		return fmt.Sprintf("waiting for %q; frames drawn:\n%s", want, lastLines(seen.String(), 40))
	})
}

func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// lastLines is the end of s, n lines at most.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitModel polls the live model (through the program) until cond holds.
func waitModel(t *testing.T, tm *teatest.TestModel, what string, cond func(m *root) bool) {
	t.Helper()
	eventually.True(t, waitLimit, func() bool {
		ch := make(chan bool, 1)
		tm.Send(probeMsg{fn: func(m *root) { ch <- cond(m) }})
		select {
		case ok := <-ch:
			return ok
		case <-time.After(2 * time.Second):
			return false
		}
	}, func() string {
		ch := make(chan string, 1)
		tm.Send(probeMsg{fn: func(m *root) { ch <- m.text() }})
		select {
		case v := <-ch:
			return "waiting for " + what + "; screen:\n" + v
		case <-time.After(2 * time.Second):
			return "waiting for " + what
		}
	})
}

// finalView quits and returns the last frame the model draws.
func finalView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	m := tm.FinalModel(t, teatest.WithFinalTimeout(waitLimit))
	return m.(probed).text()
}

// text is the frame as the tests read it and the goldens keep it: its text,
// without escape sequences, as the v1 tests drew it under termenv's ASCII
// profile (colorprofile.ASCII keeps bold and reverse; the colour test,
// TestColourProfilesSameLayout, checks those).
func (m *root) text() string { return drawIn(m.frame(), colorprofile.NoTTY) }

// drawIn is a frame as the program writes it in profile p: colours
// downsampled (or dropped), as colorprofile does to the program's output.
func drawIn(frame string, p colorprofile.Profile) string {
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: p}
	if _, err := w.WriteString(frame); err != nil {
		panic(err) // a strings.Builder does not fail
	}
	return b.String()
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

// namedKeys are the special keys the tests press by name, as bubbletea's
// reader reports them.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
	"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift}, "ctrl+c": {Code: 'c', Mod: tea.ModCtrl},
	"ctrl+s": {Code: 's', Mod: tea.ModCtrl}, "down": {Code: tea.KeyDown}, "up": {Code: tea.KeyUp},
	"ctrl+l": {Code: 'l', Mod: tea.ModCtrl}, "ctrl+z": {Code: 'z', Mod: tea.ModCtrl},
	"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd}, "pgup": {Code: tea.KeyPgUp},
	"pgdown": {Code: tea.KeyPgDown}, "backspace": {Code: tea.KeyBackspace},
}

// press is the key message for a named key, or for typing s: one character,
// or several read together in one message (which the console splits).
func press(s string) tea.KeyPressMsg {
	if k, ok := namedKeys[s]; ok {
		if k.String() != s {
			panic(fmt.Sprintf("namedKeys[%q] reads as %q", s, k.String()))
		}
		return k
	}
	return typed(s)
}

// typeText sends each character of s as its own key press (teatest.Type
// sends runes, which splits a Persian letter from its marks).
func typeText(tm *teatest.TestModel, s string) {
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		tm.Send(typed(g.Str()))
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
	paths := config.PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	tb.Cleanup(func() { paths.CloseLedger() })
	return (&app.Engine{Client: cl, Paths: paths, Profile: prof, Now: fixedClock}).Session(nil)
}

// writeTemplate opens the composer on the open group, types a template and
// waits until it is planned for rows recipients.
func writeTemplate(t *testing.T, tm *teatest.TestModel, text string, rows int) {
	t.Helper()
	tm.Send(press("c"))
	waitModel(t, tm, "composer with the editor focused", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, text)
	waitModel(t, tm, "planned", func(m *root) bool { return m.composer.plan != nil && len(m.composer.plan.Items) == rows })
}
