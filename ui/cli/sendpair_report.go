package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// statusText is an item state as the CLI prints it.
func statusText(st model.ItemState) string {
	if st == model.StateQueued || st == "" {
		return "not_sent"
	}
	return string(st)
}

// showProgress prints progress on stderr until the run's events end: a bar
// with rate and ETA on a terminal, newline-ended lines on a pipe.
func (o *sendPairOptions) showProgress(run *app.Send) {
	tty := o.IO.ErrIsTerminal()
	total := len(run.ToSend())
	base := len(run.Items()) - total // settled by earlier runs (resume)
	p := &progress{w: o.IO.ProgressOut(), label: "sending", total: total, terminal: tty, now: o.f.Now}
	p.start = p.clock()
	for ev := range run.Events() {
		switch ev.Kind {
		case app.EventWait:
			printf(o.IO.ProgressOut(), clearLine(tty)+"waiting %s (%s)\n", ev.Wait.Round(time.Second).String(), ev.Reason) // raw stderr on a terminal
			p.drawn = false
		case app.EventLedgerWait: // a record waits for another writer of the ledger
			if !ev.Over {
				printf(o.IO.ProgressOut(), clearLine(tty)+"%s\n", ev.Reason)
				p.drawn = false
			}
		case app.EventItem:
			if !ev.Result.State.Final() || total == 0 {
				continue
			}
			p.update(max(0, ev.Done-base))
		case app.EventSent:
			p.finish()
		}
	}
	p.finish()
}

func clearLine(tty bool) string {
	if tty {
		return "\r\x1b[K"
	}
	return ""
}

// printResults prints a run's results: JSON, or a summary and the recipients
// that were not accepted, for people.
// interrupted: a signal stopped this run (not a refusal, not unknowns).
func (o *sendPairOptions) printResults(id string, results []model.SentItem, sum app.Summary, sender, source string, interrupted bool) error {
	resume := resumeHint(id, sum.Counts, sum.Interrupted)
	w := o.IO.Out
	var rows [][]string
	for i := 0; i < len(results); {
		r := results[i]
		// Items never sent are counted in the summary and picked up by
		// --resume; listing thousands of them would bury the ones that need
		// reading (rejected, failed, unknown).
		if r.State == model.StateAccepted || statusText(r.State) == "not_sent" {
			i++
			continue
		}
		// A run of recipients refused for one reason (a whole chunk refused)
		// is one row: a hundred identical lines hide the one that differs.
		j := i + 1
		for j < len(results) && results[j].State == r.State && results[j].Error == r.Error {
			j++
		}
		who := r.Recipient
		if n := j - i; n > 3 {
			who = fmt.Sprintf("%s … %s (%d recipients)", r.Recipient, results[j-1].Recipient, n)
		} else {
			j = i + 1
		}
		rows = append(rows, []string{who, statusText(r.State), r.Error})
		i = j
	}
	if len(rows) > 0 {
		if err := o.IO.table(w, []string{"RECIPIENT", "STATUS", "REASON"}, rows); err != nil {
			return err
		}
	}
	printSummary(w, id, sum.Counts, interrupted, sum.Stopped != "")
	if sum.Stopped != "" {
		printf(w, "Stopped: %s\n", stopText(sum))
	}
	if resume != "" {
		fmt.Fprintf(w, "To continue: %s\n", resume)
	}
	return nil
}

