package app

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

const testWebhookSecret = "whsec_test_3f9a"

// webhookEngine is an engine of profile "live" on a sandbox, receiving
// webhooks signed with testWebhookSecret, and the outcome of a send of n
// pairs made through it (its messages accepted, with the sandbox's ids).
func webhookEngine(t *testing.T, n int) (*Engine, Outcome) {
	t.Helper()
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	var out Outcome
	if n > 0 {
		out = send(t, s, pairs(n))
	}
	eng := &Engine{Profile: s.Profile, Client: s.Client, Paths: paths, Webhooks: &Webhooks{Secret: testWebhookSecret}}
	return eng, out
}

func body(event, id string, extra string) []byte {
	return fmt.Appendf(nil, `{"event":%q,"message_id":%q,"recipient":"09120000000","occurred_at":"2026-03-01T10:00:00Z"%s}`, event, id, extra)
}

// TestReceiveEventSignatures: a post is taken only for the engine's
// profile, with a secret set, signed with it over the very bytes posted;
// every refusal stores nothing.
func TestReceiveEventSignatures(t *testing.T) {
	eng, out := webhookEngine(t, 1)
	id := out.Results[0].MessageID
	good := body("sms.delivered", id, "")
	otherProfile := Sign("another profile's secret", good)
	cases := []struct {
		name, profile string
		raw           []byte
		sig           string
		want          WebhookProblem
	}{
		{"unknown profile", "nobody", good, Sign(testWebhookSecret, good), WebhookUnknownProfile},
		{"missing", "live", good, "", WebhookNoSignature},
		{"invalid", "live", good, Sign(testWebhookSecret, good)[:62] + "00", WebhookBadSignature},
		{"not hex", "live", good, "zz" + Sign(testWebhookSecret, good)[2:], WebhookBadSignature},
		{"another profile's secret", "live", good, otherProfile, WebhookBadSignature},
		{"the body changed after signing", "live", append([]byte(" "), good...), Sign(testWebhookSecret, good), WebhookBadSignature},
		{"too large", "live", make([]byte, WebhookBodyLimit+1), Sign(testWebhookSecret, make([]byte, WebhookBodyLimit+1)), WebhookTooLarge},
		{"not JSON", "live", []byte("event=sms.sent"), Sign(testWebhookSecret, []byte("event=sms.sent")), WebhookMalformed},
		{"no message id", "live", []byte(`{"event":"sms.sent"}`), Sign(testWebhookSecret, []byte(`{"event":"sms.sent"}`)), WebhookMalformed},
	}
	ctx := context.Background()
	for _, c := range cases {
		_, err := eng.ReceiveEvent(ctx, c.profile, c.raw, c.sig)
		if p, ok := IsWebhookRefusal(err); !ok || p != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if n := storedEvents(t, eng); n != 0 {
		t.Fatalf("%d events stored by refused posts", n)
	}
	// Valid: lowercase, uppercase and sha256= prefixed hex.
	for i, sig := range []string{Sign(testWebhookSecret, good), "SHA256=" + strings.ToUpper(Sign(testWebhookSecret, good))} {
		r, err := eng.ReceiveEvent(ctx, "live", good, sig)
		if err != nil || (i == 0) != (r.SendID == out.Summary.JobID) || r.Duplicate != (i > 0) || r.Moved != (i == 0) {
			t.Errorf("valid %d: %+v %v", i, r, err)
		}
	}
	eng.Webhooks.Secret = ""
	if _, err := eng.ReceiveEvent(ctx, "live", good, Sign(testWebhookSecret, good)); !isProblem(err, WebhookNotConfigured) {
		t.Errorf("no secret: %v", err)
	}
}

func isProblem(err error, want WebhookProblem) bool {
	p, ok := IsWebhookRefusal(err)
	return ok && p == want
}

// storedEvents counts the events the engine's ledger holds.
func storedEvents(t *testing.T, eng *Engine) int {
	t.Helper()
	l, err := eng.Paths.Ledger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	acct := eng.Client.AccountID()
	list, err := l.ListEvents(context.Background(), ledger.EventQuery{Account: acct})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := l.ListEvents(context.Background(), ledger.EventQuery{Account: ""})
	return len(list) + len(other)
}

// TestReceiveEventDeliveryLands: a send's messages move with the events
// posted for them; a duplicate leaves one record and changes nothing; a
// late sent after delivered changes nothing; an event for a message
// smsdesk did not send is kept, unmatched; an inbound message is filed.
func TestReceiveEventDeliveryLands(t *testing.T) {
	eng, out := webhookEngine(t, 2)
	ctx := context.Background()
	post := func(raw []byte) Receipt {
		t.Helper()
		r, err := eng.ReceiveEvent(ctx, "live", raw, Sign(testWebhookSecret, raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return r
	}
	m0, m1 := out.Results[0].MessageID, out.Results[1].MessageID
	steps := []struct {
		raw  []byte
		want Receipt
	}{
		{body("sms.delivered", m0, ""), Receipt{Event: "sms.delivered", MessageID: m0, SendID: out.Summary.JobID, Moved: true}},
		{body("sms.delivered", m0, ""), Receipt{Event: "sms.delivered", MessageID: m0, Duplicate: true}},
		{body("sms.sent", m0, ""), Receipt{Event: "sms.sent", MessageID: m0, SendID: out.Summary.JobID}},
		{body("sms.failed", m1, `,"status":"rejected"`), Receipt{Event: "sms.failed", MessageID: m1, SendID: out.Summary.JobID, Moved: true}},
		{body("sms.delivered", "not-ours", ""), Receipt{Event: "sms.delivered", MessageID: "not-ours", Unmatched: true}},
		{[]byte(`{"event":"sms.inbound","message_id":"in1","from":"+989120000000","to":"` + sandbox.DefaultSender + `","text":"لغو"}`),
			Receipt{Event: "sms.inbound", MessageID: "in1", Inbox: true}},
	}
	for i, s := range steps {
		s.want.Profile = "live"
		if got := post(s.raw); got != s.want {
			t.Errorf("step %d: %+v, want %+v", i, got, s.want)
		}
	}
	l, _ := eng.Paths.Ledger(ctx)
	rows, err := l.SendDeliveries(ctx, out.Summary.JobID)
	if err != nil || len(rows) != 2 || rows[0].State != model.DeliveryDelivered || rows[1].State != model.DeliveryRejected ||
		!rows[0].DeliveredAt.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("deliveries: %+v %v", rows, err)
	}
	if n := storedEvents(t, eng); n != 5 {
		t.Errorf("%d events stored, want 5 (the duplicate once)", n)
	}
	box, err := l.InboxMessages(ctx, eng.Client.AccountID(), 0)
	if err != nil || len(box) != 1 || box[0].Sender != "09120000000" || box[0].Line != sandbox.DefaultSender || box[0].Message != "لغو" ||
		box[0].SendID != out.Summary.JobID {
		t.Errorf("inbox: %+v %v", box, err)
	}
}

// TestReceiveEventLedgerCannotWrite: a ledger that cannot write the event
// refuses it as unavailable (the service tries again), and nothing of it
// is stored; the next post, once the ledger writes again, is taken.
func TestReceiveEventLedgerCannotWrite(t *testing.T) {
	eng, out := webhookEngine(t, 1)
	ctx := context.Background()
	loc, err := eng.Paths.LedgerLocation()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER full_disk BEFORE UPDATE ON deliveries BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`); err != nil {
		t.Fatal(err)
	}
	raw := body("sms.delivered", out.Results[0].MessageID, "")
	_, err = eng.ReceiveEvent(ctx, "live", raw, Sign(testWebhookSecret, raw))
	if !isProblem(err, WebhookUnavailable) {
		t.Fatalf("a ledger that cannot write: %v, want unavailable", err)
	}
	if n := storedEvents(t, eng); n != 0 {
		t.Fatalf("%d events stored when the ledger could not write", n)
	}
	if _, err := db.Exec(`DROP TRIGGER full_disk`); err != nil {
		t.Fatal(err)
	}
	if r, err := eng.ReceiveEvent(ctx, "live", raw, Sign(testWebhookSecret, raw)); err != nil || !r.Moved {
		t.Fatalf("once it writes again: %+v %v", r, err)
	}
}

// TestReceiveEventsTogether: many posts at once (each twice) are each
// answered after their own commit, and each event is stored once.
func TestReceiveEventsTogether(t *testing.T) {
	eng, out := webhookEngine(t, 5)
	ctx := context.Background()
	var raws [][]byte
	for _, it := range out.Results {
		for _, k := range []string{"sms.sent", "sms.delivered"} {
			raws = append(raws, body(k, it.MessageID, ""))
		}
	}
	for i := range 40 {
		raws = append(raws, body("sms.delivered", fmt.Sprintf("stranger-%d", i), ""))
	}
	var wg sync.WaitGroup
	results := make(chan Receipt, 2*len(raws))
	for range 2 {
		for _, raw := range raws {
			wg.Go(func() {
				r, err := eng.ReceiveEvent(ctx, "live", raw, Sign(testWebhookSecret, raw))
				if err != nil {
					t.Error(err)
				}
				results <- r
			})
		}
	}
	wg.Wait()
	close(results)
	dups := 0
	for r := range results {
		if r.Duplicate {
			dups++
		}
	}
	if dups != len(raws) || storedEvents(t, eng) != len(raws) {
		t.Errorf("%d duplicates and %d stored, want %d each", dups, storedEvents(t, eng), len(raws))
	}
	l, _ := eng.Paths.Ledger(ctx)
	rows, _ := l.SendDeliveries(ctx, out.Summary.JobID)
	for _, r := range rows {
		if r.State != model.DeliveryDelivered {
			t.Errorf("%s: %s, want delivered", r.MessageID, r.State)
		}
	}
}
