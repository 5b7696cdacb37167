package sandbox

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The service posts what happens to each message to the account's webhook
// URL, signed: X-Irnoti-Signature is the lowercase hex HMAC-SHA256 of the
// raw body keyed with the account's webhook secret. With WebhookURL set
// the sandbox does the same: sms.sent when a message's status turns sent,
// then sms.delivered or sms.failed when it turns final (the times and
// outcomes GET /sms/{id}/status answers), some posted twice
// (DuplicateShare), some final before sent (ReorderShare), as the service
// may. A post answered other than 2xx is tried again after 1, 2 and 4 s.
// The poster is one goroutine owned by the Server: Close stops it (events
// not yet posted are dropped; their status still answers).

// SignatureHeader carries the signature of a webhook post.
const SignatureHeader = "X-Irnoti-Signature"

// Webhook event kinds.
const (
	EventSent      = "sms.sent"
	EventDelivered = "sms.delivered"
	EventFailed    = "sms.failed"
	EventInbound   = "sms.inbound"
)

// Defaults of the webhook shares.
const (
	DefaultDeliveredShare = 0.95
	DefaultDuplicateShare = 0.1
	DefaultReorderShare   = 0.1
)

// webhookRetries are the waits before the tries of a post after its first.
var webhookRetries = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

// Sign is the signature of body with secret, as the service puts it in
// SignatureHeader.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// PostEvent posts body to url signed with secret, as the service does,
// and returns the answer's status.
func PostEvent(ctx context.Context, c *http.Client, url, secret string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "smsdesk-sandbox")
	req.Header.Set(SignatureHeader, Sign(secret, body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }() // read to its end: a close error loses nothing
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// DeliveryEvent is the body of a delivery event as the service posts it.
func DeliveryEvent(kind, messageID, recipient string, at time.Time) []byte {
	b, _ := json.Marshal(struct {
		Event      string `json:"event"`
		MessageID  string `json:"message_id"`
		Recipient  string `json:"recipient"`
		OccurredAt string `json:"occurred_at"`
	}{kind, messageID, recipient, timestamp(at)})
	return b
}

// InboundEvent is the body of an sms.inbound event: from wrote text to
// line.
func InboundEvent(messageID, from, line, text string, at time.Time) []byte {
	b, _ := json.Marshal(struct {
		Event      string `json:"event"`
		MessageID  string `json:"message_id"`
		Sender     string `json:"sender"`
		Recipient  string `json:"recipient"`
		Message    string `json:"message"`
		OccurredAt string `json:"occurred_at"`
	}{EventInbound, messageID, from, line, text, timestamp(at)})
	return b
}

// checkWebhook refuses webhook options that cannot be, and fills in the
// shares' defaults.
func checkWebhook(o *Options) error {
	if o.DeliveredShare == nil {
		d := DefaultDeliveredShare
		o.DeliveredShare = &d
	}
	for name, v := range map[string]float64{"delivered": *o.DeliveredShare, "duplicate": o.DuplicateShare, "reorder": o.ReorderShare} {
		if v < 0 || v > 1 {
			return fmt.Errorf("sandbox: %s share %v: give a share from 0 to 1", name, v)
		}
	}
	if o.WebhookURL == "" {
		return nil
	}
	u, err := url.Parse(o.WebhookURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("sandbox: webhook URL %q: give an http or https URL, e.g. http://127.0.0.1:8787/webhook/default", o.WebhookURL)
	}
	if o.WebhookSecret == "" {
		return fmt.Errorf("sandbox: a webhook URL needs its secret (--webhook-secret), the one the receiver checks")
	}
	return nil
}

// failPercent is the share of messages that fail, in percent.
func (o Options) failPercent() uint32 {
	delivered := DefaultDeliveredShare
	if o.DeliveredShare != nil {
		delivered = *o.DeliveredShare
	}
	return uint32((1-delivered)*100 + 0.5)
}

// share reports whether message id falls in share, for the choice named
// salt (each choice its own, stable across runs).
func share(id, salt string, share float64) bool {
	h := fnv.New32a()
	h.Write([]byte(salt + "\x00" + id))
	return float64(h.Sum32()%10000) < share*10000
}

// outbound is a post waiting for its time.
type outbound struct {
	due  time.Time // real time
	body []byte
}

type outboundHeap []outbound

func (h outboundHeap) Len() int           { return len(h) }
func (h outboundHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h outboundHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *outboundHeap) Push(x any)        { *h = append(*h, x.(outbound)) }
func (h *outboundHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// poster posts the sandbox's webhook events at their time, one at a time.
type poster struct {
	url, secret string
	client      *http.Client

	mu      sync.Mutex
	queue   outboundHeap
	posted  int // posts answered 2xx
	refused int // posts that got no 2xx after every try
	wake    chan struct{}

	cancel context.CancelFunc
	done   chan struct{}
}

// newPoster starts the poster's goroutine.
func newPoster(o Options) *poster {
	ctx, cancel := context.WithCancel(context.Background())
	c := o.WebhookClient
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	p := &poster{url: o.WebhookURL, secret: o.WebhookSecret, client: c, wake: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go p.run(ctx)
	return p
}

// add schedules body to be posted at due.
func (p *poster) add(due time.Time, body []byte) {
	p.mu.Lock()
	heap.Push(&p.queue, outbound{due: due, body: body})
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop ends the goroutine (a post in flight is cut short) and waits for it.
func (p *poster) stop() {
	p.cancel()
	<-p.done
}

// run posts what is due until ctx ends.
func (p *poster) run(ctx context.Context) {
	defer close(p.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		var next *outbound
		if len(p.queue) > 0 {
			next = &p.queue[0]
		}
		wait := time.Hour
		if next != nil {
			wait = time.Until(next.due)
		}
		if next != nil && wait <= 0 {
			o := heap.Pop(&p.queue).(outbound)
			p.mu.Unlock()
			p.deliver(ctx, o.body)
			continue
		}
		p.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// deliver posts body, trying again after each of webhookRetries' waits
// until it is answered 2xx.
func (p *poster) deliver(ctx context.Context, body []byte) {
	for try := 0; ; try++ {
		code, err := PostEvent(ctx, p.client, p.url, p.secret, body)
		if err == nil && code >= 200 && code < 300 {
			p.count(true)
			return
		}
		if try >= len(webhookRetries) {
			p.count(false)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(webhookRetries[try]):
		}
	}
}

func (p *poster) count(ok bool) {
	p.mu.Lock()
	if ok {
		p.posted++
	} else {
		p.refused++
	}
	p.mu.Unlock()
}

// WebhookStats says what the sandbox's webhook poster did: posts answered
// 2xx, posts given up after every try, and events waiting for their time.
type WebhookStats struct {
	Posted, Refused, Waiting int
}

// WebhookStats is what the webhook poster has done (zero without a
// webhook URL).
func (s *Server) WebhookStats() WebhookStats {
	if s.poster == nil {
		return WebhookStats{}
	}
	p := s.poster
	p.mu.Lock()
	defer p.mu.Unlock()
	return WebhookStats{Posted: p.posted, Refused: p.refused, Waiting: len(p.queue)}
}

// scheduleEvents schedules m's delivery events: sent, then its final
// state, at the times its status turns (now is real time when m was
// accepted); some twice, some final first.
func (s *Server) scheduleEvents(m *message, now time.Time) {
	if s.poster == nil {
		return
	}
	step := s.opts.DeliveryDelay
	final, finalAt := deliveryState(m.ID, m.Recipient, m.At, farFuture, step, s.opts.failPercent())
	kind := EventDelivered
	if final == StatusFailed {
		kind = EventFailed
	}
	sentAt := m.At.Add(max(step, 0))
	sentDue, finalDue := now.Add(sentAt.Sub(m.At)), now.Add(finalAt.Sub(m.At))
	gap := max(step/2, 50*time.Millisecond)
	if share(m.ID, "reorder", s.opts.ReorderShare) {
		sentDue = finalDue.Add(gap) // the final state arrives first
	}
	for _, e := range []struct {
		kind    string
		at, due time.Time
	}{{EventSent, sentAt, sentDue}, {kind, finalAt, finalDue}} {
		body := DeliveryEvent(e.kind, m.ID, m.Recipient, e.at)
		s.poster.add(e.due, body)
		if share(m.ID, "duplicate "+e.kind, s.opts.DuplicateShare) {
			s.poster.add(e.due.Add(gap), body)
		}
	}
}

// farFuture is a time after every message's final state.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
