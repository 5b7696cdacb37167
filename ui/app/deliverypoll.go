package app

// The fallback delivery poller: a runner (smsdesk serve, smsdesk
// scheduler) asks the service GET /sms/{id}/status for its account's
// messages that have no final delivery state delivery_poll_after after
// their acceptance (webhooks come first; this is what is left), then
// again backing off (×2, at most MaxPollGap), until a final state comes;
// delivery_unknown_after after acceptance a message with none is
// no_report. It spends at most Share of the key's request budget, one ask
// every window/(Share×limit), and never asks while a request of this
// process waits for the budget or the budget has nothing left: a send
// has the budget first. A 404 or 405 turns polling off for the account
// for a day, said once, recorded in the ledger where every runner reads
// it. Every write to the ledger is its own short transaction, after the
// ask it records has been answered.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// DefaultPollShare is the part of the request budget the delivery poller
// may spend.
const DefaultPollShare = 0.25

// MaxPollGap is the longest wait between two asks about one message.
const MaxPollGap = time.Hour

// DeliveryOffFor is how long polling stays off for an account whose
// service answered 404 or 405 for a delivery status.
const DeliveryOffFor = 24 * time.Hour

// pollBatch is how many due deliveries a pass reads at a time.
const pollBatch = 200

// DeliveryPoller polls the delivery states of its session's account.
type DeliveryPoller struct {
	// Session is whose client, ledger, clock and delivery settings it
	// uses (Profile.PollAfter, Profile.UnknownAfter).
	Session *Session
	// Share is the part of the request budget it may spend (0:
	// DefaultPollShare).
	Share float64

	last time.Time // when it last asked (the session's clock)
}

// PollPass is what one pass of the poller did.
type PollPass struct {
	Asked  int // status requests made
	Moved  int // deliveries whose state moved forward
	GaveUp int // deliveries made no_report (delivery_unknown_after passed)
	// Off: the service has no status endpoint (404 or 405): polling is off
	// for the account until Next.
	Off bool
	// Next is when the next delivery is due (zero: none waits).
	Next time.Time
}

// errPollOff stops a pass: the service has no status endpoint.
var errPollOff = errors.New("the service does not report delivery status (404 or 405)")

// Pass asks about every delivery due now, at its share of the budget,
// and returns when none is left due (or ctx ends).
func (p *DeliveryPoller) Pass(ctx context.Context) (PollPass, error) {
	s := p.Session
	var res PollPass
	if s.Client == nil {
		return res, ErrNotSignedIn
	}
	account := s.Client.AccountID()
	off, err := config.DeliveryOff(ctx, s.Paths, account)
	if err != nil {
		return res, err
	}
	if s.now().Before(off) {
		res.Off, res.Next = true, off
		return res, nil
	}
	for ctx.Err() == nil {
		due, err := config.DuePolls(ctx, s.Paths, account, s.now(), pollBatch)
		if err != nil || len(due) == 0 {
			if err == nil {
				res.Next, err = config.NextPoll(ctx, s.Paths, account)
			}
			return res, err
		}
		for _, d := range due {
			err := p.one(ctx, d, &res)
			if errors.Is(err, errPollOff) {
				until := s.now().Add(DeliveryOffFor)
				res.Off, res.Next = true, until
				return res, config.SetDeliveryOff(ctx, s.Paths, account, until)
			}
			if err != nil {
				return res, err
			}
		}
	}
	return res, ctx.Err()
}

// one handles a due delivery: given up, put off to its first ask, or
// asked about when its turn in the budget comes.
func (p *DeliveryPoller) one(ctx context.Context, d config.Delivery, res *PollPass) error {
	s := p.Session
	pollAfter, unknownAfter := p.durations()
	giveUp := d.AcceptedAt.Add(unknownAfter)
	now := s.now()
	poll := config.DeliveryPoll{SendID: d.SendID, Index: d.Index}
	switch {
	case !now.Before(giveUp):
		poll.State, poll.At = model.DeliveryNoReport, now
	case d.Polls == 0 && now.Before(d.AcceptedAt.Add(pollAfter)):
		// delivery_poll_after was set longer since it was written.
		poll.Next = d.AcceptedAt.Add(pollAfter)
	case d.MessageID == "":
		// Nothing to ask about: the service gave it no id.
		poll.Next = giveUp
	default:
		if err := p.waitTurn(ctx); err != nil {
			return err
		}
		state, err := p.ask(ctx, d.MessageID)
		if err != nil {
			return err
		}
		res.Asked++
		now = s.now()
		poll.State, poll.At, poll.Asked = state, now, true
		poll.Next = now.Add(min(pollAfter<<min(d.Polls+1, 16), MaxPollGap))
		if poll.Next.After(giveUp) {
			poll.Next = giveUp
		}
	}
	moved, err := config.RecordPoll(ctx, s.Paths, poll)
	if err != nil {
		return err
	}
	if moved && poll.State == model.DeliveryNoReport {
		res.GaveUp++
	} else if moved {
		res.Moved++
	}
	return nil
}

