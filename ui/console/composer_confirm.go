package console

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// sendPreparedMsg carries the plan it was asked for, prepared off the UI
// loop by the application layer (app.Session.PrepareSend: the facts the
// send rules weigh, the verdict, the refusal); Err is why it could not be
// checked at all.
type sendPreparedMsg struct {
	Plan    *model.SendPlan
	Pending *app.PendingSend
	Err     error
}

func (m sendPreparedMsg) failure() error { return m.Err }

// confirmSend checks the plan locally, then gathers the facts the send rules
// need; askToSend shows their verdict. Nothing is sent without a yes.
func (p *composerPane) confirmSend() tea.Cmd {
	p.LeaveField()
	p.later = nil
	plan, cmd, ok := p.ready()
	if !ok {
		return cmd
	}
	if p.looking { // the rows' marks may still change: check once they are known
		p.sendAfterLookup = true
		p.note = "looking the rows up on the opt-out list…"
		return nil
	}
	p.note = "checking the plan (credit, earlier sends)…"
	return p.prepare(plan, p.planSource(), false)
}

// ready is the plan when it may be asked about, to send now or at a time;
// else (ok false) the note says why not, or cmd asks for what it lacks (a
// sender line).
func (p *composerPane) ready() (plan *model.SendPlan, cmd tea.Cmd, ok bool) {
	plan = p.plan
	switch {
	case plan == nil || len(plan.Items) == 0:
		p.note = "✗ nothing to send: write a message (m), open a pairs CSV (o) or add rows (a)"
	case p.tmplErr != "":
		p.note = "✗ " + p.tmplErr
	case plan.Sender == "":
		return nil, p.askSender(), false
	case !plan.OK() && len(plan.Invalid()) > 0:
		// The rows rule is the application layer's, in the CLI's words;
		// the cursor goes to the first bad row.
		p.showFirstBad(plan)
		p.note = "✗ " + app.CheckRows(plan, p.planSource()).Error()
	case !plan.OK():
		p.note = "✗ the plan is not ready to send"
	default:
		return plan, nil, true
	}
	return nil, nil, false
}

// showFirstBad names the first bad row and puts the cursor on it.
func (p *composerPane) showFirstBad(plan *model.SendPlan) {
	bad := plan.Invalid()
	p.note = fmt.Sprintf("✗ %d rows have problems (first: row %d: %s); fix or remove them (x)",
		len(bad), bad[0].Index+1, strings.Join(bad[0].Problems, "; "))
	for i, it := range plan.Items {
		if len(it.Problems) > 0 {
			p.cursor = i
			p.clamp()
			return
		}
	}
}

// planSource names where the rows come from: the group (by name), the
// file, or rows typed by hand.
func (p *composerPane) planSource() app.Source {
	switch p.source {
	case sourceCSV:
		return app.FileSource(filepath.Base(p.csvPath)) // as the CLI names it: rows in pairs.csv
	case sourceTemplate:
		return app.GroupSource(p.group.ID, p.group.Name)
	}
	if p.reply != nil {
		return app.ReplySource(p.reply.MessageID)
	}
	return app.TypedSource()
}

// prepare asks the application layer to check the plan (the send rules
// and their facts: recent sends, credit), off the UI loop.
// ignoreQuiet sends through the profile's quiet hours (the operator said
// yes to the quiet-hours question).
func (p *composerPane) prepare(plan *model.SendPlan, src app.Source, ignoreQuiet bool) tea.Cmd {
	sess, ctx := p.c.session, p.c.ctx
	return owned(p.c.reads, func() tea.Msg {
		pending, err := sess.PrepareSend(ctx, app.SendRequest{Plan: plan, Source: src, IgnoreQuietHours: ignoreQuiet})
		return sendPreparedMsg{Plan: plan, Pending: pending, Err: err}
	})
}

