package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// sendAccepting records send id (n items to 0912000000i, account acct1,
// line 3000) and one chunk whose outcome accepts the items listed, item i
// as message "m<i>", at time at. It returns the lease (more records may
// follow).
func sendAccepting(t *testing.T, l *Ledger, id string, n int, at time.Time, accepted ...int) *Lease {
	t.Helper()
	ctx := context.Background()
	lease, err := l.CreateSend(ctx, id, plan(id, n, time.Time{}), "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if err := lease.Append(ctx, &model.JournalIntent{Time: at, Chunk: 0, Indexes: idx, Key: "k"}); err != nil {
		t.Fatal(err)
	}
	o := &model.JournalOutcome{Time: at, Chunk: 0}
	for i := range n {
		r := model.JournalResult{Index: i, State: model.StateRejected, Code: "invalid_number"}
		for _, a := range accepted {
			if a == i {
				r = model.JournalResult{Index: i, State: model.StateAccepted, MessageID: fmt.Sprintf("m%d", i)}
			}
		}
		o.Results = append(o.Results, r)
	}
	if err := lease.Append(ctx, o); err != nil {
		t.Fatal(err)
	}
	return lease
}

// ev is a delivery event of account acct1's message id.
func ev(id, kind, status string, at time.Time) Event {
	return Event{Account: "acct1", Profile: "work", MessageID: id, Kind: kind, Status: status, OccurredAt: at, ReceivedAt: at,
		Body: fmt.Appendf(nil, `{"event":%q,"message_id":%q}`, kind, id)}
}

func record(t *testing.T, l *Ledger, events ...Event) []EventResult {
	t.Helper()
	res, err := l.RecordEvents(context.Background(), events)
	if err != nil {
		t.Fatalf("RecordEvents: %v", err)
	}
	return res
}

// states are send id's deliveries as (index, state, time of that state).
func states(t *testing.T, l *Ledger, id string) []string {
	t.Helper()
	rows, err := l.SendDeliveries(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range rows {
		out = append(out, fmt.Sprintf("%d %s %s %s", d.Index, d.MessageID, d.State, d.At(d.State).Format("15:04")))
	}
	return out
}

// TestOutcomeWritesDeliveries: an outcome's accepted messages get their
// rows in its own transaction, pending from its time, due for the poller
// delivery_poll_after later; the rejected none.
func TestOutcomeWritesDeliveries(t *testing.T) {
	at := t0.Add(time.Hour)
	each(t, func(t *testing.T, l *Ledger, loc string) {
		sendAccepting(t, l, "s1", 3, at, 0, 2)
		rows, err := l.SendDeliveries(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		want := []Delivery{
			{SendID: "s1", Index: 0, MessageID: "m0", Account: "acct1", Sender: "3000", Recipient: "09120000000", State: model.DeliveryPending,
				AcceptedAt: at, Updated: at, NextPoll: at.Add(DefaultDeliveryPollAfter)},
			{SendID: "s1", Index: 2, MessageID: "m2", Account: "acct1", Sender: "3000", Recipient: "09120000002", State: model.DeliveryPending,
				AcceptedAt: at, Updated: at, NextPoll: at.Add(DefaultDeliveryPollAfter)},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("deliveries:\n%+v\nwant\n%+v", rows, want)
		}
		// A lease that claimed the send (it never saw the plan) reads the
		// numbers from it; the poll time is the process's setting.
		ctx := context.Background()
		first, err := l.CreateSend(ctx, "s2", plan("s2", 2, time.Time{}), "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Release(ctx); err != nil {
			t.Fatal(err)
		}
		other := reopen(t, loc)
		other.SetDeliveryPollAfter(time.Hour)
		lease, err := other.Claim(ctx, "s2", "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(ctx, &model.JournalIntent{Time: at, Indexes: []int{0, 1}, Key: "k"}); err != nil {
			t.Fatal(err)
		}
		if err := lease.Append(ctx, &model.JournalOutcome{Time: at, Results: []model.JournalResult{
			{Index: 0, State: model.StateFailed}, {Index: 1, State: model.StateAccepted, MessageID: "x1"}}}); err != nil {
			t.Fatal(err)
		}
		rows, err = l.SendDeliveries(ctx, "s2")
		if err != nil || len(rows) != 1 || rows[0].Recipient != "09120000001" || !rows[0].NextPoll.Equal(at.Add(time.Hour)) {
			t.Errorf("claimed send's deliveries: %+v %v, want x1 to 09120000001 polled at 11:00", rows, err)
		}
	})
}

// TestOutcomeAndDeliveriesOneTransaction: when the deliveries rows cannot
// be written, the outcome is not either (and the run is told), and the
// other way round.
func TestOutcomeAndDeliveriesOneTransaction(t *testing.T) {
	ctx := context.Background()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			l, err := Create(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			lease, err := l.CreateSend(ctx, "s1", plan("s1", 2, time.Time{}), "test", 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: []int{0, 1}, Key: "k"}); err != nil {
				t.Fatal(err)
			}
			failDeliveries(t, b.Name, loc)
			err = lease.Append(ctx, &model.JournalOutcome{Time: t0, Results: []model.JournalResult{
				{Index: 0, State: model.StateAccepted, MessageID: "m0"}, {Index: 1, State: model.StateAccepted, MessageID: "m1"}}})
			if err == nil || !strings.Contains(err.Error(), "(test)") {
				t.Fatalf("outcome with its deliveries refused: %v", err)
			}
			if recs := ledgertest.Records(t, loc, "s1"); len(recs) != 2 {
				t.Errorf("%d records after the failed outcome, want 2 (plan, intent)", len(recs))
			}
			if got := states(t, l, "s1"); len(got) != 0 {
				t.Errorf("deliveries without their outcome: %v", got)
			}
		})
	}
}

