package console

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// TestCopyWithOSC52: y writes an OSC 52 sequence with what is under the
// cursor, base64-encoded (so no byte of a name or message can act on the
// terminal); inside tmux both plain (for set-clipboard on) and wrapped (for
// allow-passthrough on).
func TestCopyWithOSC52(t *testing.T) {
	for _, mux := range []string{"", "tmux"} {
		m := newBareRoot(t)
		m.c.opts.Multiplexer = mux
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.contacts.group, m.contacts.loadID = model.Group{ID: "1"}, 1
		m.Update(contactsLoadedMsg{GroupID: "1", LoadID: 1, Contacts: []model.Contact{
			{ID: "7", Name: "Ali", Mobile: "09121234567"}, {ID: "8", Name: "\x1b]0;evil\a", Mobile: "09351234567"}}})
		m.send("tab", "down")
		cmd := m.copySelected()
		if cmd == nil {
			t.Fatal("y copied nothing")
		}
		// The sequences go through the program's output, to this
		// console's terminal, in order with the frames.
		raw, ok := cmd().(tea.RawMsg)
		if !ok {
			t.Fatalf("y's command gave %T, want tea.RawMsg", cmd())
		}
		out := fmt.Sprint(raw.Msg)
		payload := base64.StdEncoding.EncodeToString([]byte("09351234567"))
		want := "\x1b]52;c;" + payload + "\a"
		if mux == "tmux" {
			// Plain for tmux's set-clipboard, then wrapped for its passthrough.
			want += "\x1bPtmux;\x1b\x1b]52;c;" + payload + "\a\x1b\\"
		}
		if out != want {
			t.Errorf("mux %q: wrote %q, want %q", mux, out, want)
		}
		if !strings.Contains(m.note, "copied number 09351234567") {
			t.Errorf("note %q", m.note)
		}
	}
}

// TestRedrawAndSuspend: ctrl+l redraws; ctrl+z suspends, except during a send.
func TestRedrawAndSuspend(t *testing.T) {
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := m.Update(press("ctrl+l"))
	if cmd == nil || cmd() != tea.ClearScreen() {
		t.Error("ctrl+l does not clear and redraw the screen")
	}
	_, cmd = m.Update(press("ctrl+z"))
	if cmd == nil || cmd() != tea.Suspend() {
		t.Error("ctrl+z does not suspend")
	}
}
