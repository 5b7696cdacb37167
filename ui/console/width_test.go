package console

import (
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/width"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
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
	{"every skin tone", "👍🏻👍🏼👍🏽👍🏾👍🏿"},
	{"zwj sequence with a modifier", "👩🏽\u200d💻 dev"},
	{"zwj sequences", "🏳️\u200d🌈 👁️\u200d🗨️ 🧑\u200d🤝\u200d🧑"},
	{"keycap", "1️⃣ one"},
	{"flag", "🇮🇷 Iran"},
	{"persian with emoji and zwnj", "سلام 👍🏽 خوش\u200cآمدید"},
}

// TestZWNJIsShown: the Persian half-space reaches the screen (it changes how
// the letters around it join), in logical and in visual order.
func TestZWNJIsShown(t *testing.T) {
	for _, visual := range []bool{false, true} {
		if got := fitText("نیلوفر خوش\u200cنویس", 30, visual); !strings.Contains(got, "\u200c") {
			t.Errorf("visual=%v: fitText dropped the ZWNJ: %q", visual, got)
		}
	}
}

// TestFitTextVisual: a cut Persian sentence keeps its start, reads right to
// left on a terminal that does not reorder, and is padded on the right.
func TestFitTextVisual(t *testing.T) {
	got := fitText("سلام دوست عزیز", 9, true)
	if want := "…سود مالس"; got != want { // "سلام دوس…" cut in logical order, then reordered
		t.Errorf("fitText = %q, want %q", got, want)
	}
	if got := fitText("سلام", 6, true); got != "مالس  " {
		t.Errorf("fitText = %q, want the padding on the right", got)
	}
	if termWidth(got) != 9 || !strings.HasPrefix(got, "…") {
		t.Errorf("fitText = %q (%d cells): want 9 cells, the ellipsis at the left (the end of a right-to-left line)", got, termWidth(got))
	}
	if got := fitText("Hello", 8, true); got != "Hello   " {
		t.Errorf("Latin text changed: %q", got)
	}
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
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{}), Now: fixedClock})
	m.screen = screenMain
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	var cs []model.Contact
	for i, tc := range trickyNames {
		cs = append(cs, model.Contact{ID: model.ID(string(rune('a' + i))), Name: tc.text,
			Mobile: "0912000000" + string(rune('0'+i))})
	}
	m.contacts.group, m.contacts.loadID = model.Group{ID: "1", Name: "گروه\u200cها"}, 1
	m.Update(contactsLoadedMsg{GroupID: "1", LoadID: 1, Contacts: cs})
	// The stored contact keeps its ZWNJ, and so does the display.
	if !strings.Contains(m.contacts.allContacts()[0].Name, "\u200c") {
		t.Fatal("the contact's name lost its ZWNJ")
	}
	lines := strings.Split(m.text(), "\n")
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

// TestTrickyTextInEveryTable: every emoji modifier, ZWJ sequences, ZWNJ and
// harakat through the groups pane, the contact table, the composer's rows and
// the results' reasons, at 80 and 100 columns, in logical and visual order:
// no line is wider or narrower than the terminal, in the console's own count
// and in a wcwidth terminal's.
func TestTrickyTextInEveryTable(t *testing.T) {
	var cs []model.Contact
	var groups []model.Group
	for i, tc := range trickyNames {
		cs = append(cs, model.Contact{ID: model.ID(string(rune('a' + i))), Name: tc.text, Mobile: "0912000000" + string(rune('0'+i%10))})
		groups = append(groups, model.Group{ID: model.ID(string(rune('A' + i))), Name: tc.text})
	}
	for _, size := range [][2]int{{80, 23}, {100, 30}} {
		for _, visual := range []bool{false, true} {
			m := newBareRoot(t)
			m.c.bidi = visual
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.Update(groupsLoadedMsg{Groups: groups})
			m.contacts.group, m.contacts.loadID = groups[0], 1
			m.Update(contactsLoadedMsg{GroupID: groups[0].ID, LoadID: 1, Contacts: cs})
			frames := map[string]string{"main": m.text()}
			m.composer.Reset(groups[0], cs)
			m.screen = screenComposer
			m.composer.editor.SetValue("{name} سلام 👍🏽 خوش\u200cآمدید")
			m.composer.replan()
			frames["composer"] = m.text()
			m.screen = screenResults
			for i, c := range cs {
				m.results.results = append(m.results.results, model.SentItem{JournalItem: model.JournalItem{Index: i, Recipient: c.Mobile}, State: model.StateRejected, Error: c.Name})
				m.results.shown = append(m.results.shown, i)
			}
			frames["results"] = m.text()
			for name, frame := range frames {
				lines := strings.Split(frame, "\n")
				if len(lines) != size[1] {
					t.Errorf("%dx%d visual=%v %s: %d lines", size[0], size[1], visual, name, len(lines))
				}
				for i, l := range lines {
					if tw, cw := termWidth(l), cellWidth(l); tw > size[0] || cw > size[0] || (tw != cw && strings.Contains(l, "│")) {
						t.Errorf("%dx%d visual=%v %s line %d: %d terminal cells, %d by cellWidth (width %d): %q", size[0], size[1], visual, name, i, tw, cw, size[0], l)
					}
				}
			}
		}
	}
}

// cellWidth's fast path (printable ASCII, styled or not) counts what the
// grapheme-segmenting width does.
func TestCellWidthFastPathAgrees(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "\x1b[1;38;5;212mbold pink\x1b[0m", "\x1b[7m› 09121234567 \x1b[m tail",
		"\x1b[38;2;1;2;3mx\x1b[39m", "a\x1b[", "tab\there", "مشتریان تهران", "\x1b[1mعلی\x1b[0m", "👍 ok", "Rene\u0301",
	} {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, ansi.StringWidth says %d", s, got, want)
		}
	}
}
