package console

import (
	"strings"
	"testing"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/width"

	"github.com/smsdesk/smsdesk/model"
)

// termWidth models a wcwidth terminal (tmux, xterm, VTE) independently of the
// console's own width function: combining marks and format characters take no
// cell, East Asian wide and fullwidth characters (emoji included) take two,
// everything else one.
func termWidth(s string) int {
	n := 0
	for _, r := range ansi.Strip(s) {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0xfe00 && r <= 0xfe0f:
		case width.LookupRune(r).Kind() == width.EastAsianWide, width.LookupRune(r).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// columnOf is the display column at which sub starts in line, or -1.
func columnOf(line, sub string) int {
	line = ansi.Strip(line)
	i := strings.Index(line, sub)
	if i < 0 {
		return -1
	}
	return termWidth(line[:i])
}

// trickyNames are display strings whose width terminals and naive counters
// disagree on.
var trickyNames = []struct{ name, text string }{
	{"persian zwnj", "نیلوفر خوش\u200cنویس"},
	{"persian harakat", "سَلام عَلی"},
	{"rlm and lrm", "Ali\u200f \u200eرضا"},
	{"zwj emoji family", "Family 👨\u200d👩\u200d👧"},
	{"emoji variation selector", "Love ❤️ you"},
	{"emoji", "Thumbs 👍👍"},
	{"combining acute", "Rene\u0301 Cafe\u0301"},
	{"east asian wide", "中文名字"},
	{"bom and word joiner", "\ufeffBOM\u2060name"},
}

func TestFitMatchesTerminalWidth(t *testing.T) {
	for _, tc := range trickyNames {
		for _, w := range []int{3, 8, 20, 40} {
			got := fit(tc.text, w)
			if tw := termWidth(got); tw != w {
				t.Errorf("%s: fit(%q, %d) = %q takes %d terminal cells", tc.name, tc.text, w, got, tw)
			}
			if cw := cellWidth(got); cw != w {
				t.Errorf("%s: fit(%q, %d) measures %d cells by cellWidth", tc.name, tc.text, w, cw)
			}
			if r := fitRight(tc.text, w); termWidth(r) != w {
				t.Errorf("%s: fitRight(%q, %d) = %q takes %d terminal cells", tc.name, tc.text, w, r, termWidth(r))
			}
		}
	}
}

func TestContactTableColumnsAlign(t *testing.T) {
	m := newRoot(t.Context(), Options{Now: fixedClock})
	m.screen = screenMain
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	var cs []model.Contact
	for i, tc := range trickyNames {
		cs = append(cs, model.Contact{ID: model.ID(string(rune('a' + i))), Name: tc.text,
			Mobile: "0912000000" + string(rune('0'+i))})
	}
	m.contacts.group, m.contacts.loadID = model.Group{ID: "1", Name: "گروه\u200cها"}, 1
	m.Update(contactsLoadedMsg{GroupID: "1", LoadID: 1, Contacts: cs})
	// The stored contact keeps its ZWNJ: only the display strips it.
	if !strings.Contains(m.contacts.allContacts()[0].Name, "\u200c") {
		t.Fatal("the contact's name lost its ZWNJ")
	}
	lines := strings.Split(m.View(), "\n")
	if len(lines) != 30 {
		t.Fatalf("frame has %d lines, want 30", len(lines))
	}
	header := -1
	for i, l := range lines {
		if tw := termWidth(l); tw != 100 {
			t.Errorf("line %d takes %d terminal cells, want 100: %q", i, tw, l)
		}
		if header < 0 && strings.Contains(l, "MOBILE") {
			header = i
		}
	}
	if header < 0 {
		t.Fatal("no table header")
	}
	mobileCol := columnOf(lines[header], "MOBILE")
	borderCol := columnOf(lines[header], "││") // between the panes
	for i, tc := range trickyNames {
		l := lines[header+1+i]
		mobile := cs[i].Mobile
		if got := columnOf(l, mobile); got != mobileCol {
			t.Errorf("%s: mobile starts at column %d, header MOBILE at %d: %q", tc.name, got, mobileCol, l)
		}
		if got := strings.LastIndex(ansi.Strip(l), "│"); termWidth(ansi.Strip(l)[:got]) != 99 {
			t.Errorf("%s: right border not in the last column: %q", tc.name, l)
		}
		if got := columnOf(l, "││"); got != borderCol {
			t.Errorf("%s: pane border at column %d, header's at %d", tc.name, got, borderCol)
		}
	}
}
