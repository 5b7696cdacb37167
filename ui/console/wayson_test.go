package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// flat is a frame's text with its line breaks and runs of spaces as one
// space: a sentence wrapped on several lines reads whole in it.
func flat(frame string) string {
	var words []string
	for _, l := range strings.Split(frame, "\n") {
		words = append(words, strings.Fields(strings.Trim(l, "│║ "))...)
	}
	return strings.Join(words, " ")
}

// TestStatusBarNeverCutsItsWords (issue 40 item 4): a served sender's
// status bar at 80 columns showed "quiet hours until 0…": the lesser parts
// (the rate, then the host) give way whole and the rules stay whole; a
// note too long for the bar is said whole on lines of its own above it.
func TestStatusBarNeverCutsItsWords(t *testing.T) {
	t.Parallel()
	const note = "scheduled for 2025-03-01 14:30 Asia/Tehran (in 1h) as send 20250301-100000-abc123; it runs while smsdesk serve or smsdesk scheduler runs"
	for _, size := range issueSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			sess := e.opts.Session
			sess.Profile.Quiet = mustQuiet(t, "13:00-14:00") // the tests' clock: 13:30 in Tehran
			sess.Operator = &model.Operator{Name: "sara", Role: model.RoleSender}
			tm := e.startOnGroup1At(t, size[0], size[1])
			frame := waitBar(t, tm, "sara (sender)", "")
			bar := statusLine(frame)
			if !strings.Contains(bar, "quiet hours until 14:00") || strings.Contains(bar, "…") {
				t.Errorf("the status bar cuts its words:\n%s", bar)
			}
			namedGolden(t, "bar", frame)

			tm.Send(statusMsg{Text: note})
			waitModel(t, tm, "the note shown", func(m *root) bool { frame = m.text(); return m.note == note })
			if !strings.Contains(flat(frame), note) {
				t.Errorf("the note is not said whole:\n%s", frame)
			}
			if bar := statusLine(frame); !strings.Contains(bar, "quiet hours until 14:00") || strings.Contains(bar, "…") {
				t.Errorf("with a long note, the status bar cuts its words:\n%s", bar)
			}
			fitsWhole(t, frame, size[0], size[1])
			namedGolden(t, "note", frame)
		})
	}
}
