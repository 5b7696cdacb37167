package sandbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/eventually"
)

const hookSecret = "whsec_sandbox_test"

// hookEvent is a post the receiver got.
type hookEvent struct {
	Event, MessageID, Recipient, OccurredAt string
	Sender, Message                         string
	signed                                  bool
}

// receiver is a webhook receiver that keeps what it is posted, answering
// the first `refuse` posts 503.
type receiver struct {
	mu     sync.Mutex
	got    []hookEvent
	refuse int
	url    string
}

func newReceiver(t *testing.T, refuse int) *receiver {
	rc := &receiver{refuse: refuse}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.refuse > 0 {
			rc.refuse--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var e struct {
			Event      string `json:"event"`
			MessageID  string `json:"message_id"`
			Recipient  string `json:"recipient"`
			OccurredAt string `json:"occurred_at"`
			Sender     string `json:"sender"`
			Message    string `json:"message"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Errorf("a post that is not JSON: %q", raw)
		}
		rc.got = append(rc.got, hookEvent{e.Event, e.MessageID, e.Recipient, e.OccurredAt, e.Sender, e.Message,
			r.Header.Get(SignatureHeader) == Sign(hookSecret, raw)})
	}))
	t.Cleanup(srv.Close)
	rc.url = srv.URL + "/webhook/default"
	return rc
}

// wait waits until the receiver holds n events and returns them.
func (rc *receiver) wait(t *testing.T, n int) []hookEvent {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rc.mu.Lock()
		got := append([]hookEvent(nil), rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d events, want %d: %+v", len(got), n, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sendTo sends one message to each recipient and returns their ids.
func (e *env) sendTo(t *testing.T, recipients ...string) []string {
	t.Helper()
	var items []map[string]string
	for _, r := range recipients {
		items = append(items, map[string]string{"recipient": r, "message": "hi"})
	}
	d := e.do("POST", "/sms/send-pair", map[string]any{"sender": DefaultSender, "items": items}).data(t, 200)
	var ids []string
	for _, it := range d["items"].([]any) {
		ids = append(ids, it.(map[string]any)["message_id"].(string))
	}
	return ids
}

func share01(v float64) *float64 { return &v }

// TestWebhookEvents: each accepted message gets a signed sms.sent, then
// its final state as its status says it, each at the time its status
// turned; with DuplicateShare 1 each is posted twice; with ReorderShare 1
// the final comes first; DeliveredShare 0 fails every message, in its
// events and its status alike.
func TestWebhookEvents(t *testing.T) {
	cases := []struct {
		name               string
		dup, reorder       float64
		delivered          *float64
		perMessage         int
		finalFirst, failed bool
	}{
		{"plain", 0, 0, nil, 2, false, false},
		{"twice", 1, 0, nil, 4, false, false},
		{"out of order", 0, 1, nil, 2, true, false},
		{"all failed", 0, 0, share01(0), 2, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := newReceiver(t, 0)
			e := setup(t, Options{WebhookURL: rc.url, WebhookSecret: hookSecret, DuplicateShare: c.dup, ReorderShare: c.reorder,
				DeliveredShare: c.delivered, DeliveryDelay: 10 * time.Millisecond})
			ids := e.sendTo(t, "09121110001", "09121110002", "09121110003")
			got := rc.wait(t, c.perMessage*len(ids))
			for _, id := range ids {
				var kinds []string
				status := e.do("GET", "/sms/"+id+"/status", nil).data(t, 200)
				for _, ev := range got {
					if ev.MessageID != id {
						continue
					}
					if !ev.signed || ev.Recipient == "" || ev.OccurredAt == "" {
						t.Errorf("%s: %+v (unsigned, or fields missing)", id, ev)
					}
					kinds = append(kinds, ev.Event)
				}
				final := "sms." + status["status"].(string)
				want := []string{EventSent, final}
				switch {
				case c.finalFirst:
					want = []string{final, EventSent}
				case c.perMessage == 4: // each twice, the second copy a little later
					want = []string{EventSent, EventSent, final, final}
					slices.SortStableFunc(kinds, func(a, b string) int { return rank(a) - rank(b) })
				}
				if strings.Join(kinds, " ") != strings.Join(want, " ") || (c.failed && final != EventFailed) {
					t.Errorf("%s: events %v, want %v (status %s; want failed: %v)", id, kinds, want, final, c.failed)
				}
			}
			// The receiver holds each event before the sandbox has counted
			// its post as answered (CI saw Posted 5 of 6 read at once).
			var st WebhookStats
			if !eventually.Within(waitLimit, func() bool {
				st = e.srv.WebhookStats()
				return st.Posted == c.perMessage*len(ids) && st.Waiting == 0
			}) {
				t.Errorf("stats %+v, want %d posted and none waiting", st, c.perMessage*len(ids))
			}
		})
	}
}

// TestWebhookTriedAgain: a post answered 503 is posted again until the
// receiver takes it.
func TestWebhookTriedAgain(t *testing.T) {
	rc := newReceiver(t, 1)
	e := setup(t, Options{WebhookURL: rc.url, WebhookSecret: hookSecret, DeliveryDelay: -1})
	ids := e.sendTo(t, "09121110001")
	got := rc.wait(t, 2)
	if got[0].MessageID != ids[0] || got[1].MessageID != ids[0] {
		t.Errorf("got %+v", got)
	}
}

// TestWebhookOptions: a URL without its secret, or a share out of 0..1,
// is refused.
func TestWebhookOptions(t *testing.T) {
	for _, o := range []Options{
		{WebhookURL: "http://127.0.0.1:1/webhook/default"},
		{WebhookURL: "ftp://x/y", WebhookSecret: "s"},
		{WebhookURL: "http://127.0.0.1:1/w", WebhookSecret: "s", DuplicateShare: 1.5},
		{DeliveredShare: share01(-0.1)},
	} {
		if s, err := New(o); err == nil {
			s.Close()
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestReply: POST /sandbox/reply posts a signed sms.inbound (the number
// normalised, a fresh id) and answers what the receiver answered; a
// sandbox without a webhook says how to start one; a bad number is 422.
func TestReply(t *testing.T) {
	rc := newReceiver(t, 0)
	e := setup(t, Options{WebhookURL: rc.url, WebhookSecret: hookSecret})
	ctx := context.Background()
	res, err := RequestReply(ctx, http.DefaultClient, e.base, e.key, "+989121110001", DefaultSender, "۱۱")
	if err != nil || res.WebhookStatus != 200 || !strings.HasPrefix(res.MessageID, "in_") {
		t.Fatalf("reply: %+v %v", res, err)
	}
	got := rc.wait(t, 1)
	want := hookEvent{Event: EventInbound, MessageID: res.MessageID, Recipient: DefaultSender, Sender: "09121110001", Message: "۱۱", signed: true}
	got[0].OccurredAt = ""
	if got[0] != want {
		t.Errorf("posted %+v, want %+v", got[0], want)
	}
	if _, err := RequestReply(ctx, http.DefaultClient, e.base, e.key, "12345", DefaultSender, "x"); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("a bad number: %v", err)
	}
	if _, err := RequestReply(ctx, http.DefaultClient, e.base, "wrong", "09121110001", DefaultSender, "x"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong key: %v", err)
	}
	plain := setup(t, Options{})
	_, err = RequestReply(ctx, http.DefaultClient, plain.base, plain.key, "09121110001", DefaultSender, "x")
	if err == nil || !strings.Contains(err.Error(), "--webhook URL") {
		t.Errorf("no webhook: %v", err)
	}
	rc.mu.Lock()
	if len(rc.got) != 1 {
		t.Errorf("%d posts, want the one reply's", len(rc.got))
	}
	rc.mu.Unlock()
}

// rank orders sms.sent before the final events.
func rank(kind string) int {
	if kind == EventSent {
		return 0
	}
	return 1
}