// stopText says in one line why a send stopped early and what to do first.
func stopText(sum app.Summary) string {
	what := app.StopWhy(sum.Stopped, sum.Cause) + ", and would refuse every later request too"
	switch sum.Cause {
	case app.StopUnreachable:
		what = sum.Stopped
	case app.StopUnknown:
		what = "paused: " + sum.Stopped
	case app.StopLedger: // the ledger failed, not the service
		what = "a write to the ledger failed (" + sum.Stopped + "), and the send stopped before its next chunk"
	case app.StopQuiet: // smsdesk's own rule held it; the service refused nothing
		return fmt.Sprintf("held at quiet hours (%s); the rest was not sent. %s, then resume; a running smsdesk serve or smsdesk scheduler goes on with it by itself.",
			sum.Stopped, upperFirst(sum.Cause.Todo()))
	}
	return fmt.Sprintf("%s; the rest was not sent. %s, then resume.", what, upperFirst(sum.Cause.Todo()))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// printSummary writes "Send ID: 118 accepted, 2 rejected, … (interrupted)":
// interrupted by a signal, or stopped (by a refusal that would repeat, or
// after unknown outcomes; a line saying why follows).
func printSummary(w io.Writer, id string, c model.StateCounts, interrupted, stopped bool) {
	printf(w, "Send %s: %s", id, countsText(c)) // a journal's id is read from a file
	switch {
	case interrupted:
		fmt.Fprint(w, " (interrupted)")
	case stopped:
		fmt.Fprint(w, " (stopped)")
	}
	fmt.Fprintln(w)
	if c.Unknown > 0 {
		printf(w, "%d recipient(s) may or may not have received their message: check before sending again (smsdesk history show %s).\n", c.Unknown, id)
	}
}

// countsText is "118 accepted, 2 rejected, 0 failed, 0 unknown, 0 not sent of 120".
func countsText(c model.StateCounts) string {
	s := fmt.Sprintf("%d accepted, %d rejected, %d failed, %d unknown, %d not sent of %d",
		c.Accepted, c.Rejected, c.Failed, c.Unknown, c.NotSent, c.Total)
	if c.OptedOut > 0 {
		s += fmt.Sprintf(" (%d opted out: not sent)", c.OptedOut)
	}
	if c.Delivered+c.Undelivered > 0 {
		s += fmt.Sprintf("; %d delivered, %d not delivered", c.Delivered, c.Undelivered)
	}
	return s
}

// resumeHint is the command that continues a send, when there is anything left
// that certainly did not go.
func resumeHint(id string, c model.StateCounts, interrupted bool) string {
	if c.NotSent+c.Failed > 0 || interrupted && c.Rejected > 0 {
		return "smsdesk send-pair --resume " + id
	}
	return ""
}

// sendExit maps a run's outcome to the exit status: 3 when any outcome is
// unknown; 130 when a signal stopped it (signalled); 4 when the service
// refused the key; 1 when anything was rejected, failed or not sent; else 0.
func sendExit(id string, sum app.Summary, runErr error, signalled bool) error {
	c := sum.Counts
	resume := "smsdesk send-pair --resume " + id
	switch {
	case c.Unknown > 0:
		// The safe ways first, as the repeat refusal names them: what was
		// never sent, then how to check the unknown ones, then the resend.
		hint := "check the unknown ones: smsdesk history show " + id + " lists them, and the provider's panel says whether they went; only then, on purpose: " +
			resume + " --include-unknown sends them again (as they first went, under the same Idempotency-Key)"
		if c.NotSent > 0 {
			hint = resume + " sends what was never sent (the unknown ones stay as they are); " + hint
		}
		return &ExitError{Code: ExitUnknown, Kind: "unknown_outcome", Hint: hint, SendID: id,
			Err: fmt.Errorf("send %s: %d recipient(s) with unknown outcome%s", id, c.Unknown, errSuffix(runErr))}
	case runErr != nil:
		return &ExitError{Code: ExitService, SendID: id, Err: fmt.Errorf("send %s stopped: %w", id, runErr)}
	case signalled && c.NotSent > 0:
		return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Hint: resume, SendID: id,
			Err: fmt.Errorf("send %s interrupted: %d accepted, %d not sent", id, c.Accepted, c.NotSent)}
	case sum.Cause == app.StopQuiet:
		return &ExitError{Code: ExitService, Kind: "held", Hint: "once they end: smsdesk send-pair --resume " + id, SendID: id,
			Err: fmt.Errorf("send %s held at quiet hours: %d accepted, %d not sent: %s", id, c.Accepted, c.NotSent, sum.Stopped)}
	case sum.Stopped != "":
		return stoppedError(id, sum)
	case c.Rejected+c.Failed+c.NotSent > 0:
		return &ExitError{Code: ExitService, Kind: "service", SendID: id, Err: fmt.Errorf("send %s: %d of %d recipient(s) not accepted (%d rejected, %d failed, %d not sent)",
			id, c.Rejected+c.Failed+c.NotSent, c.Total, c.Rejected, c.Failed, c.NotSent)}
	}
	return nil
}

