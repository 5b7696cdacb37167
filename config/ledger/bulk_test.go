package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// bulkEach runs test against a new ledger on every backend.
func bulkEach(t *testing.T, test func(t *testing.T, l *ledger.Ledger, loc string)) {
	t.Helper()
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			loc := b.Location(t)
			l, err := ledger.Create(context.Background(), loc)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			test(t, l, loc)
		})
	}
}

var bulkTime = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)

// bulkSend is a send's records: two items, the first accepted, the second
// of unknown outcome.
func bulkSend(id string) []model.JournalRecord {
	return []model.JournalRecord{
		&model.JournalPlan{ID: id, Time: bulkTime, Profile: "main", Sender: "3000505", BaseURL: "https://sms.example.com/v1", Account: "acct",
			Items: []model.JournalItem{{Index: 0, Recipient: "09121110001", Message: "a"}, {Index: 1, Recipient: "09121110002", Message: "b"}}},
		&model.JournalIntent{Time: bulkTime, Chunk: 0, Indexes: []int{0, 1}, Key: "k0"},
		&model.JournalOutcome{Time: bulkTime, Chunk: 0, Results: []model.JournalResult{
			{Index: 0, State: model.StateAccepted, MessageID: "m1"}, {Index: 1, State: model.StateUnknown}}},
		&model.JournalEnd{Time: bulkTime},
	}
}

