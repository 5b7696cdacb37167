package console

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// The words that say what happened and what to do next are never cut
// (issue 40 item 4): a note too long for its line is wrapped to a few
// lines, at spaces (a date such as 2026-11-29 or a send id is not broken
// at its hyphens), and a line of parts drops its lesser parts whole.

// wrapWords wraps one line of text (cleaned: model.SanitizeLine, then
// displayText) to lines of at most w cells, breaking at spaces; a word
// longer than w is broken where it must be. Past most lines, the last
// line ends with "…" (0: no bound). Lines are not padded; with visual,
// each is reordered for display (model.VisualLineIn, in the direction of
// the text's first strong character) after wrapping, as UAX #9 breaks
// lines first.
func wrapWords(s string, w, most int, visual bool) []string {
	s = displayText(model.SanitizeLine(s))
	if w <= 0 {
		return nil
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for cellWidth(word) > w { // a word wider than the line: cut where it must be
			if line != "" {
				lines, line = append(lines, line), ""
			}
			head := ansi.Truncate(word, w, "")
			if head == "" { // one character wider than the line
				_, n := utf8.DecodeRuneInString(word)
				head = word[:n]
			}
			lines = append(lines, head)
			word = word[len(head):]
		}
		switch {
		case word == "":
		case line == "":
			line = word
		case cellWidth(line)+1+cellWidth(word) <= w:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	if most > 0 && len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1]+" …", w, "…")
	}
	if visual { // the one bidi rule (bidi.go): each line in the paragraph's direction
		rtl := model.RightToLeft(s)
		for i, l := range lines {
			lines[i] = model.VisualLineIn(l, rtl)
		}
	}
	return lines
}

// packParts puts parts on lines of at most w cells, as many on each as
// fit, joined by sep; a part is never split between lines (one wider than
// w is cut, on a line of its own).
func packParts(parts []string, sep string, w int) []string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case cellWidth(line)+cellWidth(sep)+cellWidth(p) <= w:
			line += sep + p
		default:
			lines, line = append(lines, line), p
		}
	}
	return append(lines, line)
}