// ask asks the service for one message's state: "" when the answer is
// not one this version knows or the ask failed for a reason that may
// pass (tried again at its next poll); errPollOff on 404 or 405.
func (p *DeliveryPoller) ask(ctx context.Context, messageID string) (model.DeliveryState, error) {
	st, err := p.Session.Client.MessageStatus(ctx, messageID)
	var apiErr *client.APIError
	switch {
	case errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusMethodNotAllowed):
		return "", errPollOff
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", nil
	}
	state, ok := model.ParseDeliveryState(string(st.State))
	if !ok || state == model.DeliveryNoReport {
		return "", nil // the service's word is no state it reports
	}
	return state, nil
}

// durations are the profile's delivery_poll_after and
// delivery_unknown_after (their defaults when unset).
func (p *DeliveryPoller) durations() (pollAfter, unknownAfter time.Duration) {
	pr := p.Session.Profile
	pollAfter, unknownAfter = pr.PollAfter, pr.UnknownAfter
	if pollAfter <= 0 {
		pollAfter = config.DefaultDeliveryPollAfter
	}
	if unknownAfter <= 0 {
		unknownAfter = config.DefaultDeliveryUnknownAfter
	}
	return pollAfter, unknownAfter
}

// Interval is the least time between two asks: the budget's window over
// Share of its limit (4 s at 60 a minute and a quarter).
func (p *DeliveryPoller) Interval() time.Duration {
	share := p.Share
	if share <= 0 || share > 1 {
		share = DefaultPollShare
	}
	perMin := p.Session.Client.RateStatus().PerMinute()
	if perMin <= 0 {
		perMin = p.Session.Profile.RatePerMinute
	}
	if perMin <= 0 {
		perMin = config.DefaultRatePerMinute
	}
	return time.Duration(float64(time.Minute) / (share * float64(perMin)))
}

// waitTurn waits until the poller may ask: an Interval after its last ask,
// and then while a request of this process waits for the budget or the
// budget has nothing left now (a send has it first), an Interval more.
func (p *DeliveryPoller) waitTurn(ctx context.Context) error {
	s := p.Session
	every := p.Interval()
	if !p.last.IsZero() {
		if err := s.sleep(ctx, every-s.now().Sub(p.last)); err != nil {
			return err
		}
	}
	for {
		st := s.Client.RateStatus()
		if st.Waiting <= 0 && st.Remaining != 0 {
			break
		}
		if err := s.sleep(ctx, every); err != nil {
			return err
		}
	}
	p.last = s.now()
	return nil
}

// Loop polls until ctx ends: a pass, then a wait until the next delivery
// is due (at most idle; 0: DefaultPoll). The asks are paced on the
// session's clock; the wait between passes is real time (a runner's
// loop's). A pass that did something, or failed, is told to report (nil:
// not told); a failed one is tried again after idle.
func (p *DeliveryPoller) Loop(ctx context.Context, idle time.Duration, report func(PollPass, error)) {
	if idle <= 0 {
		idle = DefaultPoll
	}
	for ctx.Err() == nil {
		res, err := p.Pass(ctx)
		if ctx.Err() != nil {
			return
		}
		if report != nil && (err != nil || res.Asked > 0 || res.GaveUp > 0 || res.Off) {
			report(res, err)
		}
		wait := idle
		if err == nil && !res.Next.IsZero() {
			wait = min(wait, max(res.Next.Sub(p.Session.now()), 0))
		}
		if !wake(ctx, nil, nil, max(wait, time.Second)) {
			return
		}
	}
}

// Text says a pass for a runner's log: "delivery: 12 asked, 3 moved, 1
// no report", or that polling is off.
func (r PollPass) Text(zone *time.Location) string {
	if r.Off {
		return "delivery: the service does not report delivery status (404 or 405); not polled until " + model.AtText(r.Next, zone)
	}
	return fmt.Sprintf("delivery: %d asked, %d moved, %d no report", r.Asked, r.Moved, r.GaveUp)
}

// sleep waits d on the session's clock (real time unless a test gave one).
func (s *Session) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	return client.SleepContext(ctx, d)
}
