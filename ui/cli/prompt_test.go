package cli

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// The masked key prompt never draws what is typed, and enter returns it whole.
func TestPrompt_SecretIsMasked(t *testing.T) {
	t.Parallel()
	ti := textinput.New()
	ti.Prompt = "API key: "
	ti.EchoMode = textinput.EchoPassword
	ti.EchoCharacter = '•'
	ti.Focus()
	var m tea.Model = promptModel{input: ti}
	for _, r := range testKey {
		m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		if v := m.View().Content; strings.Contains(v, "cli0123") || strings.Contains(v, "sk_test") {
			t.Fatalf("the prompt drew the key: %q", v)
		}
	}
	if v := m.View().Content; !strings.Contains(v, strings.Repeat("•", 10)) {
		t.Fatalf("the prompt shows no bullets: %q", v)
	}
	m, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	pm := m.(promptModel)
	if !pm.done || pm.cancelled || pm.input.Value() != testKey || cmd == nil {
		t.Fatalf("after enter: done=%v cancelled=%v value ok=%v", pm.done, pm.cancelled, pm.input.Value() == testKey)
	}
	if m.View().Content != "" {
		t.Fatal("the prompt left its line drawn after enter")
	}
	m2, _ := promptModel{input: ti}.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if !m2.(promptModel).cancelled {
		t.Fatal("ctrl+c did not cancel the prompt")
	}
}
