package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
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
	if n := strings.Count(frame, "it runs while"); n != 1 {
		t.Errorf("the scheduled note is said %d times (the composer's and above the status bar):\n%s", n, frame)
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

// TestSendLaterFillsTheRulesAsTheyAreNow: quiet hours moved by `config
// set` after the refusal (13:00-14:00, then 13:00-15:00): t offers and
// fills in their end as they are now, 15:00, not the refusal's 14:00.
func TestSendLaterFillsTheRulesAsTheyAreNow(t *testing.T) {
	t.Parallel()
	e := insideQuiet(t, model.RoleSender)
	tm := e.startOnGroup1At(t, 80, 24)
	writeTemplate(t, tm, "Hello {name}", 8)
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the refusal", func(m *root) bool { return strings.HasPrefix(m.composer.note, "✗ quiet hours") })
	moved := e.opts.Session.Profile
	moved.Quiet = mustQuiet(t, "13:00-15:00")
	tm.Send(rulesMsg{read: app.RulesRead{Rules: moved}})
	var frame string
	waitModel(t, tm, "the rules taken", func(m *root) bool { frame = m.text(); return strings.Contains(statusLine(frame), "until 15:00") })
	if !strings.Contains(frame, "t send later (15:00 filled in)") {
		t.Errorf("the footer offers the refusal's end, not the end as the rules hold it now:\n%s", frame)
	}
	tm.Send(press("t"))
	waitModel(t, tm, "the time form", func(m *root) bool {
		f, ok := m.modal.(*form)
		frame = m.text()
		return ok && f.fields[0].input.Value() != ""
	})
	if !strings.Contains(frame, "2025-03-01 15:00") {
		t.Errorf("t fills in the refusal's end:\n%s", frame)
	}
}
