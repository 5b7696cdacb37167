package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// TestOptOutInTheContactTable: a contact on the account's opt-out list is
// marked ⊘; o asks (default No), then takes it off or puts it on, through
// the layer (audited); a viewer's o is refused; the confirmation of a send
// over the group says who is opted out and leaves them out.
func TestOptOutInTheContactTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	first := "09121234567" // group 1's first contact
	if _, err := sess.AddOptOuts(t.Context(), []string{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	// The second contact is opted out of another line only: marked ◌, and
	// a send from the profile's line goes to it.
	if _, err := sess.AddOptOuts(t.Context(), []string{"09352345678"}, "10004346", ""); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("tab")) // the contact table
	waitModel(t, tm, "marked", func(m *root) bool {
		return len(m.contacts.optOuts[first]) > 0 && strings.Contains(m.text(), "⊘ "+first) && strings.Contains(m.text(), "◌ 09352345678")
	})
	tm.Send(press("o"))
	waitFor(t, tm, "Take off the opt-out list?")
	tm.Send(press("enter")) // No
	waitModel(t, tm, "still on it", func(m *root) bool { return m.modal == nil && len(m.contacts.optOuts[first]) > 0 })
	tm.Send(press("o"))
	tm.Send(press("y"))
	waitModel(t, tm, "taken off", func(m *root) bool {
		return len(m.contacts.optOuts[first]) == 0 && strings.HasPrefix(m.note, "✓ "+first+" taken off")
	})
	tm.Send(press("o"))
	waitFor(t, tm, "Opt out?")
	tm.Send(press("y"))
	waitModel(t, tm, "put on", func(m *root) bool {
		return len(m.contacts.optOuts[first]) > 0 && strings.Contains(m.text(), "⊘ "+first)
	})
	audit, _ := config.AuditText(t.Context(), sess.Paths)
	if strings.Count(string(audit), `"action":"optout_remove"`) != 1 || strings.Count(string(audit), `"action":"optout_add"`) != 3 {
		t.Errorf("audit:\n%s", audit)
	}

	// A send over the group: the confirmation names the opted-out contact.
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "confirmation", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "Opted out:   1 opted out: not sent ("+first+")") &&
			strings.Contains(m.modal.View(), "7 recipients")
	})
	tm.Send(press("n"))
	finalView(t, tm) // the console reads the session's operator as it draws: it ends before the test changes it (the race detector saw the two meet)

	// A viewer may not change the list.
	sess.Operator = &model.Operator{Name: "vida", Role: model.RoleViewer}
	if err := sess.Allow(app.ActionOptOut); err == nil {
		t.Fatal("a viewer may change the opt-out list")
	}
}

// TestStatusBarQuietSoon: quiet hours less than an hour away are on the
// status bar.
func TestStatusBarQuietSoon(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	now := time.Now()
	if sess.Now != nil {
		now = sess.Now()
	}
	loc, _ := model.LoadTimezone("")
	from, to := now.Add(30*time.Minute).In(loc), now.Add(2*time.Hour).In(loc)
	prof := config.Profile{Sender: sandbox.DefaultSender, QuietHours: from.Format("15:04") + "-" + to.Format("15:04")}
	sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
	tm := e.startOnGroup1(t)
	waitFor(t, tm, "quiet hours at "+from.Format("15:04"))
}

// TestQuietHoursQuestion: a send inside quiet hours is refused with a
// question (default No) at this machine's terminal; yes plans it again
// through them, the confirmation says so, and the journal records it (a
// served sender is refused in the layer: ui/app's TestQuietHours).
func TestQuietHoursQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	now := time.Now()
	if sess.Now != nil {
		now = sess.Now()
	}
	window, _ := apptest.QuietAround(now)
	prof := config.Profile{Sender: sandbox.DefaultSender, QuietHours: window}
	sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
	tm := e.startOnGroup1(t)
	writeTemplate(t, tm, "Hello {name|friend}", 8)
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	waitFor(t, tm, "Send inside quiet hours?")
	tm.Send(press("y"))
	waitModel(t, tm, "the confirmation", func(m *root) bool {
		return m.modal != nil && strings.Contains(m.modal.View(), "sending through quiet hours") && strings.Contains(m.modal.View(), "on purpose (recorded)")
	})
	tm.Send(press("y"))
	var id string
	waitModel(t, tm, "sent", func(m *root) bool {
		id = m.results.jobID
		return id != "" && e.srv.RequestsTo("POST", "/sms/send-pair") > 0
	})
	waitModel(t, tm, "journaled", func(m *root) bool {
		st, err := config.ReadJournal(t.Context(), sess.Paths, id)
		return err == nil && st.Plan.IgnoreQuietHours && st.Ended
	})
}
