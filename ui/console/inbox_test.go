package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// fileReplies files inbound messages as the webhook receiver does: from,
// text, a minute apart from at, to line 3000505 of the env's account.
func fileReplies(t *testing.T, e *env, at time.Time, msgs ...[2]string) {
	t.Helper()
	l, err := e.opts.Session.Paths.Ledger(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var events []ledger.Event
	for i, m := range msgs {
		when := at.Add(time.Duration(i) * time.Minute)
		events = append(events, ledger.Event{Account: e.client.AccountID(), Profile: "test", MessageID: fmt.Sprintf("in-%d-%d", at.Unix(), i),
			Kind: ledger.EventInbound, ReceivedAt: when, OccurredAt: when, Body: []byte(`{}`),
			Inbound: &ledger.Inbound{Sender: m[0], Line: "3000505", Message: m[1]}})
	}
	if _, err := l.RecordEvents(t.Context(), events); err != nil {
		t.Fatal(err)
	}
}

// TestInboxPane: I lists what recipients wrote, newest first (when, who,
// line, what it did, the send it answers, the text sanitised and laid out
// as the rest of the console), at 80×24 and 100×30 with its keys whole;
// a reply filed while it is open shows without a key.
func TestInboxPane(t *testing.T) {
	t.Parallel()
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			fileReplies(t, e, fixedNow.Add(-time.Hour),
				[2]string{"09121110001", "سلام، پیام شما رسید. ممنون"},
				[2]string{"09121110002", "لغو ۱۱"},
				[2]string{"09121110003", "ok \x1b[31mred\x1b[0m \x07thanks"})
			tm := e.startOnGroup1(t)
			tm.Send(press("I"))
			var frame string
			waitModel(t, tm, "the inbox listed", func(m *root) bool {
				frame = m.text()
				return m.screen == screenInbox && !m.inbox.loading && len(m.inbox.rows) == 3 && m.c.width == 100
			})
			tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			waitModel(t, tm, "drawn at size", func(m *root) bool {
				frame = m.text()
				return m.c.width == size[0] && m.c.height == size[1]
			})
			for _, want := range []string{"Inbox (3)", "09121110003", "opted out", "R reply", "esc back"} {
				if !strings.Contains(frame, want) {
					t.Errorf("the inbox lacks %q:\n%s", want, frame)
				}
			}
			if strings.Contains(frame, "\x1b[31m") || strings.Contains(frame, "\x07") {
				t.Errorf("a sender's escape reached the screen:\n%q", frame)
			}
			if i, j := strings.Index(frame, "09121110003"), strings.Index(frame, "09121110001"); i < 0 || j < 0 || i > j {
				t.Errorf("not newest first:\n%s", frame)
			}
			requireGolden(t, frame)

			fileReplies(t, e, fixedNow, [2]string{"09121110004", "a new one"})
			waitFor(t, tm, "09121110004", "Inbox (4)")
		})
	}
}

// TestInboxReply: R on a message opens the composer on a reply of one
// (recipient the sender, line the line it wrote to), its message typed in
// the row's form; ctrl+s asks as every send does and y sends it, from that
// line, to that number alone. A reply to a number that opted out of the
// line is refused, with why, and nothing is sent.
func TestInboxReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	e.opts.Session.Profile.Sender = e.srv.Senders()[0]
	fileReplies(t, e, fixedNow.Add(-time.Hour),
		[2]string{"09121110002", "لغو ۱۱"},
		[2]string{"09121110001", "when is the next class?"})
	tm := e.startOnGroup1(t)
	tm.Send(press("c")) // the composer once over the group, left empty
	waitModel(t, tm, "composer with the editor focused", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	tm.Send(press("esc"))
	tm.Send(press("esc"))
	waitModel(t, tm, "back on the main screen", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("I"))
	waitModel(t, tm, "the inbox listed", func(m *root) bool { return m.screen == screenInbox && len(m.inbox.rows) == 2 })

	tm.Send(press("R")) // the newest: 09121110001
	waitModel(t, tm, "the reply's form", func(m *root) bool {
		f, ok := m.modal.(*form)
		return ok && strings.HasPrefix(f.title, "Reply to 09121110001") && f.focus == 1 && m.screen == screenComposer
	})
	typeText(tm, "Monday at 10")
	tm.Send(press("enter"))
	waitModel(t, tm, "one row planned", func(m *root) bool {
		return m.modal == nil && len(m.composer.rows) == 1 && m.composer.rows[0].Message == "Monday at 10" && !m.composer.looking &&
			m.composer.plan != nil && m.composer.plan.Sender == "3000505"
	})
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation", func(m *root) bool { return modalTitle(m) == "Send these messages?" })
	tm.Send(press("y"))
	waitModel(t, tm, "sent", func(m *root) bool { return len(e.srv.Sent()) == 1 && m.screen == screenResults })
	if s := e.srv.Sent()[0]; s.Recipient != "09121110001" || s.Sender != "3000505" || !strings.HasPrefix(s.Message, "Monday at 10") {
		t.Errorf("the reply went as %+v", s)
	}

	tm.Send(press("I"))
	waitModel(t, tm, "the inbox again", func(m *root) bool { return m.screen == screenInbox && len(m.inbox.rows) == 2 && !m.inbox.loading })
	tm.Send(press("down")) // 09121110002, who opted out by that message
	tm.Send(press("R"))
	waitModel(t, tm, "the reply's form", func(m *root) bool {
		f, ok := m.modal.(*form)
		return ok && strings.HasPrefix(f.title, "Reply to 09121110002")
	})
	typeText(tm, "sorry to see you go")
	tm.Send(press("enter"))
	waitModel(t, tm, "its row looked up", func(m *root) bool {
		return m.modal == nil && len(m.composer.rows) == 1 && m.composer.rows[0].Message == "sorry to see you go" && !m.composer.looking
	})
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "refused, with why", func(m *root) bool {
		return m.modal == nil && strings.Contains(m.composer.note, "on the opt-out list") && strings.Contains(m.composer.note, "nothing was sent")
	})
	// c over the group asks before the group's template takes the reply's
	// place (it kept the reply as "the draft over that group" and opened it)
	tm.Send(press("c"))
	waitModel(t, tm, "asked to replace the reply", func(m *root) bool { return modalTitle(m) == "Replace the draft?" })
	if n := len(e.srv.Sent()); n != 1 {
		t.Errorf("the sandbox got %d messages, want the first reply alone", n)
	}
	if st := e.srv.Sent(); len(st) > 0 && model.SanitizeLine(st[len(st)-1].Recipient) == "09121110002" {
		t.Error("the number that opted out got a message")
	}
}