// askToSend shows the application layer's verdict on the plan and, when it
// may go, asks with everything the operator must see first. Default
// answer: No.
func (p *composerPane) askToSend(msg sendPreparedMsg) tea.Cmd {
	if msg.Err != nil {
		p.note = "✗ " + p.c.refusalLine(msg.Err)
		return nil
	}
	if msg.Plan != p.plan {
		p.note = "the plan changed while it was checked: ctrl+s again"
		return nil
	}
	// The rules are the application layer's, as on the command line; a
	// repeat is the one refusal the console turns into a question (its yes
	// is the CLI's --allow-repeat).
	pending := msg.Pending
	refusal := pending.Refusal
	if !pending.At.IsZero() { // checked for a time: scheduled, not sent
		return p.askToSchedule(pending)
	}
	if refusal != nil && refusal.Rule == app.RuleQuietHours {
		return p.quietRefused(msg.Plan, pending.Source, refusal)
	}
	if refusal != nil && refusal.Rule != app.RuleRepeat {
		if refusal.Rule == app.RuleRows {
			p.showFirstBad(msg.Plan)
		}
		p.note = "✗ " + p.c.refusalLine(refusal)
		return nil
	}
	p.note = ""
	title := "Send these messages?"
	if refusal != nil {
		title = fmt.Sprintf("Send these messages? %d of them repeat an earlier send", pending.Verdict.RepeatedPairs())
		// The yes is to the sends the dialog names; one begun while it
		// shows is refused as the send starts (app.PendingSend.Start).
		pending = pending.AllowRepeats()
	}
	body := p.confirmBody(msg.Pending)
	dlg := newConfirm(p.c, title, body, func() tea.Cmd {
		return cmdOf(startSendMsg{Pending: pending})
	})
	if refusal == nil { // "send now", or t: at a time (a repeat is only ever sent now, on its own answer)
		dlg.other, dlg.onOther = &p.c.keys.SendAt, func() tea.Cmd { return p.askWhen(msg.Plan, msg.Pending.Source, "") }
	}
	dlg.pin = 1 // the one-line summary (and a repeat's warning) stays while the rest scrolls on a small screen
	if refusal != nil {
		dlg.pin += len(refusal.Details) + 2
		if p.c.repeatSafeWay(refusal) != "" {
			dlg.pin++
		}
		dlg.need = strconv.Itoa(msg.Pending.Verdict.RepeatedPairs()) // a repeat needs its own answer
	}
	return p.c.showModal(dlg)
}

// confirmBody is the send confirmation: who sends from where, to whom, parts
// by encoding, cost, credit, duration, the first messages in full, and every
// repeat.
func (p *composerPane) confirmBody(pending *app.PendingSend) string {
	columns := ""
	if p.source == sourceCSV && p.csvLayout.RecipientAt > 0 {
		columns = p.csvLayout.String()
	}
	return sendConfirmBody(p.c, pending, columns)
}

// sendConfirmBody is every console send's confirmation (the composer's,
// a resend's from the history): the summary and a repeat's question, the
// facts, the first messages in full; columns is how a pairs file's
// columns were read ("" for other rows).
func sendConfirmBody(c *common, pending *app.PendingSend, columns string) string {
	var b strings.Builder
	confirmHead(c, &b, pending)
	confirmFacts(c, &b, pending, columns)
	if sum := pending.Verdict.Summary; len(sum.Samples) > 0 {
		fmt.Fprintf(&b, "\nFirst %d of %d messages, as they will be sent:\n", len(sum.Samples), sum.Recipients)
		for _, it := range sum.Samples {
			fmt.Fprintf(&b, "→ %s (%d %s, %d part(s))\n", model.SanitizeLine(it.Recipient), it.Parts.Chars, it.Parts.Encoding, it.Parts.Parts)
			for _, l := range strings.Split(model.Sanitize(it.Message), "\n") {
				b.WriteString("    " + l + "\n") // wrapped, and laid out right to left when it is, by the dialog
			}
		}
	}
	b.WriteString("\nEach recipient gets only its own message.")
	return b.String()
}