// stoppedError is a send the service stopped with a refusal that would
// repeat: 4 for a refused key, else 1 (code credit for 402).
func stoppedError(id string, sum app.Summary) error {
	why := map[app.StopCause]string{app.StopUnreachable: "the service could not be reached"}[sum.Cause]
	if why == "" {
		why = "the service refused it (" + string(sum.Cause) + ")"
	}
	code, kind := ExitService, "service"
	switch sum.Cause {
	case app.StopKey:
		code, kind = ExitAuth, "auth"
	case app.StopCredit:
		kind = "credit"
	}
	return &ExitError{Code: code, Kind: kind, Hint: sum.Cause.Todo() + ", then: smsdesk send-pair --resume " + id, SendID: id,
		Err: fmt.Errorf("send %s stopped: %s", id, why)}
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return "; stopped: " + err.Error()
}

// printPlan prints a dry run: per recipient the normalised number, encoding and
// parts; then totals, cost, credit and time where known, and the first
// messages in full.
func (o *sendPairOptions) printPlan(p *app.PendingSend, s *app.Session) error {
	plan, sum := p.Plan, p.Verdict.Summary
	if o.JSON {
		return o.printSendJSON(planJSON(p, true), nil)
	}
	w := o.IO.Out
	cells := make([]string, 5)
	row := func(i int) []string {
		it := &plan.Items[i]
		msg := it.Message // whole on a pipe: nothing is cut there
		switch {
		case it.OptedOut:
			msg = "(opted out: not sent)"
		case o.IO.OutIsTerminal:
			msg = preview(msg, 40)
		}
		cells[0], cells[1], cells[2], cells[3], cells[4] = strconv.Itoa(it.Line), it.Recipient, string(it.Parts.Encoding), strconv.Itoa(it.Parts.Parts), msg
		return cells
	}
	if err := o.IO.tableOf(w, []string{"LINE", "RECIPIENT", "ENCODING", "PARTS", "MESSAGE"}, len(plan.Items), row); err != nil {
		return err
	}
	printf(w, "Dry run: %s, %s (%d GSM-7, %d UCS-2) from %s. Nothing was sent.\n",
		model.Counted(sum.Recipients, "recipient"), model.Counted(sum.Parts, "SMS part"), sum.GSM7Parts, sum.UCS2Parts, plan.Sender)
	if c := p.Resent(); c != nil {
		printf(w, "%s\n", resentText(c))
	}
	printRules(w, s, p)
	if c := sum.CostText(); c != "" {
		fmt.Fprintf(w, "Cost: %s\n", c)
	}
	if c := sum.CreditText(); c != "" {
		fmt.Fprintf(w, "Credit: %s\n", c)
	}
	printSamples(w, sum)
	return nil
}

// preview shortens a message for a table cell.
func preview(s string, n int) string {
	s = model.SanitizeLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// reportOutcome prints a journaled send's outcome as it is (a resume with
// nothing to send) and returns its exit status.
func (o *sendPairOptions) reportOutcome(out app.Outcome, sender, source string) error {
	id := out.Summary.JobID
	var err error
	if o.JSON {
		err = o.printSendJSON(runJSON(id, out.Results, out.Summary, sender, source, false), nil)
	} else {
		err = o.printResults(id, out.Results, out.Summary, sender, source, false)
	}
	if err != nil {
		return err
	}
	return sendExit(id, out.Summary, nil, false)
}
