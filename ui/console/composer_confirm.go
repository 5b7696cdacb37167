package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// creditTimeout bounds the credit look-up before a send; a slow answer only
// leaves the credit unknown.
const creditTimeout = 5 * time.Second

// sendFactsMsg carries what the send rules weigh besides the plan (the
// profile's lines and prices, this profile's recent sends, the account's
// credit), gathered off the UI loop for the plan it was asked for.
type sendFactsMsg struct {
	Plan   *model.SendPlan
	Source string
	Facts  model.SendFacts
	Note   string // why a fact is missing (credit unknown), for the dialog
	Err    error
}

func (m sendFactsMsg) failure() error { return m.Err }

// confirmSend checks the plan locally, then gathers the facts the send rules
// need; askToSend shows their verdict. Nothing is sent without a yes.
func (p *composerPane) confirmSend() tea.Cmd {
	p.LeaveField()
	plan := p.plan
	switch {
	case plan == nil || len(plan.Items) == 0:
		p.note = "✗ nothing to send: write a message (m), open a pairs CSV (o) or add rows (a)"
		return nil
	case p.tmplErr != "":
		p.note = "✗ " + p.tmplErr
		return nil
	case plan.Sender == "":
		return p.askSender()
	case !plan.OK() && len(plan.Invalid()) > 0:
		p.showFirstBad(plan)
		return nil
	case !plan.OK():
		p.note = "✗ the plan is not ready to send"
		return nil
	}
	p.note = "checking the plan (credit, earlier sends)…"
	return p.gatherFacts(plan, p.sourceLine())
}

// showFirstBad names the first bad row and puts the cursor on it.
func (p *composerPane) showFirstBad(plan *model.SendPlan) {
	bad := plan.Invalid()
	p.note = fmt.Sprintf("✗ %d rows have problems (first: row %d: %s); fix or remove them (x)",
		len(bad), bad[0].Index+1, model.SanitizeLine(strings.Join(bad[0].Problems, "; ")))
	for i, it := range plan.Items {
		if len(it.Problems) > 0 {
			p.cursor = i
			p.clamp()
			return
		}
	}
}

// sourceLine names where the rows come from: the group (by name), the file,
// or rows typed by hand.
func (p *composerPane) sourceLine() string {
	switch p.source {
	case sourceCSV:
		return "file " + p.csvPath
	case sourceTemplate:
		return fmt.Sprintf("group %s (%s)", p.group.Name, p.group.ID)
	}
	return p.source.String()
}

// gatherFacts reads the profile's recent sends and asks the service for the
// account's credit, off the UI loop.
func (p *composerPane) gatherFacts(plan *model.SendPlan, source string) tea.Cmd {
	prof, cl, paths, now := p.c.profile, p.c.client, p.c.opts.Paths, p.c.now()
	ctx := p.c.ctx
	return func() tea.Msg {
		f := model.SendFacts{
			Profile: prof.Name, Lines: model.KnownLines(prof.Senders, prof.Sender), Prices: prof.Prices,
			RatePerMinute: firstPositive(prof.RatePerMinute, config.DefaultRatePerMinute),
			ChunkSize:     firstPositive(prof.ChunkSize, config.DefaultChunkSize), Now: now,
		}
		msg := sendFactsMsg{Plan: plan, Source: source}
		if prof.RepeatWindow > 0 && paths != nil {
			f.Since = now.Add(-prof.RepeatWindow)
			hist, err := config.RecentPairs(*paths, prof.Name, f.Since)
			if err != nil {
				msg.Err = fmt.Errorf("checking earlier sends for repeats: %w; nothing was sent", err)
				return msg
			}
			f.History = hist
		}
		if cl != nil {
			cctx, cancel := context.WithTimeout(ctx, creditTimeout)
			cr, err := cl.Credit(cctx)
			cancel()
			switch {
			case err == nil:
				f.Credit = &cr
			case !errors.Is(err, client.ErrNoCreditEndpoint):
				msg.Note = "credit unknown: " + errorLine(err)
			}
		}
		msg.Facts = f
		return msg
	}
}

