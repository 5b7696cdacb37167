package console

// A send held at quiet hours, followed on the results screen (issue 35
// item 8): it is called held, not "stopped: the service refused", and once
// its run has ended the pane reads the send's journal now and then (off the
// UI loop) until another run (a serve's or scheduler's runner at the end of
// quiet hours, another operator's resume) has gone on with it and ended. A
// served console showed "225 not sent" and offered R, refused as "still
// running", while the serve's runner was sending them.

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// heldLookEvery is how often a held send's journal is read once its hold
// has ended; before then, at most every heldLookWhileHeld (or at the
// hold's end, when sooner).
const (
	heldLookEvery     = 2 * time.Second
	heldLookWhileHeld = 30 * time.Second
)

// heldFollow is what the pane knows of a held send since its own run ended.
type heldFollow struct {
	until time.Time
	// goneOn says who went on with it ("continued by serve"), "" until a
	// run did; running that the run works on it now.
	goneOn  string
	running bool
	status  string // app.SendStatus once a run went on
}

// heldLookMsg is a held send's journal as read, for the run it was held in.
type heldLookMsg struct {
	run   *app.Send
	entry app.HistoryEntry
	err   error
}

// isHeld reports whether the run shown ended held at quiet hours.
func (p *resultsPane) isHeld() bool {
	return p.summary != nil && p.summary.Cause == app.StopQuiet
}

// followHeld starts following the send shown when its run ended held.
func (p *resultsPane) followHeld() tea.Cmd {
	if !p.isHeld() {
		p.held = nil
		return nil
	}
	p.held = &heldFollow{until: p.summary.HeldUntil}
	p.note = "held" + p.heldUntil() + ": a serve or scheduler goes on then · R from then"
	return p.lookAtHeld()
}

// heldUntil is " until 2025-03-01 14:00 Asia/Tehran", or "" when the run
// did not say.
func (p *resultsPane) heldUntil() string {
	if p.summary == nil || p.summary.HeldUntil.IsZero() {
		return ""
	}
	return " until " + model.AtText(p.summary.HeldUntil, p.c.profile.Zone())
}

// lookAtHeld reads the held send's journal after a while, off the UI loop:
// every heldEvery once the hold has ended, and before then at its end or
// every heldWhile, whichever is sooner.
func (p *resultsPane) lookAtHeld() tea.Cmd {
	wait := p.heldEvery
	if left := p.held.until.Sub(p.c.now()); left > wait {
		wait = min(left, p.heldWhile)
	}
	run, id, sess, ctx := p.run, p.jobID, p.c.session, p.c.ctx
	return tea.Tick(wait, func(time.Time) tea.Msg {
		e, err := sess.ReadSend(ctx, id)
		return heldLookMsg{run: run, entry: e, err: err}
	})
}

// heldLooked shows what the journal says of the held send: still held, or
// gone on (running, or over: then the following ends).
func (p *resultsPane) heldLooked(msg heldLookMsg) tea.Cmd {
	h := p.held
	if msg.run != p.run || h == nil || p.sending {
		return nil // another run is shown now
	}
	st := msg.entry.State
	if msg.err != nil || st == nil || !st.Hold.Continued() {
		return p.lookAtHeld() // still held (or unreadable for a moment)
	}
	was := *h
	h.goneOn, h.running, h.status = app.ContinuedText(st.Hold), msg.entry.Running && !st.Ended, app.SendStatus(st, msg.entry.Running)
	p.results = append(p.results[:0], st.Items...)
	for i, r := range p.results {
		p.pos[r.Index] = i
	}
	p.refilterKeep()
	if was != *h { // said when it changes: a note of the operator's (R) stays
		p.note = "held at quiet hours, then " + h.goneOn + ": " + h.status
		if h.running {
			p.note = "held at quiet hours, then " + h.goneOn + ": it is sending; followed here"
		}
	}
	if h.running {
		return p.lookAtHeld()
	}
	return nil
}

// heldState is the header's state of a held send: "held at quiet hours
// until 08:00", "held, then continued by serve · running".
func (p *resultsPane) heldState() string {
	h := p.held
	switch {
	case h == nil || h.goneOn == "" && h.until.IsZero():
		return "held at quiet hours"
	case h.goneOn == "":
		return "held at quiet hours until " + h.until.In(p.c.profile.Zone()).Format("15:04")
	case h.running:
		return "held, then " + h.goneOn + " · running"
	}
	return "held, then " + h.goneOn + " · " + h.status
}
