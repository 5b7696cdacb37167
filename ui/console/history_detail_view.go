package console

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// The detail of one past send: what it was (its schedule, sender, source),
// what became of its recipients (the outcome) kept apart from what became
// of their messages (the delivery), both in words, one row a recipient,
// and what R would do. A send cancelled or missed before it started is
// said so, row by row, and offers no R.

// detailRows is how many recipient rows fit in the detail view: below
// its head as last drawn (the title, what the send was, on up to two
// lines, the outcomes, the deliveries, the columns), above its foot.
func (p *historyPane) detailRows() int {
	head := 5
	if p.detail != nil && p.detail.head > 0 {
		head = p.detail.head
	}
	return max(1, p.h-2-head-1)
}

// detailColumns are the widths of the detail's columns at inner width iw:
// number, recipient, outcome, delivery, message id, error. The error
// takes what is left; the message id gives way at 80 columns (enter shows
// a row whole).
func detailColumns(iw int) (nw, rw, ow, dw, mw, ew int) {
	nw, rw, ow, dw, mw = 4, 13, 9, 13, 16
	if iw < 90 {
		mw = 12
	}
	return nw, rw, ow, dw, mw, max(8, iw-nw-rw-ow-dw-mw-6)
}

func (p *historyPane) detailView() string {
	st, d := p.c.styles, p.detail
	iw, ih := p.w-2, p.h-2
	title := "Send " + d.id
	if d.state != nil && !d.state.Plan.Time.IsZero() {
		// The id is a key and keeps its UTC date (dispatch.NewID); when
		// the send was planned is said in the profile's zone beside it.
		title += " · planned " + d.state.Plan.Time.In(p.c.rules.Zone()).Format("2006-01-02 15:04")
	}
	if d.loading {
		title += " " + p.c.spin
	}
	lines := []string{st.Title.Render(p.c.text(title, iw))}
	if d.state != nil {
		for _, l := range p.detailSummary(d.state, iw) {
			lines = append(lines, st.Muted.Render(p.c.text(l, iw)))
		}
	} else {
		lines = append(lines, "", "", "")
	}
	nw, rw, ow, dw, mw, ew := detailColumns(iw)
	lines = append(lines, st.Header.Render(" "+fitRight("#", nw)+" "+fit("RECIPIENT", rw)+" "+fit("OUTCOME", ow)+" "+
		fit("DELIVERY", dw)+" "+fit("MESSAGE ID", mw)+" "+fit("ERROR", ew)))
	d.head = len(lines)
	if d.state != nil {
		d.clamp(len(d.state.Items), p.detailRows())
		for i := d.offset; i < len(d.state.Items) && i < d.offset+p.detailRows(); i++ {
			lines = append(lines, p.detailRow(i, iw))
		}
	}
	foot := p.detailFoot(iw)
	for len(lines) > ih-len(foot) {
		lines = lines[:len(lines)-1]
	}
	for len(lines) < ih-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// detailSummary is what the send was (its hold, schedule, sender, source
// and size: on two lines at most of width iw), then what became of its
// recipients, then of their messages.
func (p *historyPane) detailSummary(s *model.JournalState, iw int) []string {
	zone := p.c.session.Profile.Zone()
	what := []string{model.SanitizeLine(s.Plan.Sender), model.SanitizeLine(s.Plan.Source), model.Counted(len(s.Items), "recipient")}
	what[0] = "sender " + what[0]
	if s.Scheduled() { // who scheduled it, for when, and the runner that started it
		sched := "scheduled for " + s.Plan.ScheduledFor.In(zone).Format("2006-01-02 15:04")
		if s.Plan.Operator != nil {
			sched += " by " + model.SanitizeLine(s.Plan.Operator.Name)
		}
		if s.StartedBy != "" {
			sched += ", started by " + s.StartedBy
		}
		what = append([]string{sched}, what...)
	}
	if s.Cancel != nil {
		what = append([]string{cancelLine(s.Cancel)}, what...)
	}
	if hold := app.HoldText(s, zone); hold != "" {
		what = append([]string{hold}, what...)
	}
	if s.Damaged > 0 {
		what = append([]string{fmt.Sprintf("⚠ %d damaged journal line(s): their recipients are unknown", s.Damaged)}, what...)
	}
	delivery := "delivery: " + deliveryCounts(s.Items)
	switch c := s.Counts(); {
	case c.Accepted == 0 && c.Rejected+c.Failed+c.Unknown+c.Sending == 0:
		delivery = "delivery: none: nothing was sent"
	case c.Accepted == 0:
		delivery = "delivery: none: no message was accepted"
	case delivery == "delivery: ":
		delivery = "delivery: none reported"
	}
	lines := strings.Split(ansi.Wrap(strings.Join(what, " · "), iw, " "), "\n")
	return append(lines[:min(2, len(lines))], "outcome: "+outcomeCounts(s.Counts(), s.Cancel), delivery)
}

// detailRow is recipient i's row: its outcome and its delivery apart, in
// words.
func (p *historyPane) detailRow(i, iw int) string {
	st, d := p.c.styles, p.detail
	it := d.state.Items[i]
	nw, rw, ow, dw, mw, ew := detailColumns(iw)
	errText := it.Error
	if it.Code != "" {
		errText = it.Code + ": " + errText
	}
	mark := " "
	if i == d.cursor {
		mark = "›"
	}
	row := mark + fitRight(fmt.Sprint(it.Index+1), nw) + " " + fit(it.Recipient, rw) + " " +
		fit(outcomeWord(it.State, false, d.state.Cancel), ow) + " " + fit(deliveryWord(it.Delivery), dw) + " " +
		fit(it.MessageID, mw) + " " + p.c.text(errText, ew)
	switch {
	case i == d.cursor:
		return st.Selected.Render(row)
	case it.State == model.StateUnknown:
		return st.Warn.Render(row)
	case it.State == model.StateRejected || it.State == model.StateFailed:
		return st.Bad.Render(row)
	}
	return row
}

// detailFoot is the detail's last lines: an error whole (a refused resume
// says what to do at its end), up to three lines, or what F and R would
// do, up to two.
func (p *historyPane) detailFoot(iw int) []string {
	st, d := p.c.styles, p.detail
	switch {
	case d.err != "":
		foot := p.c.paragraphs("✗ "+d.err, iw, 0, nil)
		foot = foot[:min(3, len(foot))]
		for i, l := range foot {
			foot[i] = st.Error.Render(fit(strings.TrimRight(l, " "), iw))
		}
		return foot
	case d.running:
		return []string{st.Warn.Render(fit("this send is still running; resume is possible once it ends", iw))}
	case d.state != nil: // what F and R would do, whole: wrapped to two lines where one is too narrow
		hint := strings.Split(ansi.Wrap(p.resendHint()+p.resumeHint(), iw, " "), "\n")
		hint = hint[:min(2, len(hint))]
		for i, l := range hint {
			hint[i] = st.Muted.Render(fit(strings.TrimRight(l, " "), iw))
		}
		return hint
	}
	return []string{""}
}

// resendHint says what F would do, in the detail's words ("F resends the
// 2 not delivered · "; "F resends 2 of the 3 not delivered (not the
// rejected) · "), when it does anything (and the role may send).
func (p *historyPane) resendHint() string {
	d, k := p.detail, p.c.keys
	if !d.resendable() || len(p.c.forRole([]key.Binding{k.ResendFailed.Binding}, k.ResendFailed)) == 0 {
		return ""
	}
	failed, rejected := d.failedCount()
	key := k.ResendFailed.Help().Key
	if rejected == 0 {
		return fmt.Sprintf("%s resends the %d not delivered · ", key, failed)
	}
	return fmt.Sprintf("%s resends %d of the %d not delivered (not the rejected) · ", key, failed, failed+rejected)
}

// resumeHint says what R would do (or x, for a scheduled send).
func (p *historyPane) resumeHint() string {
	s := p.detail.state
	switch {
	case s.Waiting():
		return fmt.Sprintf("scheduled for %s (%s) · %s cancels it · esc back", model.AtText(s.Plan.ScheduledFor, p.c.session.Profile.Zone()),
			model.DueText(s.Plan.ScheduledFor, p.c.now()), p.c.keys.CancelScheduled.Help().Key)
	case s.Cancel != nil:
		return cancelLine(s.Cancel) + " before it started: nothing was sent, nothing to resume · esc back"
	}
	todo := len(s.ResumeIndexes(false))
	unknown := len(s.SortedIndexes(model.StateUnknown))
	switch {
	case todo == 0 && unknown == 0:
		return "nothing to resume: " + settledText(s) + " · esc back"
	case unknown == 0:
		return fmt.Sprintf("R resumes: %d certainly not sent · esc back", todo)
	}
	return fmt.Sprintf("R resumes: %d certainly not sent; %d unknown go only if you say so · esc back", todo, unknown)
}

// settledText says what became of a send with nothing left to resume:
// "every recipient was accepted", or the outcomes when some were not (the
// opted out: "297 accepted, 3 opted out").
func settledText(s *model.JournalState) string {
	c := s.Counts()
	if c.Accepted == len(s.Items) {
		return "every recipient was accepted"
	}
	return outcomeCounts(c, s.Cancel)
}

// resumable reports whether R does something on the opened send: it was
// read, is not running, waits for no time, was not cancelled or missed,
// and has recipients certainly not sent or unknown.
func (d *historyDetail) resumable() bool {
	s := d.state
	if s == nil || d.running || s.Waiting() || s.Cancel != nil {
		return false
	}
	return len(s.ResumeIndexes(false)) > 0 || len(s.SortedIndexes(model.StateUnknown)) > 0
}

// detailHelp lists the detail's keys: R only when it resumes something, x
// only on a send waiting for its time, F only when messages failed.
func (p *historyPane) detailHelp() []key.Binding {
	k, d := p.c.keys, p.detail
	keys := []key.Binding{k.Up, k.Down, k.Enter}
	if d.resendable() {
		keys = p.c.forRole(append(keys, k.ResendFailed.Binding), k.ResendFailed)
	}
	switch {
	case d.state != nil && d.state.Waiting():
		return p.c.forRole(append(keys, k.CancelScheduled.Binding, k.GoBack), k.CancelScheduled)
	case d.resumable():
		return p.c.forRole(append(keys, k.Resume.Binding, k.GoBack), k.Resume)
	}
	return append(keys, k.GoBack)
}