// A load is one transaction: what it put is there together, with the
// sends' summaries and digests as replay makes them; an error puts none of it.
func TestLoadIsAllOrNothing(t *testing.T) {
	bulkEach(t, func(t *testing.T, l *ledger.Ledger, _ string) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := l.Load(ctx, func(b *ledger.Bulk) error {
			if err := b.PutSend(bulkSend("s1")); err != nil {
				return err
			}
			if _, err := b.PutOptOuts([]model.OptOut{{Mobile: "09121110009", Added: bulkTime}}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Load = %v, want boom", err)
		}
		if st, err := l.Status(ctx); err != nil || st.Sends != 0 || st.OptOuts != 0 {
			t.Fatalf("after a failed load: %+v, %v", st, err)
		}
		var added, onceAdded int
		err = l.Load(ctx, func(b *ledger.Bulk) error {
			if err := b.PutSend(bulkSend("s1")); err != nil {
				return err
			}
			var err error
			if added, err = b.PutOptOuts([]model.OptOut{{Mobile: "09121110009", Added: bulkTime}, {Mobile: "09121110009", Sender: "3000505", Added: bulkTime}}); err != nil {
				return err
			}
			if onceAdded, err = b.PutOnce([]ledger.OnceSend{{ID: "o1", SendID: "s1", Time: bulkTime}}); err != nil {
				return err
			}
			if err := b.PutAudit([]ledger.AuditEntry{{Time: bulkTime, Action: "a1", Body: []byte(`{"n":1}`)}, {Time: bulkTime, Action: "a2", Body: []byte(`{"n":2}`)}}); err != nil {
				return err
			}
			c, err := b.Counts()
			if want := (ledger.Counts{Sends: 1, Records: 4, OptOuts: 2, OnceIDs: 1, Audit: 2}); err != nil || c != want {
				t.Errorf("Counts = %+v, %v; want %+v", c, err, want)
			}
			return b.SetMeta("import:x", "done")
		})
		if err != nil || added != 2 || onceAdded != 1 {
			t.Fatalf("Load = %v (added %d, once %d)", err, added, onceAdded)
		}
		s, err := l.GetSend(ctx, "s1")
		if err != nil || s.State != ledger.StateEnded || s.Records != 4 || s.Leased || s.Host != "sms.example.com:443" {
			t.Errorf("GetSend = %+v, %v", s, err)
		}
		pairs, err := l.RecentPairs(ctx, ledger.RepeatScope{Account: "acct"}, bulkTime.Add(-time.Hour))
		if err != nil || len(pairs) != 1 || len(pairs[0].Keys) != 2 || pairs[0].Maybe == nil || !pairs[0].Maybe[1] {
			t.Errorf("RecentPairs = %+v, %v; want the accepted pair and the unknown one", pairs, err)
		}
		// The accepted message has its deliveries row, as from a run.
		rows, err := l.SendDeliveries(ctx, "s1")
		if err != nil || len(rows) != 1 || rows[0].MessageID != "m1" || rows[0].Recipient != "09121110001" || rows[0].Sender != "3000505" ||
			rows[0].Account != "acct" || rows[0].State != model.DeliveryPending {
			t.Errorf("SendDeliveries = %+v, %v; want m1 to 09121110001, pending", rows, err)
		}
		audit, err := l.ListAudit(ctx, 0, 0)
		if err != nil || len(audit) != 2 || audit[0].Action != "a1" || audit[1].Action != "a2" {
			t.Errorf("ListAudit = %+v, %v", audit, err)
		}
		if v, ok, err := l.Meta(ctx, "import:x"); v != "done" || !ok || err != nil {
			t.Errorf("Meta = %q, %v, %v", v, ok, err)
		}
		// A second load keeps the ledger's entries and refuses a send it has.
		err = l.Load(ctx, func(b *ledger.Bulk) error {
			n, err := b.PutOptOuts([]model.OptOut{{Mobile: "09121110009", Note: "later", Added: bulkTime.Add(time.Hour)}})
			if err != nil || n != 0 {
				t.Errorf("PutOptOuts of an entry held = %d, %v", n, err)
			}
			if n, err := b.PutOnce([]ledger.OnceSend{{ID: "o1", SendID: "s9", Time: bulkTime}}); err != nil || n != 0 {
				t.Errorf("PutOnce of an id held = %d, %v", n, err)
			}
			return b.PutSend(bulkSend("s1"))
		})
		if !errors.Is(err, ledger.ErrSendExists) {
			t.Errorf("a send put twice: %v", err)
		}
		if err := l.Load(ctx, func(b *ledger.Bulk) error { return b.SetMeta("ledger_id", "x") }); err == nil {
			t.Error("SetMeta changed the ledger's id")
		}
	})
}

// PutSend refuses records that are not a send.
func TestPutSendRefuses(t *testing.T) {
	bulkEach(t, func(t *testing.T, l *ledger.Ledger, _ string) {
		for name, recs := range map[string][]model.JournalRecord{
			"no records":   nil,
			"no plan":      bulkSend("s1")[1:],
			"an id of ../": append([]model.JournalRecord{&model.JournalPlan{ID: "../x", Time: bulkTime}}, bulkSend("s1")[1:]...),
		} {
			err := l.Load(context.Background(), func(b *ledger.Bulk) error { return b.PutSend(recs) })
			if err == nil {
				t.Errorf("%s: put", name)
			}
		}
	})
}

// Discard removes a ledger that holds nothing, and only such a ledger.
func TestDiscard(t *testing.T) {
	bulkEach(t, func(t *testing.T, l *ledger.Ledger, loc string) {
		ctx := context.Background()
		if _, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09121110001", Added: bulkTime}}); err != nil {
			t.Fatal(err)
		}
		if err := l.Discard(ctx); err == nil || !strings.Contains(err.Error(), "it is not discarded") {
			t.Fatalf("Discard of a ledger with an opt-out = %v", err)
		}
		if _, err := l.RemoveOptOuts(ctx, []string{"09121110001"}, ""); err != nil {
			t.Fatal(err)
		}
		if err := l.Discard(ctx); err != nil {
			t.Fatalf("Discard = %v", err)
		}
		if _, err := ledger.Open(ctx, loc); !errors.Is(err, ledger.ErrMissing) {
			t.Errorf("Open after Discard = %v, want ErrMissing", err)
		}
		again, err := ledger.Create(ctx, loc)
		if err != nil {
			t.Fatalf("Create after Discard = %v", err)
		}
		again.Close()
	})
}
