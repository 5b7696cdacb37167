package console

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// longPersian is a template of three UCS-2 parts: the confirmation's
// samples are longer than a small screen.
var longPersian = "سلام {name}، " + strings.Repeat("سفارش شما آماده است و فردا ارسال می\u200cشود. ", 4)

// dialogTour opens the console's dialogs one after another on a w×h
// terminal, each checked whole (its borders and its answers on the
// screen) and kept as a golden, then closed.
type dialogTour struct {
	t    *testing.T
	tm   *teatest.TestModel
	size [2]int
}

// sendIDs matches a send's id, random in its last part.
var sendIDs = regexp.MustCompile(`\b(\d{8}-\d{6})-[0-9a-f]{6}\b`)

// open presses keys and waits for the dialog titled title (a prefix),
// checks it fits with its answers (answer: a line of its keys) and keeps
// its golden as name (send ids masked; none for name "").
func (d *dialogTour) open(name, title, answer string, keys ...string) string {
	d.t.Helper()
	for _, k := range keys {
		if len(k) > 1 && namedKeys[k].Code == 0 {
			typeText(d.tm, k)
			continue
		}
		d.tm.Send(press(k))
	}
	var frame string
	waitModel(d.t, d.tm, "the dialog "+title, func(m *root) bool {
		frame = m.text()
		return m.modal != nil && strings.HasPrefix(dialogTitle(m), title)
	})
	fitsWhole(d.t, frame, d.size[0], d.size[1])
	if !strings.Contains(frame, "╚") || !strings.Contains(frame, answer) {
		d.t.Errorf("%s: the dialog's bottom border or its answers (%q) are off the screen:\n%s", name, answer, frame)
	}
	if name != "" {
		namedGolden(d.t, name, sendIDs.ReplaceAllString(frame, "$1-xxxxxx"))
	}
	return frame
}

// close presses key and waits until no dialog is open.
func (d *dialogTour) close(key string) {
	d.t.Helper()
	d.tm.Send(press(key))
	waitModel(d.t, d.tm, "the dialog closed", func(m *root) bool { return m.modal == nil })
}

// TestEveryDialogFits (issue 40 item 5): the send's confirmation was
// taller than an 80×24 and a 100×30 screen (its bottom border missing,
// "t at a time…" on the pane's edge). Every dialog of the console fits
// both: it scrolls or gives up its hint, and its answers stay on the
// screen: opt-out, delete, export, import and its preview, the send's
// confirmation, the time form, the schedule's question, cancelling a
// scheduled send, the repeat question, quitting with a draft.
func TestEveryDialogFits(t *testing.T) {
	t.Parallel()
	for _, size := range issueSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			e.opts.Session.Profile.RepeatWindow = 24 * time.Hour
			files := t.TempDir()
			e.opts.FilesDir = files
			csv := "mobile,name\n09121110001,Sara\n09121110002,Reza\nnot-a-number,Bad\n"
			if err := os.WriteFile(filepath.Join(files, "contacts.csv"), []byte(csv), 0o600); err != nil {
				t.Fatal(err)
			}
			tm := e.startOnGroup1At(t, size[0], size[1])
			d := &dialogTour{t: t, tm: tm, size: size}

			d.open("opt out", "Opt out?", "y yes", "tab", "o")
			d.close("n")
			d.open("delete contact", "Delete contact?", "y yes", "d")
			d.close("n")
			d.open("export", "Export contacts", "esc", "e")
			d.close("esc")
			d.open("import", "Import contacts into", "esc", "i")
			d.open("import preview", "Import contacts?", "y yes", "contacts.csv", "enter")
			d.close("n")

			writeTemplate(t, tm, longPersian, 8)
			frame := d.open("send confirmation", "Send these messages?", "t at a time…", "ctrl+s")
			if !strings.Contains(frame, "↕ lines") {
				t.Errorf("the confirmation fits whole: the test needs a longer one:\n%s", frame)
			}
			d.open("time form", "Send at a time", "esc", "t")
			d.open("schedule question", "Schedule these messages for", "y yes", "14:30", "enter")
			d.tm.Send(press("y"))
			waitModel(t, tm, "scheduled", func(m *root) bool { return m.modal == nil && strings.HasPrefix(m.composer.note, "scheduled for") })
			d.tm.Send(press("esc"))
			d.tm.Send(press("h"))
			waitModel(t, tm, "the history", func(m *root) bool {
				return m.screen == screenHistory && !m.history.loading && len(m.history.entries) == 1
			})
			d.open("cancel scheduled", "Cancel send", "y yes", "x")
			d.close("n")
			d.tm.Send(press("esc"))
			waitModel(t, tm, "back on the main screen", func(m *root) bool { return m.screen == screenMain })

			// A send, then the same again: the repeat question.
			writeTemplate(t, tm, "Hello {name}", 8)
			d.open("", "Send these messages?", "y yes", "ctrl+s")
			d.tm.Send(press("y"))
			waitModel(t, tm, "sent", func(m *root) bool { return m.screen == screenResults && !m.results.running() && len(e.srv.Sent()) == 8 })
			d.tm.Send(press("esc"))
			waitModel(t, tm, "back", func(m *root) bool { return m.screen != screenResults })
			d.tm.Send(press("c"))
			waitModel(t, tm, "a new message", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
			typeText(tm, "Hello {name}")
			d.open("", "Send these messages? 8 of them repeat", "type 8, then enter", "ctrl+s")
			d.close("n")
			for _, k := range []string{"m", "!", "esc", "esc"} { // a draft not sent
				d.tm.Send(press(k))
			}
			waitModel(t, tm, "back on the main screen", func(m *root) bool { return m.screen == screenMain && m.composer.unsentDraft() })
			d.open("quit with a draft", "Quit and lose the draft?", "y yes", "q")
			d.close("n")
		})
	}
}

