package cli

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
)

// Tables follow gh's rule. On a terminal: a header, columns aligned by
// their width on screen (a Persian name is as wide as it looks), and, for a
// table that says how, fitted to the terminal's width by narrowing or
// dropping columns in a fixed order. Anywhere else (a pipe, a file): no
// header, cells separated by one tab, no padding and nothing cut, so that a
// script can `cut -f2` them. Every cell is made one clean line either way
// (a tab in a name becomes a space).

// fitStep is one way a table gives width back, tried in order until it
// fits: narrow a column's cells (narrow set), or drop the column.
type fitStep struct {
	column string              // the header of the column
	narrow func(string) string // nil: drop it
}

// table writes a table for people to w (stdout), as described above.
func (a *command) table(w io.Writer, header []string, rows [][]string, fit ...fitStep) error {
	clean := make([][]string, len(rows))
	for i, r := range rows {
		clean[i] = make([]string, len(r))
		for j, c := range r {
			clean[i][j] = model.SanitizeLine(c)
		}
	}
	if !a.env.StdoutIsTerminal {
		return writeTSV(w, clean)
	}
	header = slices.Clone(header)
	if len(fit) > 0 {
		header, clean = fitTable(header, clean, a.terminalWidth(), fit)
	}
	return writeAligned(w, header, clean)
}

// terminalWidth is stdout's width in columns: Env.TerminalWidth, else
// $COLUMNS, else 80 (as gh assumes).
func (a *command) terminalWidth() int {
	if a.env.TerminalWidth != nil {
		if n := a.env.TerminalWidth(); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(a.env.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

func writeTSV(w io.Writer, rows [][]string) error {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "\t"))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// widths are each column's width on screen: its widest cell or header.
func widths(header []string, rows [][]string) []int {
	ws := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for j, c := range r {
			if j < len(ws) {
				ws[j] = max(ws[j], ansi.StringWidth(c))
			}
		}
	}
	return ws
}

const columnGap = 2

func tableWidth(ws []int) int {
	n := 0
	for _, w := range ws {
		n += w
	}
	return n + columnGap*max(0, len(ws)-1)
}

// fitTable applies the steps in order until the table fits width; if it
// still does not, the last column's cells are cut with "…".
func fitTable(header []string, rows [][]string, width int, steps []fitStep) ([]string, [][]string) {
	for _, st := range steps {
		if tableWidth(widths(header, rows)) <= width {
			return header, rows
		}
		j := slices.Index(header, st.column)
		if j < 0 {
			continue
		}
		if st.narrow != nil {
			for _, r := range rows {
				if j < len(r) {
					r[j] = st.narrow(r[j])
				}
			}
			continue
		}
		header = slices.Delete(header, j, j+1)
		for i, r := range rows {
			if j < len(r) {
				rows[i] = slices.Delete(r, j, j+1)
			}
		}
	}
	ws := widths(header, rows)
	if over := tableWidth(ws) - width; over > 0 && len(ws) > 0 {
		last := len(ws) - 1
		room := max(ws[last]-over, ansi.StringWidth(header[last]), 4)
		for _, r := range rows {
			if last < len(r) {
				r[last] = ansi.Truncate(r[last], room, "…")
			}
		}
	}
	return header, rows
}

// writeAligned writes the header and rows with columns padded to their
// width on screen; the last column is not padded.
func writeAligned(w io.Writer, header []string, rows [][]string) error {
	ws := widths(header, rows)
	var b strings.Builder
	for _, r := range append([][]string{header}, rows...) {
		for j, c := range r {
			b.WriteString(c)
			if j < len(r)-1 {
				b.WriteString(strings.Repeat(" ", ws[j]-ansi.StringWidth(c)+columnGap))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
