package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// send-pair --once ID: a send made at most once on the account. The rule
// and the ids are ui/app's (RuleOnce); here is how the command line answers
// a run whose id was used already. The same pairs are the same send run
// again (a cron job's re-run): its report, as history has it, and the exit
// status of where it stands: 0 when it is done, 2 while it runs, 3 with
// unknown outcomes, 1 with recipients left to --resume. Other pairs under
// the same id are a mistake: exit 2, nothing sent.

// printSendJSON prints send-pair's report with its once part: the --once
// id, and the send that used it before when refusal says so.
func (o *sendPairOptions) printSendJSON(out sendPairJSON, refusal *app.Refusal) error {
	if o.Once != "" {
		out.Once = &onceJSON{ID: o.Once}
		if refusal != nil && refusal.Rule == app.RuleOnce {
			id := refusal.Once.SendID
			out.Once.EarlierSend = &id
		}
	}
	return printJSON(o.IO.Out, out)
}

// alreadySent reports the send made before with this once-only id and the
// same pairs, and returns the exit status of where it stands. Nothing is
// sent.
func (o *sendPairOptions) alreadySent(ctx context.Context, s *session, r *app.Refusal) error {
	c := r.Once
	e, err := s.App.ReadSend(ctx, c.SendID)
	if err != nil {
		return onceUnread(r, err)
	}
	out := app.OutcomeOf(e.State)
	sender, source := e.State.Plan.Sender, e.State.Plan.Source
	if st := e.State; st.Waiting() && !e.Running {
		return o.alreadyScheduled(s, r, st)
	}
	if o.JSON {
		if err := o.printSendJSON(runJSON(c.SendID, out.Results, out.Summary, sender, source, false), r); err != nil {
			return err
		}
	} else if err := o.printResults(c.SendID, out.Results, out.Summary, sender, source, false); err != nil {
		return err
	}
	if err := onceUnfinished(r, e, out); err != nil {
		return err
	}
	printf(o.IO.ErrOut, "%s\n", upperFirst(r.Reason)) // "Already sent as send …"
	return nil
}

// onceUnread is the exit of a once-only id whose send does not read (err):
// one starting in another smsdesk, one that stopped before it began, or a
// journal that does not read.
func onceUnread(r *app.Refusal, err error) error {
	c := r.Once
	switch {
	case app.IsNoSuchSend(err) && c.Running:
		// Another run took the id a moment ago and is starting the send:
		// its plan, the send's first record, is not written yet.
		return &ExitError{Code: ExitUsage, Kind: "running", SendID: c.SendID,
			Err:  fmt.Errorf("send %s (once-only id %q) is starting in another smsdesk; nothing more was sent", c.SendID, c.ID),
			Hint: fmt.Sprintf("let it end (smsdesk history show %s); what it leaves not sent goes with smsdesk send-pair --resume %s", c.SendID, c.SendID)}
	case app.IsNoSuchSend(err):
		return &ExitError{Code: ExitUsage, Kind: "usage", SendID: c.SendID,
			Err:  fmt.Errorf("once-only id %q was taken by send %s, whose run stopped before it began: nothing of it was sent, and nothing more was sent now", c.ID, c.SendID),
			Hint: "give this send another --once id"}
	}
	return &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf("%s, but its journal does not read: %w", r.Reason, err),
		Hint: "check it: smsdesk history show " + c.SendID}
}

// onceUnfinished is the exit of a once-only id whose send e (with its
// outcome out) is not done: cancelled, still running, with outcomes
// unknown, or with what was not sent to resume; nil when it is done.
func onceUnfinished(r *app.Refusal, e app.HistoryEntry, out app.Outcome) error {
	c := r.Once
	counts, id, st := out.Summary.Counts, c.SendID, e.State
	switch {
	case st.Cancelled():
		// Cancelling frees the id (app.Session.CancelScheduled); one
		// cancelled before it did is still taken.
		return &ExitError{Code: ExitUsage, Kind: "usage", SendID: id,
			Err:  fmt.Errorf("send %s (once-only id %q) was cancelled before its time: nothing of it was sent, and a cancelled send is not resumed", id, c.ID),
			Hint: "give this send another --once id"}
	case e.Running || c.Running:
		return &ExitError{Code: ExitUsage, Kind: "running", Err: fmt.Errorf("send %s (once-only id %q) is still running; nothing more was sent", id, c.ID),
			Hint: fmt.Sprintf("let it end (smsdesk history show %s); what it leaves not sent goes with smsdesk send-pair --resume %s", id, id)}
	case counts.Unknown > 0:
		return &ExitError{Code: ExitUnknown, Kind: "unknown_outcome",
			Err:  fmt.Errorf("send %s (once-only id %q) is unfinished: %d recipient(s) with unknown outcome; nothing more was sent", id, c.ID, counts.Unknown),
			Hint: fmt.Sprintf("smsdesk history show %s; what certainly did not go: smsdesk send-pair --resume %s", id, id)}
	case resumeHint(id, counts, out.Summary.Interrupted) != "":
		return &ExitError{Code: ExitService, Kind: "service",
			Err:  fmt.Errorf("send %s (once-only id %q) is unfinished: %d not sent, %d failed; nothing more was sent", id, c.ID, counts.NotSent, counts.Failed),
			Hint: "to finish it: smsdesk send-pair --resume " + id}
	}
	return nil
}

// alreadyScheduled reports a once-only id whose send is scheduled and
// waiting for its time: the send is as the line that scheduled it asked (a
// cron line run again), so it exits 0 and says what scheduling said, not
// the results of a send that has not begun, nor "unfinished: --resume",
// which is refused before its time.
func (o *sendPairOptions) alreadyScheduled(s *session, r *app.Refusal, st *model.JournalState) error {
	id, zone, at := r.Once.SendID, s.App.Profile.Zone(), st.Plan.ScheduledFor
	if o.JSON {
		counts := st.Counts()
		if err := printJSON(o.IO.Out, scheduledJSON{ID: id, Time: at.In(zone).Format(time.RFC3339), Status: "scheduled",
			Sender: st.Plan.Sender, Source: st.Plan.Source, Counts: &counts, ScheduledBy: st.Plan.Operator}); err != nil {
			return err
		}
	} else {
		printf(o.IO.Out, "scheduled for %s (%s) as send %s; it runs while smsdesk serve or smsdesk scheduler runs\n",
			model.AtText(at, zone), model.DueText(at, o.f.now()), id)
	}
	printf(o.IO.ErrOut, "Already scheduled as send %s (once-only id %q) for %s (%s): nothing more was sent or scheduled; to send it now instead: smsdesk history cancel %s, then run again\n",
		id, r.Once.ID, model.AtText(at, zone), model.DueText(at, o.f.now()), id)
	return nil
}
