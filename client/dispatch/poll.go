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
func PollDelivery(ctx context.Context, c Client, results []Result, o PollOptions, onUpdate func(Result)) ([]Result, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = client.SleepContext
	}
	if o.RoundGap <= 0 {
		o.RoundGap = 2 * time.Second
	}
	out := append([]Result(nil), results...)
	every := o.interval(c)
	var last time.Time
	failures := 0
	for round := 0; o.Rounds == 0 || round < o.Rounds; round++ {
		var todo []int
		for i, r := range out {
			if r.State == StateAccepted && r.MessageID != "" && !deliveryFinal(r.Delivery) {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 {
			return out, nil
		}
		roundStart := o.Now()
		for _, i := range todo {
			if !last.IsZero() {
				if err := o.Sleep(ctx, every-o.Now().Sub(last)); err != nil {
					return out, err
				}
			}
			last = o.Now()
			st, err := c.MessageStatus(ctx, out[i].MessageID)
			if err != nil {
				var apiErr *client.APIError
				if errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusMethodNotAllowed) {
					if o.Journal != nil {
						_ = o.Journal.Append(&model.JournalDelivery{Time: o.Now(), Off: true})
					}
					return out, ErrDeliveryUnsupported
				}
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				if failures++; failures >= 5 {
					return out, fmt.Errorf("polling delivery status: %w", err)
				}
				continue
			}
			failures = 0
			if st.State == "" || string(st.State) == out[i].Delivery {
				continue
			}
			out[i].Delivery = string(st.State)
			if o.Journal != nil {
				rec := &model.JournalDelivery{Time: o.Now(), Updates: []model.DeliveryUpdate{{Index: out[i].Index, MessageID: out[i].MessageID, State: out[i].Delivery}}}
				if err := o.Journal.Append(rec); err != nil {
					return out, fmt.Errorf("recording delivery status: %w", err)
				}
			}
			if onUpdate != nil {
				onUpdate(out[i])
			}
		}
		if o.Rounds == 0 || round+1 < o.Rounds {
			if err := o.Sleep(ctx, o.RoundGap-o.Now().Sub(roundStart)); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// pollDelivery polls after sending, streaming EventDelivery.
func (r *Run) pollDelivery(ctx context.Context) {
	po := r.opts.Poll
	po.Journal = r.opts.Journal
	_, err := PollDelivery(ctx, r.c, r.Results(), po, func(res Result) {
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
