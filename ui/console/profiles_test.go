package console

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// mainScreenRoot is a console at w×h on the main screen with groups, a
// contact table (Persian and wide names included), the contacts pane focused
// (the selected row in reverse video) and an error in the status bar.
func mainScreenRoot(t *testing.T, w, h int) *root {
	t.Helper()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	groups := []model.Group{{ID: "1", Name: "مشتریان تهران"}, {ID: "2", Name: "Support team"}, {ID: "3", Name: "VIP"}}
	m.Update(groupsLoadedMsg{Groups: groups, Counts: map[model.ID]int{"1": len(trickyNames), "2": 12}})
	var cs []model.Contact
	for i, tc := range trickyNames {
		cs = append(cs, model.Contact{ID: model.ID(fmt.Sprint(100 + i)), Name: tc.text, Mobile: fmt.Sprintf("091200000%02d", i)})
	}
	m.contacts.group, m.contacts.loadID = groups[0], 1
	m.Update(contactsLoadedMsg{GroupID: "1", LoadID: 1, Contacts: cs})
	m.send("tab", "down")
	m.Update(statusMsg{Err: errors.New("sender_not_allowed: sender 12 is not a line of this account")})
	return m
}

// renderUnder draws the screens that matter for colour under one profile:
// the main screen, the same with the delete dialog over it, and the help.
// noColor draws them as NO_COLOR does.
func renderUnder(t *testing.T, p colorprofile.Profile, noColor bool) []string {
	t.Helper()
	m := mainScreenRoot(t, 100, 30)
	if noColor {
		m.c.theme, m.c.styles = NoColorTheme, noColorStyles()
	}
	frames := []string{drawIn(m.frame(), p)}
	m.send("d")
	if _, ok := m.modal.(*confirm); !ok {
		t.Fatalf("d did not open the delete dialog (modal %T)", m.modal)
	}
	frames = append(frames, drawIn(m.frame(), p))
	m.send("esc", "?")
	return append(frames, drawIn(m.frame(), p))
}

