package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// A new send on the command line: the flags gathered into one request,
// ui/app's answer (the pending send, with its refusal or question) shown,
// then asked (or --yes), then started or scheduled. The rules are ui/app's:
// nothing here decides whether the send may go.

// newSendRun plans, checks, confirms and sends (or schedules) a new
// paired send.
func newSendRun(ctx context.Context, o *sendPairOptions) error {
	s, err := o.sendSession(ctx)
	if err != nil {
		return err
	}
	p, err := o.prepare(ctx, s)
	if err != nil {
		return err
	}
	if done, err := o.answered(ctx, s, p); done {
		return err
	}
	printSendSummary(o.IO.ErrOut, s, p)
	if !p.At.IsZero() {
		return o.scheduleSend(ctx, s, p)
	}
	if err := o.confirmNew(p); err != nil {
		return err
	}
	o.rules = lineRulesJSON(p) // the report of the send says them too
	return o.runSend(ctx, s, o.startNew(p), planTotals(p))
}

// sendSession opens what the send needs: the profile's session with its
// key when it will ask the service (a group's contacts, a send; for --once,
// the account), else offline (a dry run), with the account known when a
// key is at hand: the opt-out list is the account's, so the plan leaves
// out who is on it.
func (o *sendPairOptions) sendSession(ctx context.Context) (*session, error) {
	if o.Group != "" || !o.DryRun || o.Once != "" {
		return o.f.session(ctx)
	}
	s, err := o.f.local()
	if err != nil {
		return nil, err
	}
	if s.BaseURL != "" {
		if key, _, err := o.f.secrets(s.Paths).Get(s.ProfileName); err == nil {
			s.App.Account = model.AccountID(s.BaseURL, key)
		}
	}
	return s, nil
}

// prepare hands the request to ui/app (app.Session.PrepareSend) and words
// what could not be read or planned with the flags that answer it.
func (o *sendPairOptions) prepare(ctx context.Context, s *session) (*app.PendingSend, error) {
	req, closeFile, err := o.sendRequest()
	if err != nil {
		return nil, err
	}
	p, err := s.App.PrepareSend(ctx, req)
	closeFile()
	return o.prepared(s, p, err)
}

// answered reports a pending send that goes no further: the same --once
// send run again (its report, nothing sent), a refusal (exit 2; a dry
// run's plan shown first inside quiet hours), a dry run's plan. done is
// false when the send is to be confirmed.
func (o *sendPairOptions) answered(ctx context.Context, s *session, p *app.PendingSend) (done bool, err error) {
	if r := p.Refusal; r != nil && r.Rule == app.RuleOnce && r.Once.SamePairs {
		return true, o.alreadySent(ctx, s, r) // the same send, run again: reported, nothing sent
	}
	if p.Note != "" {
		fmt.Fprintf(o.IO.ErrOut, "note: %s\n", p.Note)
	}
	if r := p.Refusal; r != nil && r.Rule == app.RuleQuietHours && o.DryRun && !o.JSON {
		// A dry run inside quiet hours is the operator preparing the
		// morning's send: the plan is whole, only its time is refused, so it
		// is shown, then the refusal (exit 2, as the send would be).
		if err := o.printPlan(p, s.App); err != nil {
			return true, err
		}
	}
	if err := o.refuse(p); err != nil {
		return true, err
	}
	if o.DryRun {
		return true, o.printPlan(p, s.App)
	}
	return false, nil
}

// confirmNew asks before a send now (unless --yes).
func (o *sendPairOptions) confirmNew(p *app.PendingSend) error {
	if o.Yes {
		return nil
	}
	n, parts := p.Verdict.Summary.Recipients, p.Verdict.Summary.Parts
	q := fmt.Sprintf("Send %s (%s) from %s to %s?", model.Counted(n, "message"), model.Counted(parts, "SMS part"), p.Plan.Sender, model.Counted(n, "recipient"))
	if c := p.Resent(); c != nil {
		q = fmt.Sprintf("Send %s (%s) from %s to %s, resending the failed of send %s?", model.Counted(n, "message"), model.Counted(parts, "SMS part"),
			p.Plan.Sender, model.Counted(n, "recipient"), c.Of)
	}
	ok, err := o.IO.Confirm(q, "--yes")
	if err != nil {
		return err
	}
	if !ok {
		return usageError("not sent: the answer was no")
	}
	return nil
}

// startNew starts p once confirmed. Start looks again for a send begun
// meanwhile (another cron run, another terminal), --allow-repeat or not:
// that flag covers the sends the check named.
func (o *sendPairOptions) startNew(p *app.PendingSend) func(context.Context) (*app.Send, error) {
	return func(ctx context.Context) (*app.Send, error) {
		x, err := p.Start(ctx, app.SendOptions{})
		var r *app.Refusal
		if errors.As(err, &r) && o.JSON && (r.Rule != app.RuleOnce || !r.Once.SamePairs) {
			// Refused as it starts (a send begun meanwhile): the plan's
			// report on stdout as for a refusal at the check, counts and
			// all; the error follows on stderr.
			if perr := o.printSendJSON(planJSON(p, false), r); perr != nil {
				return nil, perr
			}
		}
		return x, err
	}
}