// confirmHead is the confirmation's summary line, and a repeat's warning
// and question (pinned with it).
func confirmHead(c *common, b *strings.Builder, pending *app.PendingSend) {
	sum, refusal := pending.Verdict.Summary, pending.Refusal
	summary := fmt.Sprintf("%s recipients · %s", thousands(sum.Recipients), sum.PartsText())
	if cost := sum.CostText(); cost != "" {
		summary += " · " + cost
	}
	if sum.OptedOut > 0 {
		summary += fmt.Sprintf(" · %s opted out", thousands(sum.OptedOut))
	}
	fmt.Fprintf(b, "%s · sender %s\n", summary, model.SanitizeLine(sum.Sender))
	if refusal == nil {
		return
	}
	// A repeat: the CLI's words, then the question.
	for _, d := range refusal.Details {
		fmt.Fprintf(b, "⚠ %s\n", d)
	}
	fmt.Fprintf(b, "  %s\n", refusal.Reason)
	if safe := c.repeatSafeWay(refusal); safe != "" {
		fmt.Fprintf(b, "  %s\n", safe)
	}
	fmt.Fprintf(b, "  %s\n", repeatQuestion(pending.Verdict.RepeatedPairs()))
}

// confirmFacts are the confirmation's lines of who, from where, to whom,
// parts, credit, time and quiet hours.
func confirmFacts(c *common, b *strings.Builder, pending *app.PendingSend, columns string) {
	prof, sum := c.profile, pending.Verdict.Summary
	kind := " · " + prof.KeyKind + " key"
	if prof.KeyKind == "" {
		kind = "" // a key without sk_live_ or sk_test_ says nothing of its kind: nothing is said ("unknown kind of key")
	}
	fmt.Fprintf(b, "Profile:     %s on %s%s\n", model.SanitizeLine(prof.Name), model.SanitizeLine(c.host()), kind)
	fmt.Fprintf(b, "Source:      %s\n", model.SanitizeLine(pending.Source.Name))
	if columns != "" {
		fmt.Fprintf(b, "Columns:     %s\n", columns)
	}
	if r := pending.Resent(); r != nil {
		fmt.Fprintf(b, "Resend of:   send %s (%s)\n", r.Of, resentTaken(r))
		fmt.Fprintf(b, "Left out:    %s\n", r.LeftText())
	}
	fmt.Fprintf(b, "Sender line: %s\n", model.SanitizeLine(sum.Sender))
	for i, t := range pending.Line.KindTexts() { // the rules of its kind, and why
		label := "Rules:       "
		if i > 0 {
			label = "             "
		}
		fmt.Fprintf(b, "%s%s\n", label, model.SanitizeLine(t))
	}
	fmt.Fprintf(b, "Recipients:  %s\n", thousands(sum.Recipients))
	if len(pending.OptedOut) > 0 {
		fmt.Fprintf(b, "Opted out:   %s\n", model.SanitizeLine(model.OptedOutCount(pending.Plan.OptedOutRecipients(), app.OptedOutShown)))
	}
	if s := pending.Plan.Suffix; s != "" {
		fmt.Fprintf(b, "Suffix:      %s\n", app.SuffixText(s))
	}
	parts := sum.PartsText()
	if cost := sum.CostText(); cost != "" {
		parts += " · cost " + cost
	}
	fmt.Fprintf(b, "Parts:       %s\n", parts)
	switch credit := sum.CreditText(); {
	case credit != "":
		fmt.Fprintf(b, "Credit:      %s\n", credit)
	case pending.Note != "":
		fmt.Fprintf(b, "Credit:      %s\n", model.SanitizeLine(pending.Note))
	}
	fmt.Fprintf(b, "Time:        %s\n", sum.DurationText())
	if q := pending.QuietText(); pending.IgnoreQuietHours && q != "" { // the line's and the profile's as they hold now
		fmt.Fprintf(b, "⚠ Quiet:     sending through %s on purpose (recorded)\n", q)
	}
	if q := pending.Quiet; q != nil {
		fmt.Fprintf(b, "⚠ Quiet:     %s (resumed from history then)\n", q.Text(pending.Facts.Now))
	}
}
