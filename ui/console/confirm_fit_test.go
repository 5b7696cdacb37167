package console

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestConfirmationFitsSmallScreens: at 80×23, with a three-part Persian
// text, the send confirmation keeps its summary and its buttons on screen;
// the rest (samples, "each recipient gets only its own message") scrolls
// with ↓ and pgdn. They were cut off.
func TestConfirmationFitsSmallScreens(t *testing.T) {
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 23})
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer })
	typeText(tm, "سلام {name}، "+strings.Repeat("سفارش شما آماده است و فردا ارسال می\u200cشود. ", 4))
	tm.Send(press("esc"))
	tm.Send(press("ctrl+s"))
	var frame string
	waitModel(t, tm, "confirmation", func(m *root) bool { frame = m.text(); return modalTitle(m) == "Send these messages?" })
	lines := strings.Split(frame, "\n")
	if len(lines) != 23 {
		t.Fatalf("the frame has %d lines at 80×23", len(lines))
	}
	for _, want := range []string{"8 recipients · 8 UCS-2 → 24 parts", "[ No ]", "y yes · n/esc no", "↕ lines 1-"} {
		if !strings.Contains(frame, want) {
			t.Errorf("80×23: the confirmation lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "Each recipient gets only its own message") {
		t.Errorf("the whole body fit; the test needs a taller one:\n%s", frame)
	}
	for range 3 {
		tm.Send(press("pgdown"))
	}
	waitModel(t, tm, "scrolled to the end", func(m *root) bool {
		frame = m.text()
		return strings.Contains(frame, "Each recipient gets only its own message") && strings.Contains(frame, "[ No ]") &&
			strings.Contains(frame, "8 recipients · 8 UCS-2 → 24 parts")
	})
	tm.Send(press("n"))
	waitModel(t, tm, "declined", func(m *root) bool { return m.modal == nil })
	if n := len(e.srv.Sent()); n != 0 {
		t.Errorf("%d sent after no", n)
	}
}
