package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/smsdesk/smsdesk/model"
)

// printJSON writes v as indented JSON: the stable form for scripts.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

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