func firstPositive(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

// askToSend applies the send rules to the plan and, when it may go, asks with
// everything the operator must see first. Default answer: No.
func (p *composerPane) askToSend(msg sendFactsMsg) tea.Cmd {
	if msg.Err != nil {
		p.note = "✗ " + errorLine(msg.Err)
		return nil
	}
	if msg.Plan != p.plan {
		p.note = "the plan changed while it was checked: ctrl+s again"
		return nil
	}
	v := model.CheckSend(msg.Plan, msg.Facts)
	switch {
	case len(v.Bad) > 0:
		p.showFirstBad(msg.Plan)
		return nil
	case len(v.Problems) > 0:
		p.note = "✗ " + model.SanitizeLine(strings.Join(v.Problems, "; ")) + "; nothing was sent"
		return nil
	}
	p.note = ""
	title := "Send these messages?"
	if len(v.Repeats) > 0 {
		title = fmt.Sprintf("Send these messages? %d of them repeat an earlier send", v.RepeatedPairs())
	}
	body := p.confirmBody(&v, msg)
	plan, source := msg.Plan, msg.Source
	return p.c.showModal(newConfirm(p.c, title, body, func() tea.Cmd {
		return cmdOf(startSendMsg{Plan: plan, Source: source})
	}))
}

// confirmBody is the send confirmation: who sends from where, to whom, parts
// by encoding, cost, credit, duration, the first messages in full, and every
// repeat.
func (p *composerPane) confirmBody(v *model.Verdict, msg sendFactsMsg) string {
	prof, sum := p.c.profile, v.Summary
	kind := prof.KeyKind
	if kind == "" {
		kind = "unknown kind of"
	}
	width := max(20, min(p.c.width-10, 76))
	wrap := p.c.styles.Plain.Width(width - 6)
	var b strings.Builder
	fmt.Fprintf(&b, "Profile:     %s on %s · %s key\n", model.SanitizeLine(prof.Name), model.SanitizeLine(p.c.host()), kind)
	fmt.Fprintf(&b, "Source:      %s\n", model.SanitizeLine(msg.Source))
	fmt.Fprintf(&b, "Sender line: %s\n", model.SanitizeLine(sum.Sender))
	fmt.Fprintf(&b, "Recipients:  %s\n", thousands(sum.Recipients))
	parts := sum.PartsText()
	if c := sum.CostText(); c != "" {
		parts += " · cost " + c
	}
	fmt.Fprintf(&b, "Parts:       %s\n", parts)
	switch c := sum.CreditText(); {
	case c != "":
		fmt.Fprintf(&b, "Credit:      %s\n", c)
	case msg.Note != "":
		fmt.Fprintf(&b, "Credit:      %s\n", model.SanitizeLine(msg.Note))
	}
	fmt.Fprintf(&b, "Time:        %s\n", sum.DurationText(msg.Facts.RatePerMinute))
	if len(sum.Samples) > 0 {
		fmt.Fprintf(&b, "\nFirst %d of %d messages, as they will be sent:\n", len(sum.Samples), sum.Recipients)
		for _, it := range sum.Samples {
			fmt.Fprintf(&b, "→ %s (%d %s, %d part(s))\n", model.SanitizeLine(it.Recipient), it.Parts.Chars, it.Parts.Encoding, it.Parts.Parts)
			for _, l := range strings.Split(wrap.Render(model.Sanitize(it.Message)), "\n") {
				b.WriteString("    " + strings.TrimRight(l, " ") + "\n")
			}
		}
	}
	for _, r := range v.Repeats {
		fmt.Fprintf(&b, "⚠ repeat: %s\n", model.SanitizeLine(r.Problem(msg.Facts.Now)))
	}
	if len(v.Repeats) > 0 {
		b.WriteString("  y sends them again; the default is No.\n")
	}
	b.WriteString("\nEach recipient gets only its own message.")
	if !p.c.bidi {
		return b.String()
	}
	// Wrapped in logical order; each line then reordered for display (group
	// names, samples, repeats, problems).
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = model.VisualLine(l)
	}
	return strings.Join(lines, "\n")
}
