package console

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// noteOnScreen reports whether text reads on screen as one block: starting at
// some line and column and continuing, wrapped, in that column below.
func noteOnScreen(lines []string, text string) bool {
	words := strings.Fields(text)
	first := words[0] + " " + words[1]
	for i, l := range lines {
		r := []rune(ansi.Strip(l))
		at := strings.Index(string(r), first)
		if at < 0 {
			continue
		}
		col := len([]rune(string(r)[:at]))
		var got []string
		for _, l2 := range lines[i:] {
			r2 := []rune(ansi.Strip(l2))
			if col >= len(r2) {
				break
			}
			got = append(got, strings.Fields(strings.TrimRight(string(r2[col:]), "│"))...)
			if len(got) >= len(words) {
				break
			}
		}
		if strings.HasPrefix(strings.Join(got, " "), strings.Join(words, " ")) {
			return true
		}
	}
	return false
}

// The help screen shows every binding (key and description side by side)
// under its section's heading, and every note, at 80×24 and larger sizes:
// on the first screen, or, where the height is too small, by scrolling
// with pgdn. It never draws past the terminal.
func TestHelpScreenFits(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {90, 24}, {100, 30}, {120, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newBareRoot(t)
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.send("?")
			if m.screen != screenHelp {
				t.Fatal("? did not open help")
			}
			var frames []string
			for range 10 {
				frame := m.text()
				if len(frames) > 0 && frame == frames[len(frames)-1] {
					break
				}
				frames = append(frames, frame)
				lines := strings.Split(frame, "\n")
				if len(lines) != size[1] {
					t.Fatalf("%d lines, want %d", len(lines), size[1])
				}
				for i, l := range lines {
					if w := termWidth(l); w > size[0] {
						t.Errorf("line %d is %d cells wide: %q", i, w, l)
					}
				}
				m.send("pgdown")
			}
			if size[1] >= 40 && len(frames) > 1 {
				t.Errorf("at %dx%d the help should fit without scrolling", size[0], size[1])
			}
			if len(frames) > 1 && !strings.Contains(frames[0], "↓ more") {
				t.Error("the help scrolls but the first screen does not say so")
			}
			all := strings.Join(frames, "\n")
			var lines []string
			for _, f := range frames {
				lines = append(lines, strings.Split(f, "\n")...)
			}
			for _, s := range DefaultKeyMap().Sections() {
				if !strings.Contains(ansi.Strip(all), s.Title) {
					t.Errorf("section heading %q is not on screen", s.Title)
				}
				for _, b := range s.Bindings {
					h := b.Help()
					re := regexp.MustCompile(regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc) + `( |│|$)`)
					if !re.MatchString(ansi.Strip(all)) {
						t.Errorf("binding %q %q is not on screen", h.Key, h.Desc)
					}
				}
			}
			for _, n := range helpNotes(false) { // bidi off, the default
				if !noteOnScreen(lines, n) {
					t.Errorf("note %q is not on screen", n)
				}
			}
			if t.Failed() {
				t.Logf("screens:\n%s", all)
			}
		})
	}
}

// TestHelpSaysHowRTLIsShown: the help screen says how right-to-left text
// is shown now and what B does, and follows B (a served operator's way to
// learn it: ssh does not pass TMUX, so the order is decided from TERM).
func TestHelpSaysHowRTLIsShown(t *testing.T) {
	t.Parallel()
	m := newBareRoot(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.send("?")
	if !strings.Contains(m.text(), "Right-to-left text is shown as written") {
		t.Fatalf("help:\n%s", m.text())
	}
	m.send("esc", "B", "?")
	if !strings.Contains(m.text(), "Right-to-left text is reordered by smsdesk") {
		t.Errorf("help after B:\n%s", m.text())
	}
}
