package console

import (
	"strings"

	"github.com/smsdesk/smsdesk/config"
)

// Display decides the console's display options from this host's [console]
// settings and the terminal the console draws on, before the program
// starts: bidi (auto resolved from the terminal's name), NO_COLOR (set and
// not empty, no-color.org), the multiplexer OSC 52 copies pass through, the
// mouse, the alternate screen and the theme. getenv reads that terminal's
// environment: this process's own, or an SSH client's as its ssh sent it
// (never the server's). darkBackground asks the terminal whether its
// background is dark, for theme auto; nil (a terminal that cannot be asked
// before the program starts) is dark.
func (o *Options) Display(cs config.ConsoleSettings, getenv func(string) string, darkBackground func() bool) {
	o.BidiVisual = config.ResolveBidi(cs.Bidi, getenv)
	o.NoColor = getenv("NO_COLOR") != ""
	o.Multiplexer = multiplexerOf(getenv)
	o.NoMouse = !cs.MouseOn()
	o.NoAltScreen = !cs.AltScreenOn()
	o.Theme = cs.Theme
	if o.Theme == "" || o.Theme == "auto" {
		o.Theme = "dark"
		if darkBackground != nil && !darkBackground() {
			o.Theme = "light"
		}
	}
}

// multiplexerOf names the terminal multiplexer a terminal runs in ("tmux",
// "screen" or "").
func multiplexerOf(getenv func(string) string) string {
	switch term := getenv("TERM"); {
	case getenv("TMUX") != "":
		return "tmux"
	case getenv("STY") != "", strings.HasPrefix(term, "screen"):
		return "screen"
	}
	return ""
}
