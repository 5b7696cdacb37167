package config

import (
	"fmt"
	"slices"
	"strings"
)

// ConsoleSettings are how the console draws on this machine's terminals: the
// [console] table of the config file. They belong to the machine, not to an
// account, so every profile shares them.
//
//	[console]
//	bidi = "auto"        # off (default) | visual | auto
//	mouse = false        # default true
//	alt_screen = false   # default true
//	theme = "light"      # auto (default) | dark | light
type ConsoleSettings struct {
	// Bidi is how right-to-left text is shown: "off" writes it in logical
	// order (for terminals that reorder it themselves: Konsole, GNOME
	// Terminal), "visual" reorders each line (Windows Terminal, PuTTY,
	// Alacritty, kitty, tmux), "auto" picks from the environment. Empty is off.
	Bidi      string `toml:"bidi,omitempty"`
	Mouse     *bool  `toml:"mouse,omitempty"`
	AltScreen *bool  `toml:"alt_screen,omitempty"`
	Theme     string `toml:"theme,omitempty"`
}

// Bidi modes.
const (
	BidiOff    = "off"
	BidiVisual = "visual"
	BidiAuto   = "auto"
)

// BidiModes and Themes are the values the settings take.
var (
	BidiModes = []string{BidiOff, BidiVisual, BidiAuto}
	Themes    = []string{"auto", "dark", "light"}
)

// Validate checks the settings' values.
func (s ConsoleSettings) Validate() error {
	if s.Bidi != "" && !slices.Contains(BidiModes, s.Bidi) {
		return fmt.Errorf("console.bidi %q: want %s", s.Bidi, strings.Join(BidiModes, ", "))
	}
	if s.Theme != "" && !slices.Contains(Themes, s.Theme) {
		return fmt.Errorf("console.theme %q: want %s", s.Theme, strings.Join(Themes, ", "))
	}
	return nil
}

// MouseOn and AltScreenOn read the flags with their defaults (on).
func (s ConsoleSettings) MouseOn() bool     { return s.Mouse == nil || *s.Mouse }
func (s ConsoleSettings) AltScreenOn() bool { return s.AltScreen == nil || *s.AltScreen }

// ResolveBidi turns a bidi mode into whether to reorder: visual yes, off no,
// auto yes where the environment names a terminal known not to apply the
// bidirectional algorithm itself, no otherwise (logical order is right for
// Konsole, GNOME Terminal and other VTE terminals, and for unknown ones the
// operator can switch with the console's key). getenv reads the environment.
func ResolveBidi(mode string, getenv func(string) string) bool {
	switch mode {
	case BidiVisual:
		return true
	case BidiAuto:
		return TerminalNeedsVisualBidi(getenv)
	}
	return false
}

// TerminalNeedsVisualBidi reports whether the environment names a terminal
// that shows characters in the order written (no bidi of its own): Windows
// Terminal (WT_SESSION), PuTTY (TERM=putty*), Alacritty, kitty, WezTerm,
// iTerm2, Apple Terminal, VS Code's terminal, and tmux or screen (which
// redraw cells themselves, whatever the outer terminal does).
func TerminalNeedsVisualBidi(getenv func(string) string) bool {
	if getenv("WT_SESSION") != "" || getenv("TMUX") != "" || getenv("STY") != "" || getenv("KITTY_WINDOW_ID") != "" || getenv("ALACRITTY_SOCKET") != "" || getenv("ALACRITTY_LOG") != "" {
		return true
	}
	switch strings.ToLower(getenv("TERM_PROGRAM")) {
	case "wezterm", "iterm.app", "apple_terminal", "vscode", "alacritty", "tmux", "ghostty":
		return true
	}
	term := strings.ToLower(getenv("TERM"))
	for _, t := range []string{"putty", "alacritty", "xterm-kitty", "tmux", "screen"} {
		if strings.HasPrefix(term, t) {
			return true
		}
	}
	return false
}
