package config

import "testing"

func TestResolveBidi(t *testing.T) {
	tests := []struct {
		mode string
		env  map[string]string
		want bool
	}{
		{"", map[string]string{"WT_SESSION": "x"}, false},
		{"off", map[string]string{"WT_SESSION": "x"}, false},
		{"visual", nil, true},
		{"auto", map[string]string{"WT_SESSION": "3f1c"}, true},                                // Windows Terminal
		{"auto", map[string]string{"TERM": "putty-256color"}, true},                            // PuTTY
		{"auto", map[string]string{"TERM": "xterm-kitty"}, true},                               // kitty
		{"auto", map[string]string{"TERM": "alacritty"}, true},                                 // Alacritty
		{"auto", map[string]string{"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "screen"}, true}, // tmux
		{"auto", map[string]string{"TERM_PROGRAM": "WezTerm"}, true},
		{"auto", map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, false}, // GNOME Terminal reorders
		{"auto", map[string]string{"TERM": "xterm-256color", "KONSOLE_VERSION": "230401"}, false},
		{"auto", nil, false},
	}
	for _, tt := range tests {
		got := ResolveBidi(tt.mode, func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("ResolveBidi(%q, %v) = %v, want %v", tt.mode, tt.env, got, tt.want)
		}
	}
}

func TestConsoleSettingsValidate(t *testing.T) {
	for _, s := range []ConsoleSettings{{Bidi: "left"}, {Theme: "blue"}} {
		if s.Validate() == nil {
			t.Errorf("%+v validated", s)
		}
	}
	if err := (ConsoleSettings{Bidi: "auto", Theme: "light"}).Validate(); err != nil {
		t.Error(err)
	}
	no := false
	if (ConsoleSettings{Mouse: &no}).MouseOn() || !(ConsoleSettings{}).MouseOn() || !(ConsoleSettings{}).AltScreenOn() {
		t.Error("defaults: mouse and alt screen are on unless set false")
	}
}
