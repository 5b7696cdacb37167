package console

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Scheduling from the console: the send's confirmation offers t, "send at
// a time…"; the time asked is read by the application layer (the CLI's
// --at, in the profile's timezone), the plan checked again for that time,
// and a second confirmation schedules it. A runner (smsdesk serve, or
// smsdesk scheduler) starts it then; the history lists it first and x
// cancels it.

// scheduledMsg answers scheduling a confirmed send, off the UI loop.
type scheduledMsg struct {
	Scheduled *app.Scheduled
	Err       error
}

func (m scheduledMsg) failure() error { return m.Err }

// askWhen asks when to send the plan instead of now.
func (p *composerPane) askWhen(plan *model.SendPlan, src app.Source) tea.Cmd {
	zone := p.c.rules.Zone()
	day := timeExampleDay(p.c.now(), zone)
	return p.c.showModal(newForm(p.c, "Send at a time",
		fmt.Sprintf("08:00 (the next), %s 08:00 or +30m, in %s.", day, zone),
		func(v []string) (tea.Cmd, error) {
			// The form says at once what does not read as a time (it stays
			// open), under the rules as last read (rules.go); the request
			// carries the time as written, and the application layer reads
			// and checks it with every other rule as they are then.
			at, err := p.c.session.ScheduleAtIn(p.c.rules, v[0], false) // no file, no request
			if err != nil {
				return nil, errors.New(p.c.refusalLine(err))
			}
			p.note = "checking the plan for " + model.AtText(at, zone) + "…"
			return p.prepareAt(plan, src, v[0]), nil
		},
		textField("At", "08:00 · "+day+" 08:00 · +30m", 40, required("a time")),
	))
}

// timeExampleDay is the day the time form's example names: tomorrow in the
// profile's zone, a day to come whenever the form is opened (a fixed date
// in it had passed: issue 40 item 18).
func timeExampleDay(now time.Time, zone *time.Location) string {
	return now.In(zone).AddDate(0, 0, 1).Format("2006-01-02")
}

// prepareAt checks the plan again for a start at the time the operator
// wrote (at), off the UI loop: the request is the CLI's send-pair --at.
func (p *composerPane) prepareAt(plan *model.SendPlan, src app.Source, at string) tea.Cmd {
	sess, ctx := p.c.session, p.c.ctx
	return func() tea.Msg {
		pending, err := sess.PrepareSend(ctx, app.SendRequest{Plan: plan, Source: src, AtText: at})
		return sendPreparedMsg{Plan: plan, Pending: pending, Err: err}
	}
}

// askToSchedule asks before scheduling a plan checked for its time (a
// refusal, a repeat too, is shown and nothing is scheduled).
func (p *composerPane) askToSchedule(pending *app.PendingSend) tea.Cmd {
	if r := pending.Refusal; r != nil {
		p.note = "✗ " + p.c.refusalLine(r)
		return nil
	}
	p.note = "" // said in the question; declining leaves no "checking…"
	zone := p.c.rules.Zone()
	when := fmt.Sprintf("%s (%s)", model.AtText(pending.At, zone), model.DueText(pending.At, p.c.now()))
	body := "When:        " + when + "\n             it runs while smsdesk serve or smsdesk scheduler runs\n" + p.confirmBody(pending)
	dlg := newConfirm(p.c, "Schedule these messages for "+when+"?", body, func() tea.Cmd {
		ctx := p.c.ctx
		return func() tea.Msg {
			sc, err := pending.Schedule(ctx)
			return scheduledMsg{Scheduled: sc, Err: err}
		}
	})
	dlg.pin = 2
	return p.c.showModal(dlg)
}

// scheduled says where the scheduled send stands.
func (p *composerPane) scheduled(msg scheduledMsg) tea.Cmd {
	if msg.Err != nil {
		p.note = "✗ nothing scheduled: " + p.c.refusalLine(msg.Err)
		return nil
	}
	sc := msg.Scheduled
	p.markSent(sc.ID) // it is the scheduled send's now: quitting does not ask to keep it
	text := fmt.Sprintf("scheduled for %s (%s) as send %s; it runs while smsdesk serve or smsdesk scheduler runs",
		model.AtText(sc.At, p.c.rules.Zone()), model.DueText(sc.At, p.c.now()), sc.ID)
	p.note = strings.TrimSpace(text)
	return cmdOf(statusMsg{Text: text})
}
