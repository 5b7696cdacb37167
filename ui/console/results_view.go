package console

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/smsdesk/smsdesk/model"
)

// View draws the progress line, counts and one row per recipient.
func (p *resultsPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	if p.jobID == "" {
		return st.Pane.Render(block(st.Muted.Render("No send yet: c composes one from the main screen."), iw, ih))
	}
	title := fmt.Sprintf("Send %s · sender %s · %s", p.jobID, p.sender, p.stateText())
	if p.sending {
		title += " " + p.c.spin
	}
	pct := 0.0
	if p.total > 0 {
		pct = float64(p.done) / float64(p.total)
	}
	lines := []string{
		st.Title.Render(p.c.text(title, iw)),
		p.progressLine(pct, iw),
		fit(p.countsText(iw), iw),
	}
	filter := "all recipients"
	if p.failOnly {
		filter = fmt.Sprintf("recipients not accepted (%d: rejected, failed, unknown, not sent, undelivered)", len(p.shown))
	}
	lines = append(lines, st.Muted.Render(fit("Showing "+filter+" · f toggles", iw)))
	nw, rw, sw, dw := resultColumns()
	iw2 := iw - nw - rw - sw - dw - 4
	lines = append(lines, st.Header.Render(fitRight("#", nw)+" "+fit("RECIPIENT", rw)+" "+fit("OUTCOME", sw)+" "+fit("DELIVERY", dw)+" "+fit("MESSAGE ID / REASON", iw2)))
	end := min(len(p.shown), p.offset+p.tableRows())
	for pos := p.offset; pos < end; pos++ {
		lines = append(lines, p.resultRow(pos, iw2))
	}
	foot := p.foot(iw)
	body := block(strings.Join(lines, "\n"), iw, ih-len(foot))
	return st.PaneFocused.Render(body + "\n" + strings.Join(foot, "\n"))
}

// stateText is where the send stands, for the title.
func (p *resultsPane) stateText() string {
	switch {
	case p.sending && p.cancel != nil && strings.HasPrefix(p.note, "cancelling"):
		return "cancelling"
	case p.sending:
		return "sending"
	case p.isHeld():
		return p.heldState()
	case p.summary != nil && p.summary.Stopped != "":
		return "stopped: " + stopWhy(p.summary.Cause)
	case p.summary != nil && p.summary.Interrupted:
		return "cancelled"
	case p.polling:
		return "sent · watching delivery"
	}
	return "done"
}

// resultColumns are the widths of the number, recipient, outcome and
// delivery columns; the message id or reason takes the rest.
func resultColumns() (nw, rw, sw, dw int) { return 6, 13, 9, 13 }

// resultRow is the row of the recipient shown at pos: its outcome and its
// delivery apart, in words.
func (p *resultsPane) resultRow(pos, iw2 int) string {
	nw, rw, sw, dw := resultColumns()
	r := p.results[p.shown[pos]]
	mark := " "
	if pos == p.cursor {
		mark = "›"
	}
	detail := r.MessageID
	if r.Error != "" {
		detail = r.Error
		if r.Code != "" {
			detail = r.Code + ": " + r.Error
		}
	}
	return mark + fitRight(fmt.Sprint(r.Index+1), nw-1) + " " + fit(r.Recipient, rw) + " " +
		p.stateStyle(r).Render(fit(outcomeWord(r.State, p.sending, nil), sw)) + " " + fit(deliveryWord(r.Delivery), dw) + " " + p.c.text(detail, iw2)
}

// foot is the screen's last lines: an error, a wait, a note, or what can
// be done once the send is over, wrapped on up to three lines (issue 40
// item 4: "stopped: … ; top up the account, then R sends the rest" was cut
// at 80 columns).
func (p *resultsPane) foot(iw int) []string {
	st := p.c.styles
	text, s := "", st.Muted
	switch {
	case p.err != "":
		text, s = "✗ "+p.err, st.Error
	case p.waiting != "":
		text, s = p.waiting, st.Warn
	case p.note != "":
		text = p.note
	case !p.sending:
		text = p.doneHint()
	}
	lines := wrapWords(text, iw, noteLines, p.c.bidi)
	for i, l := range lines {
		lines[i] = s.Render(fitView(l, iw))
	}
	return lines
}

// progressLine is the bar with counts, rate and clocks; the bar takes the
// room the text leaves (up to its usual width) so the clocks are never cut.
func (p *resultsPane) progressLine(pct float64, w int) string {
	text := fmt.Sprintf("  %s/%s · rate %s · %s", thousands(p.done), thousands(p.total), p.rateText(), p.clockText())
	bar := p.bar
	bar.SetWidth(max(10, min(p.bar.Width(), w-cellWidth(text))))
	return fitView(bar.ViewAs(pct)+text, w)
}

