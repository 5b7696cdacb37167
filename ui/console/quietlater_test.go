package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// insideQuiet is an env at 13:30 in Tehran (the tests' clock) inside
// quiet hours 13:00-14:00, its console served to an operator of role
// (sara).
func insideQuiet(t *testing.T, role model.Role) *env {
	t.Helper()
	e := newEnv(t, sandbox.Options{})
	e.opts.Session.Profile.Quiet = mustQuiet(t, "13:00-14:00")
	e.opts.Session.Operator = &model.Operator{Name: "sara", Role: role}
	return e
}

// scheduleFromTheForm submits the time form as filled in, says yes to the
// schedule's question and returns the frame with the composer's note.
func scheduleFromTheForm(t *testing.T, tm *teatest.TestModel, e *env, size [2]int) {
	t.Helper()
	var frame string
	waitModel(t, tm, "the time form, filled in", func(m *root) bool {
		f, ok := m.modal.(*form)
		frame = m.text()
		return ok && f.title == "Send at a time" && f.fields[0].input.Value() == "2025-03-01 14:00"
	})
	fitsWhole(t, frame, size[0], size[1])
	namedGolden(t, "time form", frame)
	tm.Send(press("enter"))
	waitModel(t, tm, "the schedule's question", func(m *root) bool {
		frame = m.text()
		return strings.HasPrefix(modalTitle(m), "Schedule these messages for 2025-03-01 14:00")
	})
	fitsWhole(t, frame, size[0], size[1])
	tm.Send(press("y"))
	waitModel(t, tm, "scheduled", func(m *root) bool { frame = m.text(); return strings.HasPrefix(m.composer.note, "scheduled for") })
	if !strings.Contains(flat(frame), "scheduled for 2025-03-01 14:00 Asia/Tehran (in 30m) as send ") ||
		!strings.Contains(flat(frame), "; it runs while smsdesk serve or smsdesk scheduler runs") {
		t.Errorf("the scheduled note is not said whole:\n%s", frame)
	}
	fitsWhole(t, frame, size[0], size[1])
	if n := len(e.srv.Sent()); n != 0 {
		t.Errorf("%d sent inside quiet hours", n)
	}
}

// TestQuietHoursOffersSendLater (issue 40 item 2): inside quiet hours a
// sender's ctrl+s said "✗ quiet hours …; nothing was sent → ctrl+s again
// from then; sending through them needs the admin role" with no t, and an
// admin's "Send inside quiet hours?" had none either. Both offer t, the
// time form with the end of quiet hours filled in, and the send is
// scheduled for then; each sentence is said whole (item 4: the refusal
// was cut at "nothing wa…" at 80 columns, the scheduled note at "as send
// 2026…; it runs wh…").
func TestQuietHoursOffersSendLater(t *testing.T) {
	t.Parallel()
	for _, size := range issueSizes {
		t.Run("sender/"+sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := insideQuiet(t, model.RoleSender)
			tm := e.startOnGroup1At(t, size[0], size[1])
			writeTemplate(t, tm, "Hello {name}", 8)
			tm.Send(press("ctrl+s"))
			var frame string
			waitModel(t, tm, "the refusal", func(m *root) bool { frame = m.text(); return strings.HasPrefix(m.composer.note, "✗ quiet hours") })
			const said = "✗ quiet hours 13:00–14:00 Asia/Tehran; sending may start at 14:00; nothing was sent → t sends it later (14:00 filled in), or ctrl+s again from then; sending through them needs the admin role"
			if !strings.Contains(flat(frame), said) {
				t.Errorf("the refusal is not said whole:\n%s", frame)
			}
			if !strings.Contains(frame, "t send later (14:00 filled in)") {
				t.Errorf("the footer does not offer t:\n%s", frame)
			}
			fitsWhole(t, frame, size[0], size[1])
			namedGolden(t, "refused", frame)
			tm.Send(press("t"))
			scheduleFromTheForm(t, tm, e, size)
		})
		t.Run("admin/"+sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := insideQuiet(t, model.RoleAdmin)
			tm := e.startOnGroup1At(t, size[0], size[1])
			writeTemplate(t, tm, "Hello {name}", 8)
			tm.Send(press("ctrl+s"))
			var frame string
			waitModel(t, tm, "the question", func(m *root) bool { frame = m.text(); return modalTitle(m) == "Send inside quiet hours?" })
			if !strings.Contains(frame, "t send later (14:00 filled in)") {
				t.Errorf("the question does not offer t:\n%s", frame)
			}
			fitsWhole(t, frame, size[0], size[1])
			namedGolden(t, "question", frame)
			tm.Send(press("t"))
			scheduleFromTheForm(t, tm, e, size)
		})
	}
}