// failDeliveries makes every deliveries row written from now on fail.
func failDeliveries(t *testing.T, backend, loc string) {
	t.Helper()
	driver, stmts := "sqlite", []string{`CREATE TRIGGER no_deliveries BEFORE INSERT ON deliveries BEGIN SELECT RAISE(ABORT, 'no (test)'); END`}
	if backend == "postgres" {
		driver, stmts = "pgx", []string{
			`CREATE FUNCTION no_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no (test)'; END $$`,
			`CREATE TRIGGER no_deliveries BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION no_deliveries()`,
		}
	}
	db, err := sql.Open(driver, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventsMoveDeliveryForward: each event moves its message's state
// forward and keeps the state's time; a late sms.sent after delivered, a
// repeat, a failed after delivered change nothing; rejected is a failed
// event with status rejected.
func TestEventsMoveDeliveryForward(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	each(t, func(t *testing.T, l *Ledger, loc string) {
		sendAccepting(t, l, "s1", 3, at(0), 0, 1, 2)
		steps := []struct {
			e    Event
			want EventResult
		}{
			{ev("m0", EventSent, "", at(1)), EventResult{SendID: "s1", Moved: true}},
			{ev("m0", EventDelivered, "", at(2)), EventResult{SendID: "s1", Moved: true}},
			{ev("m1", EventDelivered, "", at(3)), EventResult{SendID: "s1", Moved: true}},
			{ev("m1", EventSent, "", at(4)), EventResult{SendID: "s1"}},         // late: changes nothing
			{ev("m0", EventDelivered, "", at(5)), EventResult{Duplicate: true}}, // again
			{ev("m0", EventFailed, "", at(6)), EventResult{SendID: "s1"}},       // a second final: the first stays
			{ev("m2", EventFailed, "rejected", at(7)), EventResult{SendID: "s1", Moved: true}},
		}
		for i, s := range steps {
			if got := record(t, l, s.e); !reflect.DeepEqual(got, []EventResult{s.want}) {
				t.Errorf("step %d (%s %s): %+v, want %+v", i, s.e.MessageID, s.e.Kind, got, s.want)
			}
		}
		want := []string{"0 m0 delivered 09:02", "1 m1 delivered 09:03", "2 m2 rejected 09:07"}
		if got := states(t, l, "s1"); !reflect.DeepEqual(got, want) {
			t.Errorf("states %v, want %v", got, want)
		}
		rows, _ := l.SendDeliveries(context.Background(), "s1")
		if !rows[0].SentAt.Equal(at(1)) || !rows[1].SentAt.IsZero() || !rows[0].NextPoll.IsZero() {
			t.Errorf("m0 sent at %v (want 09:01), m1 sent at %v (want never: it came late), m0 polled next %v (want never)",
				rows[0].SentAt, rows[1].SentAt, rows[0].NextPoll)
		}
		stored, err := l.ListEvents(context.Background(), EventQuery{Account: "acct1", MessageID: "m0"})
		if err != nil || len(stored) != 3 {
			t.Fatalf("m0's events: %d %v, want 3 (sent, delivered once, failed)", len(stored), err)
		}
	})
}

// TestEventsBeforeTheOutcome: events that come before the outcome that
// accepted their message are kept unmatched, then applied when the
// outcome writes its rows (each state's time kept, in the order of the
// states whatever the order they came in); an event about a message
// smsdesk never sent stays unmatched.
func TestEventsBeforeTheOutcome(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		got := record(t, l, ev("m0", EventDelivered, "", at(2)), ev("m0", EventSent, "", at(1)), ev("m1", EventFailed, "", at(3)),
			ev("stranger", EventDelivered, "", at(1)))
		for i, r := range got {
			if r != (EventResult{}) {
				t.Errorf("event %d before any outcome: %+v, want unmatched and nothing moved", i, r)
			}
		}
		sendAccepting(t, l, "s1", 3, at(0), 0, 1)
		want := []string{"0 m0 delivered 09:02", "1 m1 failed 09:03"}
		if got := states(t, l, "s1"); !reflect.DeepEqual(got, want) {
			t.Errorf("after the outcome: %v, want %v", got, want)
		}
		rows, _ := l.SendDeliveries(ctx, "s1")
		if !rows[0].SentAt.Equal(at(1)) {
			t.Errorf("m0's sent time %v, want 09:01", rows[0].SentAt)
		}
		unmatched, err := l.ListEvents(ctx, EventQuery{Account: "acct1", Unmatched: true})
		if err != nil || len(unmatched) != 1 || unmatched[0].MessageID != "stranger" {
			t.Errorf("unmatched: %+v %v, want the stranger's alone", unmatched, err)
		}
		all, _ := l.ListEvents(ctx, EventQuery{Account: "acct1", MessageID: "m0"})
		for _, e := range all {
			if e.Matched != "s1" {
				t.Errorf("m0's %s: matched %q, want s1", e.Kind, e.Matched)
			}
		}
		// The same message id on another account is another message.
		other := ev("m0", EventFailed, "", at(9))
		other.Account = "acct2"
		if got := record(t, l, other); got[0] != (EventResult{}) {
			t.Errorf("acct2's m0: %+v, want unmatched", got[0])
		}
		if got := states(t, l, "s1"); !reflect.DeepEqual(got, want) {
			t.Errorf("after acct2's event: %v, want %v", got, want)
		}
	})
}