// TestDialogsFitWhateverTheyHold: the three kinds of dialog fit the
// smallest screen the console draws at (80×23) and the issue's sizes
// whatever they hold: a confirmation with a long title, a long body,
// more pinned lines than the screen has, a count to type with its nudge
// and a third answer; a form with a long hint, a key it ignored and an
// error; a picker of 40 sender lines. Each keeps its borders and answers
// on the screen (issue 40 item 5).
func TestDialogsFitWhateverTheyHold(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a group name that goes on and on ", 6)
	body := strings.Repeat("⚠ repeat: 8 of these pairs are in send 20250301-100000-2da839, accepted at 13:30\n", 30)
	dialogs := []struct {
		name, answer string
		open         func(m *root) modal
	}{
		{"confirmation", "t at a time…", func(m *root) modal {
			d := newConfirm(m.c, "Create another group named "+long+"?", body, func() tea.Cmd { return nil })
			d.pin, d.need, d.typed, d.nudge = 40, "297", "2", true
			k := m.c.keys.SendAt
			d.other, d.onOther = &k, func() tea.Cmd { return nil }
			return d
		}},
		{"form", "esc", func(m *root) modal {
			f := pairsFileForm(m.c)
			f.title = "Open a pairs CSV for " + long
			f.hint += " " + f.hint
			f.ignored, f.err = "xyz", strings.Repeat("the file does not read: line 4 has 3 columns; ", 6)
			return f
		}},
		{"picker", "esc keeps the current line", func(m *root) modal {
			lines := make([]string, 40)
			for i := range lines {
				lines[i] = fmt.Sprintf("30005%03d", i)
			}
			return newLinePicker(m.c, lines, 39, func(int) tea.Cmd { return nil })
		}},
	}
	for _, size := range [][2]int{{80, 23}, {80, 24}, {100, 30}} {
		for _, dl := range dialogs {
			t.Run(sizeName(size)+"/"+dl.name, func(t *testing.T) {
				t.Parallel()
				m := mainScreenRoot(t, size[0], size[1])
				m.showModal(dl.open(m))
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				frame := m.text()
				fitsWhole(t, frame, size[0], size[1])
				if !strings.Contains(frame, "╚") || !strings.Contains(frame, "╔") || !strings.Contains(frame, dl.answer) {
					t.Errorf("the %s's borders or answers are off the screen:\n%s", dl.name, frame)
				}
			})
		}
	}
}
