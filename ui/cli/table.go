package cli

import (
	"bufio"
	"io"
	"slices"
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
func (ios *IOStreams) table(w io.Writer, header []string, rows [][]string, fit ...fitStep) error {
	if len(fit) == 0 {
		return ios.tableOf(w, header, len(rows), func(i int) []string { return rows[i] })
	}
	clean := make([][]string, len(rows))
	for i, r := range rows {
		clean[i] = make([]string, len(r))
		for j, c := range r {
			clean[i][j] = model.SanitizeLine(c)
		}
	}
	if !ios.OutIsTerminal {
		return writeTSV(w, clean)
	}
	header = slices.Clone(header)
	if len(fit) > 0 {
		header, clean = fitTable(header, clean, ios.Width(), fit)
	}
	return writeAligned(w, header, clean)
}

// tableOf is table for n rows that row makes one at a time (row(i) may be
// asked twice: once to measure, once to write), never holding them all: a
// dry run of a million pairs held its table three times over (the cells,
// their clean copies, and the whole text in one string), 280 MB of a 1M-row
// dry run's 800 MB. Fitting to the terminal's width needs every row at once,
// so a table that says how to fit goes through table's copy.
func (ios *IOStreams) tableOf(w io.Writer, header []string, n int, row func(i int) []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cells := make([]string, 0, len(header))
	clean := func(r []string) []string {
		cells = cells[:0]
		for _, c := range r {
			cells = append(cells, model.SanitizeLine(c))
		}
		return cells
	}
	if !ios.OutIsTerminal {
		for i := range n {
			writeTSVRow(bw, clean(row(i)))
		}
		return bw.Flush()
	}
	ws := make([]int, len(header))
	measure := func(r []string) {
		for j, c := range r {
			if j < len(ws) {
				ws[j] = max(ws[j], ansi.StringWidth(c))
			}
		}
	}
	measure(header)
	for i := range n {
		measure(clean(row(i)))
	}
	writeAlignedRow(bw, ws, header)
	for i := range n {
		writeAlignedRow(bw, ws, clean(row(i)))
	}
	return bw.Flush()
}

// writeTSVRow writes one row of a table to a pipe: cells joined by tabs.
func writeTSVRow(w *bufio.Writer, r []string) {
	for j, c := range r {
		if j > 0 {
			w.WriteByte('\t')
		}
		w.WriteString(c)
	}
	w.WriteByte('\n')
}

// writeAlignedRow writes one row padded to the columns' widths ws; the last
// cell is not padded.
func writeAlignedRow(w *bufio.Writer, ws []int, r []string) {
	for j, c := range r {
		w.WriteString(c)
		if j < len(r)-1 {
			w.WriteString(strings.Repeat(" ", ws[j]-ansi.StringWidth(c)+columnGap))
		}
	}
	w.WriteByte('\n')
}

func writeTSV(w io.Writer, rows [][]string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, r := range rows {
		writeTSVRow(bw, r)
	}
	return bw.Flush()
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
	bw := bufio.NewWriterSize(w, 64<<10)
	writeAlignedRow(bw, ws, header)
	for _, r := range rows {
		writeAlignedRow(bw, ws, r)
	}
	return bw.Flush()
}