// colourSGR finds a colour in an SGR sequence: 30–37, 39, 40–47, 49, 90–97,
// 100–107, or 38;… / 48;….
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`)

// 16 and 256 colours draw the same layout (only escape sequences differ);
// NO_COLOR draws no colour at all, yet the focused pane, the selected row and
// the error stay visible through attributes (heavy top and bottom edges,
// reverse, bold).
func TestColourProfilesSameLayout(t *testing.T) {
	t.Parallel()
	// The real NO_COLOR path: whatever the terminal could show, the
	// program draws in ASCII (attributes on, no colour).
	for _, p := range []colorprofile.Profile{colorprofile.Unknown, colorprofile.TrueColor, colorprofile.ANSI} {
		if got := colourProfile(Options{NoColor: true, ColorProfile: p}); got != colorprofile.ASCII {
			t.Fatalf("with NO_COLOR on a %v terminal the profile is %v, want ASCII (attributes on, no colour used)", p, got)
		}
	}
	noColor := renderUnder(t, colorprofile.ASCII, true)
	ansi16 := renderUnder(t, colorprofile.ANSI, false)
	ansi256 := renderUnder(t, colorprofile.ANSI256, false)
	names := []string{"main", "delete dialog", "help"}
	for f, name := range names {
		if m := colourSGR.FindString(noColor[f]); m != "" {
			t.Errorf("%s under NO_COLOR has a colour sequence %q", name, m)
		}
		if !strings.Contains(ansi16[f], "\x1b[") || !strings.Contains(ansi256[f], "\x1b[38;5;") {
			t.Errorf("%s: the colour profiles drew no colour (the comparison would be empty)", name)
		}
		if strings.Contains(ansi16[f], "38;5;") {
			t.Errorf("%s: the 16-colour profile used 256-colour sequences", name)
		}
		want := strings.Split(ansi.Strip(ansi16[f]), "\n")
		for pi, frame := range []string{ansi256[f], noColor[f]} {
			prof := []string{"ANSI256", "NO_COLOR"}[pi]
			lines := strings.Split(frame, "\n")
			if len(lines) != len(want) {
				t.Errorf("%s under %s: %d lines, %d under ANSI", name, prof, len(lines), len(want))
				continue
			}
			for i := range lines {
				if cw := termWidth(lines[i]); cw != 100 {
					t.Errorf("%s under %s: line %d takes %d cells (want 100)", name, prof, i, cw)
				}
				if got := ansi.Strip(lines[i]); prof == "ANSI256" && got != want[i] {
					t.Errorf("%s under %s: line %d reads\n%q\nunder ANSI\n%q", name, prof, i, got, want[i])
				}
			}
		}
	}
	// What colour showed, attributes show under NO_COLOR.
	main := noColor[0]
	if !strings.Contains(main, "\x1b[7m") {
		t.Error("NO_COLOR: the selected row is not in reverse video")
	}
	if !strings.Contains(ansi.Strip(main), "┍━") {
		t.Error("NO_COLOR: the focused pane has no heavy top edge")
	}
	if !regexp.MustCompile(`\x1b\[[0-9;]*1[;m][^\n]*sender_not_allowed`).MatchString(main) {
		t.Error("NO_COLOR: the status bar's error is not bold")
	}
	namedGolden(t, "no_color_main", main)
}

// Resizing reflows every screen line to the new size; too small says so; and
// back at the first size the frame is the same as before.
func TestResizeReflow(t *testing.T) {
	t.Parallel()
	m := mainScreenRoot(t, 100, 30)
	first := m.text()
	for _, size := range [][2]int{{100, 30}, {80, 24}, {80, 23}, {120, 40}, {79, 23}, {80, 22}, {60, 2}, {100, 30}} {
		w, h := size[0], size[1]
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		v := m.text()
		if w < minWidth || h < minHeight {
			// The real size, whole, on the first line however small.
			if first := strings.Split(v, "\n")[0]; first != fmt.Sprintf("%d×%d: too small", w, h) {
				t.Errorf("%d×%d: first line %q", w, h, first)
			}
			if h > 1 && w >= 60 && !strings.Contains(v, fmt.Sprintf("needs at least %d×%d", minWidth, minHeight)) {
				t.Errorf("%d×%d: no minimum in:\n%s", w, h, v)
			}
			continue
		}
		lines := strings.Split(v, "\n")
		if len(lines) != h {
			t.Errorf("%d×%d: %d lines", w, h, len(lines))
		}
		for i, l := range lines {
			if tw := termWidth(l); tw != w {
				t.Errorf("%d×%d: line %d takes %d cells: %q", w, h, i, tw, l)
			}
		}
		// The panes split where groupsWidth says, and the table shows as many
		// rows as fit.
		header := -1
		for i, l := range lines {
			if strings.Contains(l, "MOBILE") {
				header = i
				break
			}
		}
		if header < 0 || columnOf(lines[header], "││") != groupsWidth(w)-1 {
			t.Errorf("%d×%d: pane border not at column %d:\n%s", w, h, groupsWidth(w)-1, v)
		}
		if want := min(len(trickyNames), m.contacts.visibleRows()); !strings.Contains(v, fmt.Sprintf("091200000%02d", want-1)) {
			t.Errorf("%d×%d: row %d of the table is not shown", w, h, want)
		}
	}
	if last := m.text(); last != first {
		t.Errorf("back at 100×30 the frame differs:\n%s\nfirst:\n%s", last, first)
	}
}

func TestWithoutColour(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;38;5;212mbold pink\x1b[0m", "\x1b[1mbold pink\x1b[0m"},
		{"\x1b[38;2;1;2;3;4mx", "\x1b[4mx"},
		{"\x1b[7;90mrev\x1b[39m", "\x1b[7mrev"},
		{"\x1b[48;5;236;97mbar", "bar"},
		{"\x1b[103;2mfaint", "\x1b[2mfaint"},
	}
	for _, tt := range tests {
		if got := withoutColour(tt.in); got != tt.want {
			t.Errorf("withoutColour(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
