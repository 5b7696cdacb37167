package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// scheduledJSON is send-pair --at's --json: the send's id, its time (RFC
// 3339 with the profile's offset) and status "scheduled", with the plan's
// counts and figures.
type scheduledJSON struct {
	ID          string             `json:"id"`
	Time        string             `json:"time"`
	Status      string             `json:"status"`
	Sender      string             `json:"sender"`
	Source      string             `json:"source"`
	Counts      *model.StateCounts `json:"counts"`
	Totals      *planTotalsJSON    `json:"totals"`
	ScheduledBy *model.Operator    `json:"scheduled_by"` // null at a local terminal
}

// scheduleSend asks (or --yes), then schedules the checked send p for its
// time: nothing is sent now.
func (o *sendPairOptions) scheduleSend(ctx context.Context, s *session, p *app.PendingSend) error {
	zone := s.App.Profile.Zone()
	plan := p.Plan
	n, parts := len(plan.Items)-len(plan.OptedOutRecipients()), plan.TotalParts()
	when := fmt.Sprintf("%s (%s)", model.AtText(p.At, zone), model.DueText(p.At, o.f.now()))
	if !o.Yes {
		q := fmt.Sprintf("Schedule %s (%s) from %s to %s for %s?", model.Counted(n, "message"), model.Counted(parts, "SMS part"), plan.Sender, model.Counted(n, "recipient"), when)
		ok, err := o.IO.Confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not scheduled: the answer was no")
		}
	}
	sc, err := p.Schedule(ctx)
	if err != nil {
		return refused(err)
	}
	if o.JSON {
		out := planJSON(p, false)
		return printJSON(o.IO.Out, scheduledJSON{ID: sc.ID, Time: sc.At.In(zone).Format(time.RFC3339), Status: "scheduled",
			Sender: plan.Sender, Source: p.Source.Name, Counts: out.Counts, Totals: out.Totals, ScheduledBy: s.App.Operator})
	}
	printf(o.IO.Out, "scheduled for %s (%s) as send %s; it runs while smsdesk serve or smsdesk scheduler runs\n",
		model.AtText(sc.At, zone), model.DueText(sc.At, o.f.now()), sc.ID)
	printf(o.IO.ErrOut, "smsdesk history lists it; smsdesk history cancel %s cancels it before its time.\n", sc.ID)
	return nil
}