func (p *resultsPane) stateStyle(r model.SentItem) lipgloss.Style {
	st := p.c.styles
	switch r.State {
	case model.StateAccepted:
		return st.Good
	case model.StateRejected, model.StateFailed:
		return st.Bad
	case model.StateUnknown:
		return st.Warn
	}
	return st.Muted
}

// countsText is the tally of the recipients' outcomes (and deliveries) in
// w cells: every state while they fit, else the states none is in are left
// out (accepted stays) and the words shortened, so that what did happen,
// delivery last, is not cut ("… · not sent 0 · del…" at 80 columns).
func (p *resultsPane) countsText(w int) string {
	n := map[model.ItemState]int{}
	delivered, undelivered := 0, 0
	for _, r := range p.results {
		n[r.State]++
		switch r.Delivery {
		case "delivered":
			delivered++
		case "failed", "rejected":
			undelivered++
		}
	}
	type count struct {
		label string
		n     int
	}
	all := []count{{"accepted", n[model.StateAccepted]}, {"rejected", n[model.StateRejected]}, {"failed", n[model.StateFailed]},
		{"unknown", n[model.StateUnknown]}, {"sending", n[model.StateSending]}, {"not sent", n[model.StateQueued]}}
	line := func(wide bool) string {
		var parts []string
		for i, c := range all {
			if wide || i == 0 || c.n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c.label, c.n))
			}
		}
		if o := n[model.StateOptedOut]; o > 0 && wide {
			parts = append(parts, fmt.Sprintf("opted out %d (not sent)", o))
		} else if o > 0 {
			parts = append(parts, fmt.Sprintf("opted out %d", o))
		}
		switch {
		case delivered+undelivered == 0:
		case wide || undelivered > 0:
			parts = append(parts, fmt.Sprintf("delivered %d, not %d", delivered, undelivered))
		default:
			parts = append(parts, fmt.Sprintf("delivered %d", delivered))
		}
		return strings.Join(parts, " · ")
	}
	if s := line(true); cellWidth(s) <= w {
		return s
	}
	return line(false)
}

func (p *resultsPane) doneHint() string {
	if len(p.retryable()) > 0 {
		return fmt.Sprintf("R retries the %d items certainly not sent · e exports results · esc back", len(p.retryable()))
	}
	return "e exports results · esc back"
}

// retryable lists the items certainly not sent (never sent, rejected or
// failed); unknown items may have gone and are never retried from here.
func (p *resultsPane) retryable() []model.SentItem {
	var out []model.SentItem
	for _, r := range p.results {
		if r.State.CertainlyNotTaken() {
			out = append(out, r)
		}
	}
	return out
}

// retry asks (default no) before sending again the items certainly not
// sent. They go as a resume of the same send, so the journal that holds them
// stays the only one: a new send for the leftovers would leave the old
// journal saying "not sent", and following its resume advice would send them
// twice.
func (p *resultsPane) retry() tea.Cmd {
	items := p.retryable()
	if len(items) == 0 {
		p.note = "nothing to retry: every item was accepted or may have been sent (unknown)"
		return nil
	}
	parts := 0
	for _, r := range items {
		parts += max(1, r.Parts)
	}
	unknown := 0
	for _, r := range p.results {
		if r.State == model.StateUnknown {
			unknown++
		}
	}
	body := fmt.Sprintf("Retry %d items certainly not sent (%d parts) from sender %s?", len(items), parts, model.SanitizeLine(p.sender))
	if unknown > 0 {
		body += fmt.Sprintf("\n%d unknown items may have been sent and are left out.", unknown)
	}
	body += "\nThey go as a resume of send " + model.SanitizeLine(p.jobID) + ": one journal, one history entry."
	id := p.jobID
	return p.c.showModal(newConfirm(p.c, "Retry failed?", body, func() tea.Cmd {
		return cmdOf(retryRunMsg{JobID: id})
	}))
}

// exportResultsForm asks where to write the results as CSV.
func exportResultsForm(c *common, p *resultsPane) *form {
	f := newFileForm(c, "Export results", "recipient,message,status,message_id,delivery,error (file mode 0600, never overwrites).",
		func(v []string) func() (tea.Msg, error) {
			results := append([]model.SentItem(nil), p.results...)
			return func() (tea.Msg, error) {
				path, err := c.filePath(v[0])
				if err != nil {
					return nil, err
				}
				n, err := c.session.ExportResults(c.ctx, p.jobID, results, path)
				if err != nil {
					return nil, err // said in the form, which stays open for another name
				}
				return exportDoneMsg{What: "results", Path: path, Rows: n}, nil
			}
		},
		textField("File", "results.csv", 1024, required("a file path")),
	)
	name := "send-" + safeName(p.jobID) + "-results.csv"
	if c.opts.FilesDir == "" {
		name = filepath.Join(c.opts.StateDir, name)
	}
	f.prefill(0, name)
	return f
}
