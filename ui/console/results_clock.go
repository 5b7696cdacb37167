package console

import (
	"fmt"
	"time"
)

// endSending freezes the send phase's clock (rate and elapsed stop there).
func (p *resultsPane) endSending() {
	if p.sentAt.IsZero() {
		p.sentAt = p.c.now()
	}
}

// endWatching freezes the delivery watch's clock.
func (p *resultsPane) endWatching() {
	if p.watchEnd.IsZero() {
		p.watchEnd = p.c.now()
	}
}

// sendingTime is how long the send phase has taken: until now while sending,
// frozen when it ended.
func (p *resultsPane) sendingTime() time.Duration {
	end := p.sentAt
	if end.IsZero() {
		end = p.c.now()
	}
	return max(0, end.Sub(p.started))
}

// rateText is items with a verdict per second of the send phase only, so it
// does not sink while delivery is watched. While sending it waits for a full
// second before showing a figure.
func (p *resultsPane) rateText() string {
	d := p.sendingTime()
	if d < time.Second && (p.sentAt.IsZero() || d <= 0) {
		return "–"
	}
	return fmt.Sprintf("%.1f/s", float64(p.done)/d.Seconds())
}

// clockText is the send phase's elapsed time and, separately, the time spent
// watching delivery after it.
func (p *resultsPane) clockText() string {
	d := p.sendingTime()
	s := "elapsed " + d.Round(time.Second).String()
	if eta, ok := p.eta(); ok && p.sentAt.IsZero() && p.total > p.done {
		s += " · ETA " + eta.Round(time.Second).String()
	}
	if p.sentAt.IsZero() || p.noWatch {
		return s
	}
	if p.watchEnd.IsZero() {
		return s + " · watching delivery " + max(0, p.c.now().Sub(p.sentAt)).Round(time.Second).String()
	}
	return s + " · watched delivery " + max(0, p.watchEnd.Sub(p.sentAt)).Round(time.Second).String()
}

// eta is how long what is left of the send takes: at the rate it is
// paced at, as the progress line shows it beside the ETA, and never less
// than the rate budget allows (budgetETA). The budget alone said "ETA 0 s"
// at 60/297 beside "rate 2.1/s": its requests were free, and the send was
// held by what the budget does not know (the service's own pace, its
// latency, a 429's window) — a line that contradicted itself (issue 40
// item 13). The rate alone extrapolates a budget's first burst ("14 s" for
// a send that took 4 minutes), which the budget corrects.
func (p *resultsPane) eta() (time.Duration, bool) {
	eta, ok := p.budgetETA()
	left := p.total - p.done
	if d := p.sendingTime(); d >= time.Second && p.done > 0 && left > 0 {
		paced := time.Duration(float64(d) * float64(left) / float64(p.done))
		eta, ok = max(eta, paced), true
	}
	return eta, ok
}

// budgetETA is the time the requests still to make take at the rate budget
// the client paces to (the service's announced one when it said, else the
// profile's), after the wait the pacer is in (a 429's Retry-After, a
// window's reset) and the requests the budget has free now: the estimate
// the confirmation made, kept up to date.
func (p *resultsPane) budgetETA() (time.Duration, bool) {
	rate, free, hold := p.c.profile.RatePerMinute, 0, time.Duration(0)
	if cl := p.c.client(); cl != nil {
		st := cl.RateStatus()
		if pm := st.PerMinute(); pm > 0 {
			rate = pm
		}
		free, hold = max(0, st.Remaining), st.Waiting
	}
	if rate <= 0 {
		return 0, false
	}
	chunk := max(1, p.c.profile.ChunkSize)
	if p.run != nil {
		chunk = p.run.ChunkSize() // a resume goes on in its send's chunks, not the profile's
	}
	requests := (p.total - p.done + chunk - 1) / chunk
	return hold + time.Duration(max(0, requests-free))*time.Minute/time.Duration(rate), true
}
