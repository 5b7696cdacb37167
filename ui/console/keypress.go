package console

import (
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/rivo/uniseg"
)

// splitPresses splits keys that reached the program in one message into one
// press each, or returns nil when msg is one press. A press carrying several
// characters ("jj") matches no binding: holding j over a slow SSH link, or
// typing "/ab" faster than a frame, would lose keys. Each press is routed in
// turn, so "/" opens the filter and "ab" is typed into it (a paste is its own
// message, tea.PasteMsg, and stays whole).
//
// esc followed closely by a key reaches the program as that key with alt: a
// terminal without keyboard enhancements sends both as ESC and the key, and
// bubbletea's reader (v2 too) reads that as alt+key. No binding of the
// console uses alt, so an alt+character is esc then the character: outside a
// text field (escAlt) always, and in a field unless it is one of the fields'
// own alt keys (alt+b moves back a word). Over SSH most of all: esc then s in
// the composer typed an "s" into a paid message's template and stayed in the
// editor.
func splitPresses(msg tea.KeyPressMsg, escAlt bool) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	if msg.Mod.Contains(tea.ModAlt) && printable(msg.Code) {
		if !escAlt && msg.Mod == tea.ModAlt && fieldAltKeys[msg.Code] {
			return nil // the field's own key
		}
		out = append(out, tea.KeyPressMsg{Code: tea.KeyEscape})
		msg = withoutAlt(msg)
	}
	graphemes := uniseg.NewGraphemes(msg.Text)
	var texts []string
	for graphemes.Next() {
		texts = append(texts, graphemes.Str())
	}
	if len(texts) < 2 {
		if out == nil {
			return nil
		}
		return append(out, msg)
	}
	for _, t := range texts {
		out = append(out, typed(t))
	}
	return out
}

// printable reports whether a key code is a character that types (space and
// the named keys are not).
func printable(code rune) bool {
	return code != ' ' && code <= unicode.MaxRune && unicode.IsPrint(code)
}

// withoutAlt is an alt+key without its alt, with the text the key types.
func withoutAlt(k tea.KeyPressMsg) tea.KeyPressMsg {
	k.Mod &^= tea.ModAlt
	if k.Mod == 0 || k.Mod == tea.ModShift {
		k.Text = string(k.Code)
		if k.Mod == tea.ModShift && k.ShiftedCode != 0 {
			k.Text = string(k.ShiftedCode)
		}
	}
	return k
}

// typed is the press of one typed character (a grapheme), as bubbletea's
// reader reports it: an upper-case letter is shift and the letter.
func typed(text string) tea.KeyPressMsg {
	rs := []rune(text)
	switch {
	case len(rs) != 1:
		return tea.KeyPressMsg{Code: tea.KeyExtended, Text: text}
	case rs[0] == ' ':
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: text}
	case rs[0] < unicode.MaxASCII && unicode.IsUpper(rs[0]):
		return tea.KeyPressMsg{Code: unicode.ToLower(rs[0]), ShiftedCode: rs[0], Mod: tea.ModShift, Text: text}
	}
	return tea.KeyPressMsg{Code: rs[0], Text: text}
}

// fieldAltKeys are the alt+letter keys text fields (bubbles' textinput and
// textarea) bind: word left and right, delete word, start and end, and the
// textarea's case changes.
var fieldAltKeys = map[rune]bool{'b': true, 'f': true, 'd': true, '<': true, '>': true, 'c': true, 'l': true, 'u': true}