// TestInboundFiledInTheInbox: an sms.inbound event is filed in the inbox
// once, linked to the last send from its line to its number.
func TestInboundFiledInTheInbox(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		sendAccepting(t, l, "s1", 2, t0, 0, 1)
		sendAccepting(t, l, "s2", 2, t0.Add(time.Hour), 1)
		in := func(id, from, line string) Event {
			e := ev(id, EventInbound, "", t0.Add(2*time.Hour))
			e.Inbound = &Inbound{Sender: from, Line: line, Message: "کی می\u200cرسد؟"}
			return e
		}
		res := record(t, l, in("r1", "09120000001", "3000"), in("r2", "09120000000", "3000"), in("r3", "09120000001", "4000"),
			in("r1", "09120000001", "3000"))
		if res[0].Inbox == 0 || res[1].Inbox == 0 || res[2].Inbox == 0 || !res[3].Duplicate || res[3].Inbox != 0 {
			t.Fatalf("results %+v", res)
		}
		box, err := l.InboxMessages(ctx, "acct1", 0)
		if err != nil || len(box) != 3 {
			t.Fatalf("inbox: %+v %v", box, err)
		}
		links := map[string]string{}
		for _, m := range box {
			links[m.MessageID] = m.SendID
			if m.Message != "کی می\u200cرسد؟" || m.Action != "" {
				t.Errorf("%s: %q action %q", m.MessageID, m.Message, m.Action)
			}
		}
		if want := map[string]string{"r1": "s2", "r2": "s1", "r3": ""}; !reflect.DeepEqual(links, want) {
			t.Errorf("links %v, want %v", links, want)
		}
	})
}

