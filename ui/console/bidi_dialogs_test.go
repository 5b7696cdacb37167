package console

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// persianWords are the Persian words of the seed's first group, its first
// contacts and the template the walk types: on a frame drawn with bidi =
// visual none may show in stored (logical) order, each must show reversed.
var persianWords = []string{"علی", "رضایی", "مشتریان", "تهران", "عزیز", "شما"}

// checkDisplayOrder fails when a Persian word of persianWords shows on frame
// in stored order, or one of want does not show in display order.
func checkDisplayOrder(t *testing.T, what, frame string, want ...string) {
	t.Helper()
	for _, w := range persianWords {
		if strings.Contains(frame, w) {
			t.Errorf("%s: %q is drawn in stored order (bidi = visual):\n%s", what, w, frame)
		}
	}
	for _, w := range want {
		if v := model.VisualLine(w); !strings.Contains(frame, v) {
			t.Errorf("%s: %q is not drawn in display order (%q):\n%s", what, w, v, frame)
		}
	}
}

// TestEveryDialogDrawsPersianInDisplayOrder walks the dialogs, the composer
// and the history with Persian data and bidi = visual: the opt-out and
// delete questions, a template starting with {name} once the editor is
// left, the send confirmation's samples, the quit question with a draft,
// the cancel question of a scheduled send and the history detail's header
// each draw the Persian in display order, by the one rule the tables use
// (bidi.go); a right-to-left paragraph (the template, a sample) is aligned
// to the right.
func TestEveryDialogDrawsPersianInDisplayOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	e.opts.BidiVisual = true
	s := e.opts.Session
	// A send scheduled over the group, for the cancel question and the detail.
	p, err := s.PrepareSend(t.Context(), app.SendRequest{Plan: s.Plan("3000505", []model.PairRow{{Line: 2, Recipient: "09121234567", Message: "سلام علی"}}),
		Source: app.GroupSource("1", "مشتریان تهران"), At: fixedNow.Add(2 * time.Hour)})
	if err != nil || p.Refusal != nil {
		t.Fatal(err, p.Refusal)
	}
	sc, err := p.Schedule(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	frame := func(what string, cond func(m *root) bool) string {
		var f string
		waitModel(t, tm, what, func(m *root) bool { f = m.text(); return cond(m) })
		return f
	}
	modal := func(title string) func(m *root) bool {
		return func(m *root) bool { c, ok := m.modal.(*confirm); return ok && strings.HasPrefix(c.title, title) }
	}
	closed := func(m *root) bool { return m.modal == nil }

	tm.Send(press("tab"))
	tm.Send(press("o"))
	f := frame("the opt-out question", modal("Opt out?"))
	checkDisplayOrder(t, "opt out", f, "علی رضایی")
	namedGolden(t, "optout", f)
	tm.Send(press("n"))
	frame("closed", closed)

	tm.Send(press("d"))
	f = frame("the delete question", modal("Delete contact?"))
	checkDisplayOrder(t, "delete", f, "علی رضایی")
	namedGolden(t, "delete", f)
	tm.Send(press("n"))
	frame("closed", closed)

	template := "{name} عزیز، کد شما 48213 است"
	writeTemplate(t, tm, template, 8)
	tm.Send(press("esc"))
	f = frame("the template left", func(m *root) bool { return !m.composer.editor.Focused() && m.composer.plan != nil })
	checkDisplayOrder(t, "template", f, "کد شما 48213 است", "علی رضایی")
	// Right to left from its first strong character past {name}: the
	// placeholder at the line's right end, the line at the editor's right.
	if line := regexp.MustCompile(`┃ +(.*)│`).FindStringSubmatch(f); line == nil || !strings.HasSuffix(strings.TrimRight(line[1], " "), "{name}") ||
		len(line[0])-len(strings.TrimLeft(line[0][len("┃"):], " ")) < 40 {
		t.Errorf("the template is not laid out right to left, aligned right:\n%s", f)
	}
	namedGolden(t, "template", f)

	tm.Send(press("ctrl+s"))
	f = frame("the send confirmation", modal("Send these messages?"))
	checkDisplayOrder(t, "confirmation", f, "مشتریان تهران", "علی رضایی عزیز، کد شما 48213 است")
	sample := model.VisualLine("علی رضایی عزیز، کد شما 48213 است")
	for _, l := range strings.Split(f, "\n") {
		if i := strings.Index(l, sample); i >= 0 && !regexp.MustCompile(`║ {10,}`+regexp.QuoteMeta(sample)).MatchString(l) {
			t.Errorf("a sample is not aligned right: %q", l)
		}
	}
	namedGolden(t, "confirm", f)
	tm.Send(press("n"))
	frame("closed", closed)

	tm.Send(press("esc"))
	frame("main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("q"))
	f = frame("the quit question", modal("Quit and lose the draft?"))
	checkDisplayOrder(t, "quit", f, "مشتریان تهران")
	namedGolden(t, "quit", f)
	tm.Send(press("n"))
	frame("closed", closed)

	tm.Send(press("h"))
	frame("history", func(m *root) bool { return m.screen == screenHistory && len(m.history.entries) == 1 })
	tm.Send(press("x"))
	f = frame("the cancel question", modal("Cancel send "+sc.ID))
	checkDisplayOrder(t, "cancel", f, "مشتریان تهران")
	namedGolden(t, "cancel", jobID.ReplaceAllString(f, "${1}XXXXXX"))
	tm.Send(press("n"))
	frame("closed", closed)

	tm.Send(press("enter"))
	f = frame("the detail", func(m *root) bool { return m.history.detail.state != nil })
	checkDisplayOrder(t, "detail", f, "مشتریان تهران")
	namedGolden(t, "detail", jobID.ReplaceAllString(f, "${1}XXXXXX"))
	finalView(t, tm)
}

// TestOneBidiRule: nothing draws right-to-left text but the one rule:
// model.VisualLine and VisualLineIn are called from bidi.go, fitText (the
// rule's line) and wrapWords (its notes) only.
func TestOneBidiRule(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"bidi.go": true, "text.go": true, "wrap.go": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || allowed[f] {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`model\.VisualLine`).Match(src) {
			t.Errorf("%s reorders right-to-left text itself: draw it through common.text, line or paragraphs (bidi.go)", f)
		}
	}
}

// TestStatusBarNoteInDisplayOrder: a note that quotes a Persian name is
// drawn in display order on the status bar (where it fits) and above it
// (wrapped), by the same rule.
func TestStatusBarNoteInDisplayOrder(t *testing.T) {
	m := newBareRoot(t)
	m.c.bidi = true
	for _, note := range []string{
		"loading مشتریان تهران to compose over it…",
		"loading مشتریان تهران to compose over it, and then the composer opens over every contact of the group once the last page has come…",
	} {
		m.Update(statusMsg{Text: note})
		f := m.text()
		checkDisplayOrder(t, "status bar", f, "مشتریان تهران")
	}
}
