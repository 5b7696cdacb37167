package console

// The console draws when something on its screen changes: a key, a data
// message, and what the clock alone changes, at the moment it does. There
// is no redraw tick: an idle console, served to twenty terminals, costs
// nothing between changes (a 1-second tick in each cost 10% of a core).
//
// What the clock changes: the rate budget (refilling, or a wait counting
// down), which is looked at every second off the program's loop and wakes
// it only when its text differs from the one drawn; quiet hours in the
// status bar (minutes); a notice that the service could not be reached
// (when it expires); a scheduled send's countdown in history (at its own
// resolution: minutes, seconds in its last minute); a send's and its
// delivery watch's elapsed time (seconds, while they run). The spinner has
// its own tick while work is in flight.

import (
	"context"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/ui/app"
)

// rateEvery is how often the rate budget's text is looked at.
const rateEvery = time.Second

// clockMsg wakes the program because the clock changed the screen; gen
// tells the current wake from one superseded. rules, when set, are the
// profile's rules read again because the config file changed.
type clockMsg struct {
	gen   int
	rules *app.RulesRead
}

// clock is the console's one wake: when it is due, and the rate text drawn
// last (compared off the loop).
type clock struct {
	gen    int
	due    time.Time // zero: only the rate wakes it
	cancel context.CancelFunc
	shown  atomic.Pointer[string]
	// rules are the rules as last read, with the config file's stamp: the
	// wait looks whether the file changed since (rules.go).
	rules app.RulesRead
}

// clocked is a pane whose view the clock changes.
type clocked interface {
	// nextChange is how long until the clock alone changes the pane's
	// view (0: it does not).
	nextChange(now time.Time) time.Duration
}

// nextChange is how long until the clock alone changes the screen, the
// rate budget aside (0: never).
func (m *root) nextChange(now time.Time) time.Duration {
	var next time.Duration
	soonest := func(d time.Duration) {
		if d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	if m.c.rules.Quiet.On { // "quiet hours at 22:00" appears an hour before, changes at start and end: minute boundaries
		soonest(now.Truncate(time.Minute).Add(time.Minute).Sub(now))
	}
	if m.trouble != "" && now.Before(m.troubleUntil) {
		soonest(m.troubleUntil.Sub(now))
	}
	if c, ok := m.active().(clocked); ok {
		soonest(c.nextChange(now))
	}
	return next
}

// rewake makes sure the clock wakes the program when the screen next
// changes by itself: a new wake when that moment moved (the old one is
// cancelled), none when it did not.
func (m *root) rewake() tea.Cmd {
	now := m.c.now()
	var due time.Time
	if d := m.nextChange(now); d > 0 {
		due = now.Add(d)
	}
	k := &m.clock
	if k.cancel != nil && due.Equal(k.due) {
		return nil
	}
	if k.cancel != nil {
		k.cancel()
	}
	k.gen++
	k.due = due
	ctx, cancel := context.WithCancel(m.c.ctx)
	k.cancel = cancel
	gen, cl, wait, nowf := k.gen, m.c.client(), m.c.redrawWait(), m.c.now
	shown, sess, read := &k.shown, m.c.session, k.rules
	if m.changes != nil {
		sess = nil // the config file is watched for the process (changes.go), not by each console's clock
	}
	return func() tea.Msg {
		for {
			d := rateEvery
			if !due.IsZero() {
				d = min(d, due.Sub(nowf()))
			}
			if err := wait(ctx, max(d, 0)); err != nil {
				return nil // superseded, or the console has ended
			}
			if !due.IsZero() && !nowf().Before(due) {
				return clockMsg{gen: gen}
			}
			if r := rulesChanged(sess, read); r != nil {
				return clockMsg{gen: gen, rules: r}
			}
			if s := shown.Load(); cl != nil && s != nil && rateTextOf(cl) != *s {
				return clockMsg{gen: gen}
			}
		}
	}
}

// woke takes the clock's message: the wake is spent (the next is made
// after this update).
func (m *root) woke(msg clockMsg) {
	if msg.gen == m.clock.gen && m.clock.cancel != nil {
		m.clock.cancel()
		m.clock.cancel = nil
	}
	if msg.rules != nil {
		m.takeRules(*msg.rules)
	}
}

// redrawWait is how the clock waits (Options.RedrawWait, else real time).
func (c *common) redrawWait() func(ctx context.Context, d time.Duration) error {
	if c.opts.RedrawWait != nil {
		return c.opts.RedrawWait
	}
	return client.SleepContext
}

// countdownChange is how long until a countdown to or from at
// (model.DueText) reads otherwise: it shows seconds under a minute,
// minutes above (each rounded to the nearest).
func countdownChange(at, now time.Time) time.Duration {
	const eps = time.Millisecond
	d := at.Sub(now)
	if d <= 0 { // "due 3m ago": grows
		e := -d
		unit := time.Minute
		if e.Round(time.Second) < time.Minute {
			unit = time.Second
		}
		k := e.Round(unit)
		return max(k+unit/2-e, eps)
	}
	unit := time.Minute
	if d.Round(time.Second) < time.Minute {
		unit = time.Second
	}
	k := d.Round(unit)
	if k == 0 {
		return d + eps // it turns due
	}
	below := k - unit/2 // the text changes once d is below this
	if unit == time.Minute {
		below = max(below, time.Minute-time.Second/2) // to seconds, under a minute
	}
	return max(d-below+eps, eps)
}

// nextChange: a scheduled send's countdown, on the list or opened.
func (p *historyPane) nextChange(now time.Time) time.Duration {
	var next time.Duration
	soonest := func(at time.Time) {
		if d := countdownChange(at, now); next == 0 || d < next {
			next = d
		}
	}
	if p.detail != nil {
		if s := p.detail.state; s != nil && s.Waiting() {
			soonest(s.Plan.ScheduledFor)
		}
		return next
	}
	for _, e := range p.entries {
		if e.Waiting && e.Err == "" {
			soonest(e.At)
		}
	}
	return next
}

// nextChange: the send's elapsed time while it runs, the delivery watch's
// while it is watched (seconds).
func (p *resultsPane) nextChange(now time.Time) time.Duration {
	switch {
	case p.started.IsZero():
		return 0
	case p.sentAt.IsZero(), !p.noWatch && p.watchEnd.IsZero():
		return time.Second
	}
	return 0
}
