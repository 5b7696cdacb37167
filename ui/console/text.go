package console

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// fit makes s one clean line of exactly w display cells: it removes what a
// terminal would act on (escape sequences, control characters, bidi
// overrides: model.SanitizeLine), truncates with an ellipsis and pads with
// spaces. Every table cell and line of text goes through it, so what the
// service or a file says is cleaned where it meets the screen, not by each
// caller. Widths are display cells, so Persian and wide characters keep
// borders aligned; SMS units are never computed from this (they come from
// model.Parts on the untouched text). A string already styled (a
// component's View) takes fitView instead: fit would remove its styling.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return fitView(model.SanitizeLine(s), w)
}

// fitView is fit for a line already rendered by a style or a component:
// its SGR sequences are kept and take no cells. It does not clean: the text
// inside was fitted (cleaned) where it was rendered, and the frame as a whole
// passes through cleanFrame.
func fitView(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = displayText(s)
	sw := cellWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = cellWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitRight is fit with the text aligned to the right.
func fitRight(s string, w int) string {
	s = displayText(model.SanitizeLine(s))
	sw := cellWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// cellWidth is the one width function behind all cell padding: the number of
// terminal cells s occupies (escape sequences take none, combining marks none,
// East Asian wide characters and emoji two). Apply it to displayText output.
func cellWidth(s string) int {
	// Printable ASCII, styled or not, is a cell a byte (most rows and
	// labels): counted without segmenting graphemes, which costs more than
	// the rest of a frame.
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= ' ' && c <= '~':
			n++
		case c == '\x1b' && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j // the final byte of the CSI sequence
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// displayText makes a display string measure the same in every terminal:
// the one width function (cellWidth, grapheme clusters, as bubbletea's
// renderer and lipgloss measure) and terminals that count code points
// (wcwidth: tmux, xterm, VTE, PuTTY) agree on what it leaves. It removes the
// characters they disagree on: ZWJ (a ZWJ emoji sequence is one glyph of two
// cells in some terminals and several in others), emoji skin-tone modifiers
// (👍🏽 is two cells or four), variation selectors (❤️ is one cell or two), and
// the invisible bidi marks, word joiner and BOM. It keeps ZWNJ (U+200C, the
// Persian half-space): it takes no cell in either count and changes how the
// letters around it join, so the operator proofreads the text that is sent.
// Display strings only: SMS text is never passed through it, and its units
// come from model.Parts.
func displayText(s string) string {
	if strings.IndexFunc(s, isInvisibleFormat) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isInvisibleFormat(r) {
			return -1
		}
		return r
	}, s)
}

// isInvisibleFormat reports whether r is removed for display (see displayText).
func isInvisibleFormat(r rune) bool {
	switch {
	case r == 0x200c: // ZWNJ stays
		return false
	case r == 0x061c, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2060 && r <= 0x2064:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r >= 0x1f3fb && r <= 0x1f3ff: // emoji modifiers (skin tones)
		return true
	}
	return false
}

// fitText is fit for text that may hold right-to-left script: with visual
// true it is cut to w cells in logical order (so the start of a Persian
// sentence is what stays), then reordered for display (model.VisualLine),
// then padded, so the padding stays on the right of the cell.
func fitText(s string, w int, visual bool) string {
	if !visual || w <= 0 {
		return fit(s, w)
	}
	s = displayText(model.SanitizeLine(s))
	if cellWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return fitView(model.VisualLine(s), w)
}

// block fits every line of s (rendered lines, see fitView) to w cells and
// pads or cuts it to exactly h lines.
func block(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = fitView(l, w)
	}
	return strings.Join(lines, "\n")
}

// thousands is model.Thousands for an int: 100000 → "100,000".
func thousands(n int) string { return model.Thousands(int64(n)) }

// cleanFrame is the last guard between the console and the terminal: it
// keeps the SGR sequences (colour and attributes) the styles wrote and
// removes every other escape sequence, control character and bidi override
// (model.Sanitize, newlines kept) from the frame. Text from the service or a
// file is cleaned before this, where it is fitted (fit) or put in a dialog
// (newConfirm, newForm, openViewer); this catches what a new view forgets.
func cleanFrame(s string) string {
	var b strings.Builder
	start, changed := 0, false
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		n := sgrLen(s, i)
		if n == 0 {
			continue
		}
		seg := s[start:i]
		clean := model.Sanitize(seg)
		if !changed && clean != seg {
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:start])
		}
		if changed {
			b.WriteString(clean)
			b.WriteString(s[i : i+n])
		}
		i += n - 1
		start = i + 1
	}
	seg := s[start:]
	clean := model.Sanitize(seg)
	if !changed {
		if clean == seg {
			return s
		}
		b.WriteString(s[:start])
	}
	b.WriteString(clean)
	return b.String()
}

// sgrLen is the length of the SGR sequence (ESC [ digits, ; and : then m)
// at s[i], or 0 when there is none.
func sgrLen(s string, i int) int {
	if i+2 >= len(s) || s[i+1] != '[' {
		return 0
	}
	for j := i + 2; j < len(s); j++ {
		switch c := s[j]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return j - i + 1
		default:
			return 0
		}
	}
	return 0
}
