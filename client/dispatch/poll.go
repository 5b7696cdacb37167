package dispatch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// ErrDeliveryUnsupported means the service answered 404 or 405 for a delivery
// status: it has no such endpoint, and polling is turned off.
var ErrDeliveryUnsupported = errors.New("the service does not report delivery status")

// PollOptions tunes delivery polling.
type PollOptions struct {
	// Share is the part of the per-minute request budget polling may spend
	// (default 0.25).
	Share float64
	// RatePerMinute is the budget; default the client's RateStatus().Limit, or
	// 60 (the documented budget) when the client does not pace itself.
	RatePerMinute int
	// Rounds is how many passes to make over the messages not final yet; 0
	// polls until every message is delivered or failed (or ctx ends).
	Rounds int
	// RoundGap is the least time between two polls of one message (default 2 s).
	RoundGap time.Duration
	// Journal records each change (nil records nothing).
	Journal Journal
	// Now and Sleep replace the clock in tests.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// deliveryFinal reports whether a delivery state will not change again.
func deliveryFinal(s string) bool {
	return s == string(client.DeliveryDelivered) || s == string(client.DeliveryFailed) || s == string(client.DeliveryRejected)
}

// interval is the time between two status requests.
func (o PollOptions) interval(c Client) time.Duration {
	share := o.Share
	if share <= 0 || share > 1 {
		share = 0.25
	}
	perMin := o.RatePerMinute
	if perMin <= 0 {
		perMin = c.RateStatus().Limit
	}
	if perMin <= 0 {
		perMin = 60
	}
	return time.Duration(float64(time.Minute) / (share * float64(perMin)))
}

// PollDelivery polls the delivery state of the accepted results that have a
// message id and are not final yet, spending at most the set share of the rate
// budget, and calls onUpdate (when not nil) for each change. It returns the
// results with their new delivery states, and ErrDeliveryUnsupported (after
// recording it) when the service has no status endpoint.
func PollDelivery(ctx context.Context, c Client, results []model.SentItem, o PollOptions, onUpdate func(model.SentItem)) (_ []model.SentItem, err error) {
	o = o.withDefaults()
	out := append([]model.SentItem(nil), results...)
	p := poller{c: c, o: o, every: o.interval(c), onUpdate: onUpdate}
	defer func() { // what a round found is kept however it ends
		if ferr := p.flush(); err == nil {
			err = ferr
		}
	}()
	for round := 0; o.Rounds == 0 || round < o.Rounds; round++ {
		var todo []int
		for i, r := range out {
			if r.State == model.StateAccepted && r.MessageID != "" && !deliveryFinal(r.Delivery) {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 {
			return out, nil
		}
		roundStart := o.Now()
		for _, i := range todo {
			if err := p.poll(ctx, &out[i]); err != nil {
				return out, err
			}
		}
		if err := p.flush(); err != nil {
			return out, err
		}
		if o.Rounds == 0 || round+1 < o.Rounds {
			if err := o.Sleep(ctx, o.RoundGap-o.Now().Sub(roundStart)); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// withDefaults fills the clock, the sleep and the round gap when unset.
func (o PollOptions) withDefaults() PollOptions {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = client.SleepContext
	}
	if o.RoundGap <= 0 {
		o.RoundGap = 2 * time.Second
	}
	return o
}

// poller asks for delivery states one at a time, spaced by every.
type poller struct {
	c        Client
	o        PollOptions
	every    time.Duration
	last     time.Time
	failures int // failed asks in a row
	onUpdate func(model.SentItem)
	pending  []model.DeliveryUpdate // changes not yet in the journal
}

// deliveryBatch is how many delivery changes one journal record holds at
// most. A record is a durable transaction: one per change made a poll of
// 300 messages 300 writes (a busy ledger's fsyncs, each), and the results
// screen watched delivery for minutes. A change not yet written when the
// process dies is asked again by the next poll.
const deliveryBatch = 50

// flush writes the changes found since the last flush as one record.
func (p *poller) flush() error {
	if p.o.Journal == nil || len(p.pending) == 0 {
		p.pending = nil
		return nil
	}
	rec := &model.JournalDelivery{Time: p.o.Now(), Updates: p.pending}
	p.pending = nil
	if err := p.o.Journal.Append(rec); err != nil {
		return fmt.Errorf("recording delivery status: %w", err)
	}
	return nil
}

// poll asks for r's delivery state when its turn comes, records a change in
// the journal and reports it.
func (p *poller) poll(ctx context.Context, r *model.SentItem) error {
	if !p.last.IsZero() {
		if err := p.o.Sleep(ctx, p.every-p.o.Now().Sub(p.last)); err != nil {
			return err
		}
	}
	p.last = p.o.Now()
	st, err := p.c.MessageStatus(ctx, r.MessageID)
	if err != nil {
		return p.failed(ctx, err)
	}
	p.failures = 0
	if st.State == "" || string(st.State) == r.Delivery {
		return nil
	}
	r.Delivery = string(st.State)
	p.pending = append(p.pending, model.DeliveryUpdate{Index: r.Index, MessageID: r.MessageID, State: r.Delivery})
	if len(p.pending) >= deliveryBatch {
		if err := p.flush(); err != nil {
			return err
		}
	}
	if p.onUpdate != nil {
		p.onUpdate(*r)
	}
	return nil
}

// failed decides on a failed ask: a 404 or 405 turns polling off (recorded),
// a cancelled context stops, five failures in a row stop; else go on.
func (p *poller) failed(ctx context.Context, err error) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusMethodNotAllowed) {
		if p.o.Journal != nil {
			_ = p.o.Journal.Append(&model.JournalDelivery{Time: p.o.Now(), Off: true})
		}
		return ErrDeliveryUnsupported
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if p.failures++; p.failures >= 5 {
		return fmt.Errorf("polling delivery status: %w", err)
	}
	return nil
}

// pollDelivery polls after sending, streaming EventDelivery.
func (r *Run) pollDelivery(ctx context.Context) {
	po := r.opts.Poll
	po.Journal = r.opts.Journal
	_, err := PollDelivery(ctx, r.c, r.Results(), po, func(res model.SentItem) {
		r.mu.Lock()
		if p, ok := r.pos.get(res.Index); ok {
			r.results[p].Delivery = res.Delivery
		}
		r.mu.Unlock()
		r.q.push(Event{JobID: r.job.ID, Kind: EventDelivery, Result: res, Total: len(r.results)})
	})
	if errors.Is(err, ErrDeliveryUnsupported) {
		r.q.push(Event{JobID: r.job.ID, Kind: EventDeliveryOff, Total: len(r.results)})
	}
	if r.opts.Journal != nil {
		_ = r.opts.Journal.Sync()
	}
}