// TestTwoLedgersRecordEachEventOnce is two receivers (two processes' Ledgers)
// behind one URL on one ledger: the same events posted to both at once,
// and outcomes written meanwhile by a third, leave one record of each
// event and every message in its last state.
func TestTwoLedgersRecordEachEventOnce(t *testing.T) {
	ctx := context.Background()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			sender, err := Create(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			defer sender.Close()
			a, c := reopen(t, loc), reopen(t, loc)
			const sends, per = 10, 10
			var events []Event
			for s := range sends {
				for i := range per {
					id := fmt.Sprintf("m%d", i)
					m := fmt.Sprintf("s%d-%s", s, id)
					for _, k := range []string{EventSent, EventDelivered} {
						e := ev(m, k, "", t0.Add(time.Minute))
						events = append(events, e)
					}
				}
			}
			var wg sync.WaitGroup
			errs := make(chan error, 3*len(events))
			for _, l := range []*Ledger{a, c} {
				wg.Go(func() {
					for _, e := range events {
						if _, err := l.RecordEvents(ctx, []Event{e}); err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Go(func() {
				for s := range sends {
					if err := acceptAll(ctx, sender, fmt.Sprintf("s%d", s), per); err != nil {
						errs <- err
					}
				}
			})
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			stored, err := a.ListEvents(ctx, EventQuery{Account: "acct1"})
			if err != nil || len(stored) != len(events) {
				t.Fatalf("%d events stored %v, want %d (each once)", len(stored), err, len(events))
			}
			for s := range sends {
				rows, err := a.SendDeliveries(ctx, fmt.Sprintf("s%d", s))
				if err != nil || len(rows) != per {
					t.Fatalf("s%d: %d rows %v", s, len(rows), err)
				}
				for _, r := range rows {
					if r.State != model.DeliveryDelivered || r.SentAt.IsZero() {
						t.Errorf("s%d %s: %s, sent at %v; want delivered, its sent time kept", s, r.MessageID, r.State, r.SentAt)
					}
				}
			}
			if left, _ := a.ListEvents(ctx, EventQuery{Account: "acct1", Unmatched: true}); len(left) != 0 {
				t.Errorf("%d events left unmatched, want none", len(left))
			}
		})
	}
}

// acceptAll records send id of n items, every one accepted as "<id>-m<i>".
func acceptAll(ctx context.Context, l *Ledger, id string, n int) error {
	lease, err := l.CreateSend(ctx, id, plan(id, n, time.Time{}), "test", 0)
	if err != nil {
		return err
	}
	idx := make([]int, n)
	o := &model.JournalOutcome{Time: t0}
	for i := range n {
		idx[i] = i
		o.Results = append(o.Results, model.JournalResult{Index: i, State: model.StateAccepted, MessageID: fmt.Sprintf("%s-m%d", id, i)})
	}
	if err := lease.Append(ctx, &model.JournalIntent{Time: t0, Indexes: idx, Key: "k"}); err != nil {
		return err
	}
	return lease.Append(ctx, o)
}
