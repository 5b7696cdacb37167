package console

import (
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestDraftKept: leaving the composer keeps the draft (c opens it again);
// composing over another group asks before replacing it (default No opens
// the draft again).
func TestDraftKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer })
	typeText(tm, "Hello {name|friend}")
	tm.Send(press("esc")) // leave the editor
	tm.Send(press("esc")) // leave the composer
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("c"))
	waitModel(t, tm, "the draft again", func(m *root) bool {
		return m.screen == screenComposer && m.composer.editor.Value() == "Hello {name|friend}" && m.composer.group.ID == "1"
	})
	tm.Send(press("esc"))
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("down")) // group 2
	tm.Send(press("c"))
	waitModel(t, tm, "asked before replacing", func(m *root) bool { return modalTitle(m) == "Replace the draft?" })
	tm.Send(press("n"))
	waitModel(t, tm, "the draft kept", func(m *root) bool {
		return m.modal == nil && m.screen == screenComposer && m.composer.editor.Value() == "Hello {name|friend}" && m.composer.group.ID == "1"
	})
	tm.Send(press("esc"))
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("c"))
	waitModel(t, tm, "asked again", func(m *root) bool { return modalTitle(m) == "Replace the draft?" })
	tm.Send(press("y"))
	waitModel(t, tm, "a new message over group 2", func(m *root) bool {
		return m.modal == nil && m.screen == screenComposer && m.composer.editor.Value() == "" && m.composer.group.ID == "2"
	})
}
