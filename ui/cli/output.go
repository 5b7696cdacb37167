package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// printJSON writes v as indented JSON: the stable form for scripts. Data is
// kept exact; every control character is escaped, so that the output is safe
// on a terminal too: encoding/json escapes C0, and DEL and C1 (U+0080–U+009F,
// among them the 8-bit CSI U+009B) are escaped here as \u007f…\u009f.
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

// escapeControls escapes DEL and C1 characters in encoded JSON. They can only
// stand inside strings there, where \uXXXX means the same character.
func escapeControls(b []byte) []byte {
	if !bytes.ContainsFunc(b, isDelOrC1) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if isDelOrC1(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

func isDelOrC1(r rune) bool { return r == 0x7f || r >= 0x80 && r <= 0x9f }

// printTable writes a table for people; every cell is sanitised.
func printTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = model.SanitizeLine(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// confirm asks a yes/no question on the terminal; the default is no. It refuses
// (a usage error) when stdin is not a terminal, naming the flag that skips it.
func (a *app) confirm(question, skipFlag string) (bool, error) {
	if !a.env.StdinIsTerminal {
		return false, usageError("%s: stdin is not a terminal, so smsdesk cannot ask; pass %s to go ahead", question, skipFlag)
	}
	fmt.Fprintf(a.env.Stderr, "%s [y/N] ", question)
	line, err := bufio.NewReader(a.env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// progress prints "label n/total" on stderr: rewritten in place on a terminal,
// every tenth of the way otherwise.
type progress struct {
	w        io.Writer
	label    string
	total    int
	terminal bool
	lastTick int
}

func (p *progress) update(done int) {
	if p.total <= 0 {
		return
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s %s %d/%d", p.label, bar(done, p.total, 24), done, p.total)
		if done >= p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	tick := done * 10 / p.total
	if tick > p.lastTick || done == p.total {
		p.lastTick = tick
		fmt.Fprintf(p.w, "%s %d/%d\n", p.label, done, p.total)
	}
}

// bar draws a fixed-width progress bar.
func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := done * width / total
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
