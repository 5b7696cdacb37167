package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// send-pair --resume ID: the rest of a journaled send, as ui/app finds it
// (app.Session.PrepareResume: what is left, what is unknown, what other
// sends took), said before the question; nothing whose outcome is unknown
// goes again without --include-unknown.

// resumeRun continues a journaled send.
func resumeRun(ctx context.Context, o *sendPairOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	r, err := s.App.PrepareResume(ctx, o.Resume, app.ResumeOptions{IncludeUnknown: o.IncludeUnknown, AnyBaseURL: o.AnyBaseURL, AllowRepeat: o.AllowRepeat,
		IgnoreQuietHours: o.IgnoreQuietHours})
	if err != nil {
		return refused(err)
	}
	o.sayResume(r)
	if o.DryRun {
		return o.printResumePlan(r)
	}
	if len(r.Todo) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "Nothing to send: every recipient of send %s was accepted, or its outcome is unknown.\n", o.Resume)
		return o.reportOutcome(app.OutcomeOf(r.State), r.State.Plan.Sender, r.State.Plan.Source)
	}
	fmt.Fprintf(o.IO.ErrOut, "Time: %s\n", r.Time) // as a new send's summary says it
	if err := o.confirmResume(r); err != nil {
		return err
	}
	return o.runSend(ctx, s, o.startResume(r), nil)
}

// sayResume says, on stderr, what the resume found before it asks: who was
// opted out since, a damaged journal, the unknown ones and whether they go
// again, and how.
func (o *sendPairOptions) sayResume(r *app.Resume) {
	if len(r.OptedOut) > 0 {
		var who []string
		for _, ix := range r.OptedOut {
			if it, ok := r.State.Item(ix); ok {
				who = append(who, it.Recipient)
			}
		}
		printf(o.IO.ErrOut, "%s: put on the opt-out list since send %s was planned\n", model.OptedOutCount(who, app.OptedOutShown), o.Resume)
	}
	if r.Damage != "" {
		fmt.Fprintf(o.IO.ErrOut, "Warning: send %s: %s.\n", o.Resume, r.Damage)
	}
	if len(r.Unknown) > 0 {
		o.sayUnknown(r)
	}
	if o.IncludeUnknown && len(r.Unknown) > 0 {
		o.printAgain(r)
	}
}

// sayUnknown lists the recipients whose outcome is unknown (the first 20)
// and says whether they go again.
func (o *sendPairOptions) sayUnknown(r *app.Resume) {
	verb := "will NOT be sent again (pass --include-unknown to send them again)"
	if o.IncludeUnknown {
		verb = "WILL be sent again: some may already have gone"
	}
	fmt.Fprintf(o.IO.ErrOut, "%d recipient(s) of send %s have an unknown outcome and %s:\n", len(r.Unknown), o.Resume, verb)
	for i, ix := range r.Unknown {
		if i == 20 {
			fmt.Fprintf(o.IO.ErrOut, "  … and %d more (smsdesk history show %s)\n", len(r.Unknown)-20, o.Resume)
			break
		}
		it, _ := r.State.Item(ix)
		printf(o.IO.ErrOut, "  %s\n", it.Recipient)
	}
}

// confirmResume asks before the rest goes (unless --yes).
func (o *sendPairOptions) confirmResume(r *app.Resume) error {
	if o.Yes {
		return nil
	}
	q := fmt.Sprintf("Send %s (%s) from %s to %s (resuming send %s)?",
		model.Counted(len(r.Todo), "message"), model.Counted(r.Parts, "SMS part"), r.State.Plan.Sender, model.Counted(len(r.Todo), "recipient"), o.Resume)
	ok, err := o.IO.Confirm(q, "--yes")
	if err != nil {
		return err
	}
	if !ok {
		return usageError("not sent: the answer was no")
	}
	return nil
}

// startResume starts the confirmed resume; another run may have settled
// some of its recipients, or all, meanwhile.
func (o *sendPairOptions) startResume(r *app.Resume) func(context.Context) (*app.Send, error) {
	return func(ctx context.Context) (*app.Send, error) {
		x, gone, err := r.Start(ctx, app.SendOptions{ChunkSize: o.ChunkSize})
		if gone > 0 {
			fmt.Fprintf(o.IO.ErrOut, "%d of the %d recipients were settled by another run of send %s meanwhile; they are not sent again.\n", gone, len(r.Todo), o.Resume)
		}
		var ref *app.Refusal
		if errors.As(err, &ref) && ref.Rule == app.RuleNothing {
			fmt.Fprintf(o.IO.ErrOut, "Nothing left to send: another run of send %s finished it.\n", o.Resume)
			return nil, errNothingLeft{app.OutcomeOf(r.State), r.State.Plan.Sender, r.State.Plan.Source}
		}
		return x, err
	}
}

// printAgain says, before anything is sent, how the unknown items go again:
// as they first went (same chunk, same items and order, same
// Idempotency-Key), or, where that cannot be, in new chunks under new keys.
func (o *sendPairOptions) printAgain(r *app.Resume) {
	if r.AsFirstSent > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%d of them go again as they first went (their whole chunk, in the same order, under the same Idempotency-Key): a service that honours the key drops the copy of what it took.\n", r.AsFirstSent)
	}
	if n := r.ApartCount(); n > 0 {
		fmt.Fprintf(o.IO.ErrOut, "! %d of them cannot go again as they first went; they would go in new chunks under new keys, where a copy cannot be caught:\n", n)
		for _, u := range r.Apart {
			printf(o.IO.ErrOut, "  %d recipient(s): %s\n", len(u.Unknown), u.Why)
		}
	}
}

// resumePlanJSON is send-pair --resume ID --dry-run --json.
type resumePlanJSON struct {
	ID        string `json:"id"`
	Sender    string `json:"sender"`
	WouldSend int    `json:"would_send"`
	Parts     int    `json:"parts"`
	Unknown   int    `json:"unknown"`
	// UnknownIncluded: the unknown ones are among would_send (--include-unknown).
	UnknownIncluded bool              `json:"unknown_included"`
	Counts          model.StateCounts `json:"counts"`
}

// printResumePlan says what a resume would send, and sends nothing.
func (o *sendPairOptions) printResumePlan(r *app.Resume) error {
	if o.JSON {
		return printJSON(o.IO.Out, resumePlanJSON{ID: r.ID, Sender: r.State.Plan.Sender, WouldSend: len(r.Todo), Parts: r.Parts,
			Unknown: len(r.Unknown), UnknownIncluded: r.IncludesUnknown(), Counts: r.State.Counts()})
	}
	printf(o.IO.Out, "Dry run: resuming send %s would send %d messages (%d SMS parts) from %s; %d unknown %s. Nothing was sent.\n",
		r.ID, len(r.Todo), r.Parts, r.State.Plan.Sender, len(r.Unknown),
		map[bool]string{true: "included", false: "left out"}[r.IncludesUnknown()])
	return nil
}
