package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// setRules is `smsdesk config set quiet_hours …` (and optout_suffix) on
// the host while the console runs: the env's profile "test" in its config
// file, with the env's sender lines.
func (e *env) setRules(t *testing.T, quiet, suffix string) {
	t.Helper()
	_, err := config.Update(e.opts.Session.Paths, func(c *config.Config) error {
		return c.SetProfile(&config.Profile{Name: "test", Sender: "3000505", Senders: []string{"3000505", "10004346"}, QuietHours: quiet, OptOutSuffix: suffix})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readingRules is an env whose session reads its profile's rules from the
// config file (as smsdesk serve's do: app.ProfileSettings), opened on
// rules read long before (opened): quiet hours 13:40-15:00 in Tehran, ten
// minutes after the tests' clock (13:30 there).
func readingRules(t *testing.T, fileQuiet string) *env {
	t.Helper()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	e.setRules(t, fileQuiet, "")
	opened := sess.Profile
	opened.Quiet = mustQuiet(t, "13:40-15:00")
	sess.Profile = opened
	sess.Settings = app.ProfileSettings(sess.Paths, "test")
	return e
}

// statusLine is the frame's status bar.
func statusLine(frame string) string {
	lines := strings.Split(frame, "\n")
	return lines[len(lines)-2]
}

// waitBar waits until the status bar holds want (and not gone, if set).
func waitBar(t *testing.T, tm *teatest.TestModel, want, gone string) string {
	t.Helper()
	var frame string
	waitModel(t, tm, "the status bar says "+want, func(m *root) bool {
		frame = m.text()
		bar := statusLine(frame)
		return strings.Contains(bar, want) && (gone == "" || !strings.Contains(bar, gone))
	})
	return frame
}

// TestConsoleReadsTheRulesAsTheyAreNow (issue 40 item 3): a console opened
// on rules read long ago (smsdesk serve's start) shows and checks the
// rules as the config file holds them: at its start (the status bar said
// "quiet hours at 13:40" from serve's start, where the file has none), in
// its time form ("+20m" was refused against the old hours), and after
// `config set quiet_hours` while it runs (the bar kept the old hours; the
// send itself followed the new ones). With the rules read at the session's
// start only, each of these fails.
func TestConsoleReadsTheRulesAsTheyAreNow(t *testing.T) {
	t.Parallel()
	for _, size := range issueSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := readingRules(t, "")
			tm := e.startOnGroup1At(t, size[0], size[1])
			var frame string
			waitModel(t, tm, "the rules read", func(m *root) bool { frame = m.text(); return !m.c.rules.Quiet.On })
			if bar := statusLine(frame); strings.Contains(bar, "quiet") {
				t.Errorf("a new session shows the quiet hours it opened with, not the file's (none):\n%s", bar)
			}

			// The time form reads "+20m" (13:50) under the file's rules.
			writeTemplate(t, tm, "Hello {name}", 8)
			tm.Send(press("ctrl+s"))
			waitModel(t, tm, "the confirmation", func(m *root) bool { return modalTitle(m) == "Send these messages?" })
			tm.Send(press("t"))
			waitModel(t, tm, "the time form", func(m *root) bool { return dialogTitle(m) == "Send at a time" })
			typeText(tm, "+20m")
			tm.Send(press("enter"))
			waitModel(t, tm, "the schedule's question", func(m *root) bool {
				frame = m.text()
				return strings.HasPrefix(modalTitle(m), "Schedule these messages for") || strings.Contains(frame, "✗")
			})
			if !strings.Contains(frame, "Schedule these messages for 2025-03-01 13:50") {
				t.Fatalf("+20m is refused against the rules the session opened with:\n%s", frame)
			}
			tm.Send(press("n"))
			waitModel(t, tm, "declined", func(m *root) bool { return m.modal == nil })

			// config set quiet_hours on the host: the bar follows.
			e.setRules(t, "13:00-15:30", "")
			frame = waitBar(t, tm, "quiet hours until 15:30", "")
			fitsWhole(t, frame, size[0], size[1])
			namedGolden(t, "after config set", frame)
		})
	}
}
