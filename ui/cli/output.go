package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// printJSON writes v as indented JSON: the stable form for scripts. Data is
// kept exact; every control character is escaped, so that the output is safe
// on a terminal too: encoding/json escapes C0, and DEL, C1 (U+0080–U+009F,
// among them the 8-bit CSI U+009B) and the bidi overrides and isolates
// (U+202A–U+202E, U+2066–U+2069: they reorder what follows on the
// operator's screen) are escaped here as \uXXXX.
func printJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeControls(buf.Bytes()))
	return err
}

// marshalJSON is json.Marshal without HTML escaping, as printJSON writes:
// for MarshalJSON methods, whose output printJSON keeps as it is ("<" stays
// "<", not "\u003c").
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// escapeControls escapes DEL, C1 and bidi controls in encoded JSON. They can
// only stand inside strings there, where \uXXXX means the same character.
func escapeControls(b []byte) []byte {
	if !bytes.ContainsFunc(b, mustEscape) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if mustEscape(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

func mustEscape(r rune) bool {
	return r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Text for people meets the terminal through two printers that clean what
// they are given, so that call sites need not: printTable (every cell made
// one clean line) and printf (every string or error argument made one clean
// line; the format is smsdesk's own and may hold deliberate control, like
// the progress line's erase). Under them, env.Stdout and env.Stderr drop any
// control character or escape sequence a plain Fprint lets through
// (model.SanitizingWriter); JSON escapes its own (printJSON).

// printf is fmt.Fprintf for text for people: a string or error argument
// (a service's message, a name, a file's name) is made one line without
// control characters or escape sequences first.
func printf(w io.Writer, format string, args ...any) {
	for i, arg := range args {
		switch v := arg.(type) {
		case string:
			args[i] = model.SanitizeLine(v)
		case error:
			args[i] = model.SanitizeLine(v.Error())
		}
	}
	fmt.Fprintf(w, format, args...)
}

// progress reports how far a long job has come on stderr, with its rate and
// an ETA: on a terminal one line redrawn in place with a bar
// ("sending [######..........] 240/1000 · 8.0/s · ETA 1m35s"), at most every
// 100 ms; on a pipe or a log, whole newline-ended lines every tenth of the way
// (or every 10 s when the total is not known), so a script's log reads well.
type progress struct {
	w        io.Writer
	label    string // "sending", "importing", "loaded"
	unit     string // after the count: "contacts"; may be ""
	total    int    // -1: not known
	terminal bool
	now      func() time.Time // nil: time.Now

	start    time.Time
	last     time.Time // last line written
	lastTick int
	drawn    bool // a terminal line is open
}

func (p *progress) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// update reports done items of the total.
func (p *progress) update(done int) {
	now := p.clock()
	if p.start.IsZero() {
		p.start = now
	}
	finished := p.total >= 0 && done >= p.total
	if p.terminal {
		if !finished && now.Sub(p.last) < 100*time.Millisecond && p.drawn {
			return
		}
		p.last, p.drawn = now, true
		fmt.Fprintf(p.w, "\r\x1b[K%s", p.line(done, now, true))
		if finished {
			p.finish()
		}
		return
	}
	switch {
	case finished:
	case p.total > 0:
		tick := done * 10 / p.total
		if tick <= p.lastTick {
			return
		}
		p.lastTick = tick
	case now.Sub(p.last) < 10*time.Second && !p.last.IsZero():
		return
	}
	p.last = now
	fmt.Fprintln(p.w, p.line(done, now, false))
}

// finish ends a terminal line left open (a job that stopped early).
func (p *progress) finish() {
	if p.terminal && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// line is "label [bar] done/total unit · rate/s · ETA d".
func (p *progress) line(done int, now time.Time, withBar bool) string {
	var b strings.Builder
	b.WriteString(p.label)
	if withBar && p.total > 0 {
		b.WriteString(" " + bar(done, p.total, 20))
	}
	if p.total >= 0 {
		fmt.Fprintf(&b, " %d/%d", done, p.total)
	} else {
		fmt.Fprintf(&b, " %d", done)
	}
	if p.unit != "" {
		b.WriteString(" " + p.unit)
	}
	elapsed := now.Sub(p.start)
	if elapsed < time.Second || done <= 0 {
		return b.String()
	}
	rate := float64(done) / elapsed.Seconds()
	fmt.Fprintf(&b, " · %s/s", strconv.FormatFloat(rate, 'f', 1, 64))
	if p.total > done {
		eta := time.Duration(float64(p.total-done) / rate * float64(time.Second))
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	} else if p.total >= 0 {
		fmt.Fprintf(&b, " · took %s", elapsed.Round(time.Second))
	}
	return b.String()
}

// bar draws a fixed-width progress bar.
func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := done * width / total
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
