package model

import (
	"bytes"
	"strings"
	"testing"
)

func TestSanitizingWriter(t *testing.T) {
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain", []string{"Send 3: ok\n"}, "Send 3: ok\n"},
		{"escape", []string{"refused: \x1b[31mred\x1b[0m \x1b]0;title\x07\n"}, "refused: red \n"},
		{"8-bit CSI and bidi override", []string{"a\u009b31mb \u202edcba\n"}, "ab dcba\n"},
		{"carriage return", []string{"x\ry\n"}, "xy\n"},
		{"Persian cut mid-letter", []string{"سلا", "\xd9", "\x85 علی\n"}, "سلام علی\n"},
		{"tab and newline kept", []string{"a\tb\nc\n"}, "a\tb\nc\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := NewSanitizingWriter(&out)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func FuzzSanitizingWriter(f *testing.F) {
	f.Add("سلام\x1b[2J", 3)
	f.Add("a\u009b1mb", 1)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var out bytes.Buffer
		w := NewSanitizingWriter(&out)
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		_, _ = w.Write([]byte(s[:cut]))
		_, _ = w.Write([]byte(s[cut:]))
		if strings.ContainsAny(out.String(), "\x1b\r\u009b\u202e") {
			t.Errorf("%q cut at %d wrote %q", s, cut, out.String())
		}
	})
}

// TestSanitizingWriterConcurrent: writers on several goroutines (progress,
// retry notices, a stop message) share one; run with -race.
func TestSanitizingWriterConcurrent(t *testing.T) {
	var out bytes.Buffer
	w := NewSanitizingWriter(&out)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 100 {
				_, _ = w.Write([]byte("سلام \x1b[31mline\n"))
			}
		}()
	}
	for range 4 {
		<-done
	}
	if n := strings.Count(out.String(), "سلام line\n"); n != 400 {
		t.Errorf("%d whole lines of 400", n)
	}
}
