package console

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// One rule for every string drawn from data (a name, a group, a message, a
// service's or a file's words, a note that quotes them): it is cleaned
// (model.SanitizeLine), and with bidi on (the bidi setting: visual, or auto
// on a terminal that does not reorder) it is laid out in display order by
// the Unicode Bidirectional Algorithm (model.VisualLine), each paragraph in
// the direction of its first strong character. A line of text is cut in
// logical order first (the start of a Persian sentence stays), then
// reordered; a paragraph is wrapped first (UAX #9 breaks lines before it
// reorders them), then each of its lines is reordered in the paragraph's
// direction, and the lines of a right-to-left paragraph are aligned to the
// right of the block they are drawn in. Table cells, titles, notes, dialogs,
// forms, the composer's template and the viewer all draw through the three
// functions below; nothing else calls model.VisualLine (TestOneBidiRule).

// text is one line of text from data, exactly w cells: a table cell, a
// title, a note (fitText: cut, reordered, padded on the right).
func (c *common) text(s string, w int) string { return fitText(s, w, c.bidi) }

// line is one line of text from data with no width of its own (a dialog's
// title): cleaned and, with bidi on, reordered.
func (c *common) line(s string) string {
	s = displayText(model.SanitizeLine(s))
	if !c.bidi {
		return s
	}
	return model.VisualLine(s)
}

// paragraphs lays text out in lines of at most w cells: each of its lines
// is a paragraph, wrapped at spaces; its indent (leading spaces) is kept
// for every line it wraps to. With bidi on, each line is reordered in the
// direction of its paragraph (rtl decides it; nil: its first strong
// character) and a right-to-left paragraph's lines are aligned right within
// block cells (0: the widest line of text). The text is cleaned of what a
// terminal would act on but its newlines and the styles' colours
// (cleanFrame): a line that holds styled text is wrapped, not reordered.
func (c *common) paragraphs(text string, w, block int, rtl func(string) bool) []string {
	if rtl == nil {
		rtl = model.RightToLeft
	}
	type laid struct {
		s     string
		right bool // aligned right (a right-to-left paragraph, bidi on)
		inset int  // its indent, kept on the right when aligned right
	}
	var out []laid
	widest := 0
	for _, para := range strings.Split(cleanFrame(text), "\n") {
		body := strings.TrimLeft(para, " ")
		indent := len(para) - len(body)
		visual := c.bidi && !strings.Contains(body, "\x1b")
		dir := visual && rtl(body)
		for _, l := range strings.Split(ansi.Wrap(displayText(body), max(1, w-indent), " "), "\n") {
			l = strings.TrimRight(l, " ")
			if visual {
				l = model.VisualLineIn(l, dir)
			}
			out = append(out, laid{s: l, right: dir, inset: indent})
			widest = max(widest, indent+cellWidth(l))
		}
	}
	if block <= 0 {
		block = widest
	}
	lines := make([]string, len(out))
	for i, l := range out {
		pad := strings.Repeat(" ", l.inset)
		if l.right {
			lines[i] = strings.Repeat(" ", max(0, block-l.inset-cellWidth(l.s))) + l.s + pad
		} else {
			lines[i] = pad + l.s
		}
	}
	return lines
}
