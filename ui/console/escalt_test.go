package console

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// altKey is esc and the key arriving together, as a terminal over SSH
// sends them and bubbletea (v2 too) reads them: alt+key, with no text.
func altKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModAlt} }

// TestEscThenKeyInAField: esc then a key arriving together are two keys in
// a text field too: the field is left and the key acts, nothing is typed;
// the fields' own alt keys (alt+b, word back) keep working.
func TestEscThenKeyInAField(t *testing.T) {
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.send("c")
	if m.screen != screenComposer || !m.composer.Editing() {
		t.Fatalf("the composer's editor should have focus (screen %v)", m.screen)
	}
	m.send("H", "i")
	m.Update(altKey('b')) // word back: the field's own key
	if !m.composer.Editing() || m.composer.editor.Value() != "Hi" {
		t.Fatalf("alt+b left the field or typed: %q", m.composer.editor.Value())
	}
	m.Update(altKey('s')) // esc then s
	if m.composer.Editing() || m.composer.editor.Value() != "Hi" {
		t.Errorf("esc then s: editing %v, template %q; want the field left and nothing typed", m.composer.Editing(), m.composer.editor.Value())
	}
}
