package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// TestSameRulesAsTheCLI runs the rules' table (apptest.Cases, which
// ui/cli's TestSameRulesThroughTheCLI runs too) through the console: each
// send, resume, new group and new contact is refused with the reason the
// CLI gives, in the same words, then the console's own hint (its keys), and
// no send request (for a group or a contact, no request at all) reaches the
// service.
func TestSameRulesAsTheCLI(t *testing.T) {
	t.Parallel()
	for _, c := range apptest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			e := newEnv(t, c.Sandbox)
			prof := c.Profile
			prof.Sender = sandbox.DefaultSender
			sess := e.opts.Session
			if prof.QuietHours != "" && sess.Now != nil { // around the console's clock, not the wall's
				prof.QuietHours, c.Want = apptest.QuietAround(sess.Now())
			}
			sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
			switch {
			case c.RepeatProfile != "": // the same account: this client, another profile
				other := (&app.Engine{Client: e.client, Paths: sess.Paths, Now: sess.Now, Sleep: sess.Sleep,
					Profile: app.ResolveProfile(c.RepeatProfile, sess.Profile.BaseURL+"/", &prof, "test")}).Session(nil)
				sendOnce(t, other, c.Pairs)
			case c.Repeat:
				sendOnce(t, sess, c.Pairs)
			}
			if len(c.OptOut) > 0 {
				keys, err := app.OptOutNumbers(c.OptOut, "number")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := sess.AddOptOuts(t.Context(), keys, "", ""); err != nil {
					t.Fatal(err)
				}
			}
			if c.Past != nil {
				c.Past(t, sess.Paths, sess.Profile.BaseURL)
			}
			for _, g := range c.Known {
				if err := config.TrackGroup(sess.Paths, "test", g); err != nil {
					t.Fatal(err)
				}
			}
			before := e.srv.RequestsTo("POST", "/sms/send-pair")
			tm := e.startOnGroup1(t)
			all := e.srv.Requests() // a change to the service: no request at all
			var shown func(m *root) string
			if c.NewGroup != "" {
				tm.Send(press("n")) // the groups pane has the focus
				waitModel(t, tm, "new group form", func(m *root) bool { _, ok := m.modal.(*form); return ok })
				typeText(tm, c.NewGroup)
				tm.Send(press("enter"))
				shown = func(m *root) string { // the question: the CLI's words, then the console's
					if d, ok := m.modal.(*confirm); ok {
						return d.body
					}
					return ""
				}
			} else if c.NewContact != nil {
				tm.Send(press("tab"))
				tm.Send(press("n"))
				waitModel(t, tm, "new contact form", func(m *root) bool { _, ok := m.modal.(*form); return ok })
				typeText(tm, c.NewContact.Mobile)
				tm.Send(press("tab"))
				typeText(tm, c.NewContact.Name)
				tm.Send(press("enter"))
				shown = func(m *root) string { // the field's error, as it is typed
					if f, ok := m.modal.(*form); ok {
						return f.err
					}
					return ""
				}
			} else if c.Past != nil {
				tm.Send(press("h"))
				waitModel(t, tm, "history", func(m *root) bool { return m.screen == screenHistory && !m.history.loading })
				tm.Send(press("a")) // the send may be another profile's
				waitModel(t, tm, "every profile's sends", func(m *root) bool { return m.history.all && !m.history.loading && len(m.history.entries) == 1 })
				tm.Send(press("enter"))
				waitModel(t, tm, "send opened", func(m *root) bool {
					return m.history.detail != nil && m.history.detail.state != nil && !m.history.detail.loading
				})
				tm.Send(press("R"))
				shown = func(m *root) string {
					if m.history.detail == nil {
						return ""
					}
					return m.history.detail.err
				}
			} else if c.Group != "" {
				tm.Send(press("down"))
				tm.Send(press("down"))
				tm.Send(press("enter"))
				waitModel(t, tm, "group "+c.Group.String()+" open", func(m *root) bool {
					return m.contacts.group.ID == c.Group && !m.contacts.loading && len(m.contacts.rows) > 0
				})
				tm.Send(press("c"))
				waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
				typeText(tm, c.Template)
				waitModel(t, tm, "the template planned", func(m *root) bool {
					return m.composer.plan != nil && len(m.composer.plan.Items) == len(m.contacts.rows)
				})
				tm.Send(press("esc"))
				tm.Send(press("ctrl+s"))
				shown = func(m *root) string {
					if c.Row != "" && !strings.Contains(m.text(), c.Row) { // the bad row's PROBLEMS cell
						return ""
					}
					return m.composer.note
				}
			} else {
				path := filepath.Join(t.TempDir(), apptest.PairsFile)
				if err := os.WriteFile(path, []byte(c.Pairs), 0o600); err != nil {
					t.Fatal(err)
				}
				tm.Send(press("c"))
				waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer })
				tm.Send(press("esc")) // out of the template editor
				tm.Send(press("o"))
				waitModel(t, tm, "file form", func(m *root) bool { return m.modal != nil })
				typeText(tm, path)
				tm.Send(press("enter"))
				waitModel(t, tm, "pairs loaded", func(m *root) bool { return m.modal == nil && m.composer.source == sourceCSV })
				tm.Send(press("ctrl+s"))
				shown = func(m *root) string {
					if m.modal != nil { // the repeat question: the CLI's words, then the question
						return m.modal.View()
					}
					return m.composer.note
				}
			}
			var got string
			waitModel(t, tm, "refused: "+c.Want, func(m *root) bool {
				got = strings.Join(strings.Fields(shown(m)), " ")
				return strings.Contains(got, c.Want)
			})
			// Its own hint: the console's keys, never the CLI's flags.
			if !strings.Contains(got, c.ConsoleHint) || strings.Contains(got, "--allow-") {
				t.Errorf("the console says %q; want its own hint %q", got, c.ConsoleHint)
			}
			if n := e.srv.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
				t.Errorf("%d send requests reached the service", n)
			}
			if n := e.srv.Requests() - all; (c.NewGroup != "" || c.NewContact != nil) && n != 0 {
				t.Errorf("%d requests reached the service", n)
			}
		})
	}
}

// sendOnce sends a pairs file through the session, as an earlier send.
func sendOnce(t *testing.T, sess *app.Session, pairs string) {
	t.Helper()
	var rows []model.PairRow
	if err := model.ReadPairs(strings.NewReader(pairs), func(r model.PairRow) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	x := apptest.Start(t, t.Context(), sess, sess.Plan(sess.Profile.Sender, rows), app.FileSource(apptest.PairsFile), app.SendOptions{})
	if out, err := x.Finish(); err != nil || out.Summary.Counts.Accepted != len(rows) {
		t.Fatalf("the earlier send: %v, %+v", err, out.Summary.Counts)
	}
}
