package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// errNothingLeft: another run finished the send while the question was
// asked; its outcome is reported as it is now.
type errNothingLeft struct {
	outcome        app.Outcome
	sender, source string
}

func (errNothingLeft) Error() string { return "nothing left to send" }

// runSend starts a send (start is a new send or a resume; totals the new
// send's plan in figures, nil for a resume) with progress on stderr;
// SIGINT, SIGTERM or SIGHUP stop it after the chunk in flight. It prints
// the results and returns the exit status.
func (o *sendPairOptions) runSend(parent context.Context, s *session, start func(context.Context) (*app.Send, error), totals *planTotalsJSON) error {
	// SIGHUP (an SSH session dropped) is a stop like SIGTERM: the chunk in
	// flight finishes and is journaled; it used to kill the process mid-chunk
	// and leave that chunk unknown.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	x, err := start(ctx)
	if err != nil {
		return o.notStarted(ctx, s, err)
	}
	// The watch is owned: it ends before runSend writes its results (and
	// before its deferred stop, which would read as a signal to it).
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			select {
			case <-x.Done():
				return // the run ended as the signal came: nothing to stop
			default:
			}
			if parent.Err() == nil {
				fmt.Fprintln(o.IO.ErrOut, "\nstopping after the chunk in flight… (press ctrl+c again to quit at once; that chunk would then be unknown)")
			}
			stop() // a second signal ends the process
		case <-x.Done():
		}
	}()
	o.showProgress(x)
	out, runErr := x.Finish()
	<-watched
	if out.ReadBack != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: the send's journal could not be read back (%s); the results below are the run's own\n", cleanError(out.ReadBack))
	}
	// Interrupted is the caller's stop (a signal; a cancelled context in
	// tests) that left items unsent; the engine's own early stops are
	// Stopped, with their cause.
	interrupted := ctx.Err() != nil && out.Summary.Interrupted && out.Summary.Stopped == ""
	if err := o.printRun(x, out, interrupted, totals); err != nil {
		return err
	}
	if hint := senderRefusedHint(out.Results, s); hint != "" {
		fmt.Fprintln(o.IO.ErrOut, hint)
	}
	return sendExit(x.ID(), out.Summary, runErr, ctx.Err() != nil && parent.Err() == nil)
}

// notStarted answers a send that did not start: another run finished it
// (its outcome), another run with the same --once id started first (its
// report), or a refusal.
func (o *sendPairOptions) notStarted(ctx context.Context, s *session, err error) error {
	var nothing errNothingLeft
	if errors.As(err, &nothing) {
		return o.reportOutcome(nothing.outcome, nothing.sender, nothing.source)
	}
	var once *app.Refusal
	if errors.As(err, &once) && once.Rule == app.RuleOnce && once.Once.SamePairs {
		return o.alreadySent(ctx, s, once) // another run with the id started first
	}
	return refused(err)
}

// printRun prints a run's results: send-pair's JSON (with the plan's
// figures for a new send), or for people.
func (o *sendPairOptions) printRun(x *app.Send, out app.Outcome, interrupted bool, totals *planTotalsJSON) error {
	if !o.JSON {
		return o.printResults(x.ID(), out.Results, out.Summary, x.Sender(), x.Source(), interrupted)
	}
	j := runJSON(x.ID(), out.Results, out.Summary, x.Sender(), x.Source(), interrupted)
	j.Totals = totals // the plan's parts and cost: what the send was to cost
	j.ResendOf = nullable(o.ResendFailed)
	j.Rules = o.rules
	return o.printSendJSON(j, nil)
}

// senderRefusedHint explains a 403 sender_not_allowed: which lines the profile
// knows, and how to record the account's lines.
func senderRefusedHint(results []model.SentItem, s *session) string {
	for _, r := range results {
		if r.Code != "sender_not_allowed" {
			continue
		}
		if len(s.Profile.Senders) == 0 {
			return fmt.Sprintf("→ the service refused the sender line. Profile %s lists no lines of the account; record them with `smsdesk config set senders LINE1,LINE2`.", s.ProfileName)
		}
		return fmt.Sprintf("→ the service refused the sender line. Lines profile %s knows: %s.", s.ProfileName, strings.Join(s.Profile.Senders, ", "))
	}
	return ""
}
