package console

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
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

// askWhen asks when to send the plan instead of now; fill is the time
// filled in ("": none).
func (p *composerPane) askWhen(plan *model.SendPlan, src app.Source, fill string) tea.Cmd {
	zone := p.c.rules.Zone()
	day := timeExampleDay(p.c.now(), zone)
	hint := fmt.Sprintf("08:00 (the next), %s 08:00 or +30m, in %s.", day, zone)
	if fill != "" {
		hint = "Quiet hours end at " + fill + ": filled in; enter asks to schedule the send then. Or " + hint
	}
	f := newForm(p.c, "Send at a time", hint,
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
	)
	f.fields[0].input.SetValue(fill)
	return p.c.showModal(f)
}

// quietRefused shows a refusal at quiet hours of a new send and offers t,
// the time form with their end filled in (issue 40 item 2: a sender was
// offered no way on but ctrl+s later, an admin only the question's yes):
// a sender reads the refusal in the note, with t for the way on, an
// admin first gets the question "Send inside quiet hours?", whose t
// does the same. Roles still apply at each yes (app.PendingSend).
func (p *composerPane) quietRefused(plan *model.SendPlan, src app.Source, refusal *app.Refusal) tea.Cmd {
	p.note = "✗ " + p.c.refusalLine(refusal)
	p.offerLater(refusal)
	if !p.c.session.May(app.ActionIgnoreQuietHours) {
		return nil
	}
	// The console's --ignore-quiet-hours: asked first (default No), then
	// planned again through them and confirmed as any send is.
	dlg := newConfirm(p.c, "Send inside quiet hours?",
		p.c.refusalLine(refusal)+"\n\nOperators fine or block a line that sends advertising now. Sending anyway is recorded in the journal and the audit trail, with who said so.",
		func() tea.Cmd {
			p.note = "checking the plan (credit, earlier sends)…"
			return p.prepare(plan, src, true)
		})
	dlg.onNo = func() tea.Cmd { // no yes below any more: the ways on that stay
		p.note = "✗ " + model.SanitizeLine(refusal.Reason+" → "+p.c.quietLater(refusal))
		return nil
	}
	if p.later != nil {
		k := p.laterKey()
		dlg.other, dlg.onOther = &k, func() tea.Cmd { return p.askWhen(plan, src, quietEnd(p.later)) }
	}
	return p.c.showModal(dlg)
}

// offerLater keeps the quiet hours a new send was refused at (at its
// question or at its start): t is offered, filling in their end as the
// rules hold it when it is pressed; other refusals offer nothing.
func (p *composerPane) offerLater(r *app.Refusal) {
	p.later = nil
	if r.Rule == app.RuleQuietHours && r.SendID == "" && r.At.IsZero() && r.Quiet != nil {
		p.later = r.Quiet
	}
}

// laterKey is t as the composer offers it after a quiet-hours refusal.
func (p *composerPane) laterKey() key.Binding {
	k := p.c.keys.SendAt
	if w := p.quietNow(); w != nil {
		k.SetHelp(k.Help().Key, "send later ("+w.UntilText(p.c.now())+" filled in)")
	}
	return k
}

// quietNow is the quiet window now is inside, as the rules hold it now
// (rules.go: a config set since the refusal moved its end), or nil.
func (p *composerPane) quietNow() *app.QuietWindow {
	now := p.c.now()
	if w := p.c.rules.QuietSoon(now); w != nil && !now.Before(w.Start) {
		return w
	}
	return nil
}

// sendLater opens the time form for the plan, the end of the quiet hours
// now is inside filled in (t after a quiet-hours refusal).
func (p *composerPane) sendLater() tea.Cmd {
	plan, cmd, ok := p.ready()
	if !ok {
		return cmd
	}
	fill := ""
	if w := p.quietNow(); w != nil {
		fill = quietEnd(w)
	}
	return p.askWhen(plan, p.planSource(), fill)
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
	p.later = nil
	text := fmt.Sprintf("scheduled for %s (%s) as send %s; it runs while smsdesk serve or smsdesk scheduler runs",
		model.AtText(sc.At, p.c.rules.Zone()), model.DueText(sc.At, p.c.now()), sc.ID)
	p.note = strings.TrimSpace(text)
	return cmdOf(statusMsg{Text: text})
}
