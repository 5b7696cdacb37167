package ledger

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// pastSends puts n ended sends (a plan of one pair, its intent, outcome
// and end) and n audit records into l in one load: a ledger's history.
func pastSends(tb testing.TB, l *Ledger, n int) {
	tb.Helper()
	err := l.Load(context.Background(), func(b *Bulk) error {
		audit := make([]AuditEntry, 0, 1000)
		for i := range n {
			id := fmt.Sprintf("past-%07d", i)
			if err := b.PutSend([]model.JournalRecord{
				&model.JournalPlan{ID: id, Time: t0, Profile: "work", Sender: "3000", Account: "acct1", BaseURL: "https://sms.example.com",
					Items: []model.JournalItem{{Index: 0, Recipient: fmt.Sprintf("0912%07d", i), Message: "your code is 1234"}}},
				&model.JournalIntent{Time: t0, Indexes: []int{0}, Key: id + "-0"},
				&model.JournalOutcome{Time: t0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m" + id}}},
				&model.JournalEnd{Time: t0},
			}); err != nil {
				return err
			}
			audit = append(audit, AuditEntry{Time: t0, Action: "contacts.add", Body: []byte(`{"action":"contacts.add","mobile":"0912` + fmt.Sprintf("%07d", i) + `"}`)})
			if len(audit) == cap(audit) || i == n-1 {
				if err := b.PutAudit(audit); err != nil {
					return err
				}
				audit = audit[:0]
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkQuickCheck is QuickCheck (SQLite's quick_check: every page
// read) against the ledger's part of one new send (open, plan, one chunk's
// intent and outcome, end, close), over 100, 10,000 and 100,000 past
// sends: what a check before each send would add to it.
func BenchmarkQuickCheck(b *testing.B) {
	ctx := context.Background()
	for _, be := range ledgertest.Backends() {
		for _, past := range []int{100, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/past=%d", be.Name, past), func(b *testing.B) {
				loc := be.Location(b)
				l, err := Create(ctx, loc)
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				pastSends(b, l, past)
				b.Run("check", func(b *testing.B) {
					for b.Loop() {
						if err := l.QuickCheck(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
				n := 0
				b.Run("send", func(b *testing.B) {
					for b.Loop() {
						n++
						oneSend(b, loc, fmt.Sprintf("new-%07d", n))
					}
				})
			})
		}
	}
}

// oneSend is the ledger's part of a one-pair send, from its own open.
func oneSend(tb testing.TB, loc, id string) {
	ctx := context.Background()
	l, err := Open(ctx, loc)
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	lease, err := l.CreateSend(ctx, id, plan(id, 1, time.Time{}), "send-pair", 0)
	if err != nil {
		tb.Fatal(err)
	}
	for _, rec := range []model.JournalRecord{
		&model.JournalIntent{Time: t0, Indexes: []int{0}, Key: id},
		&model.JournalOutcome{Time: t0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m"}}},
		&model.JournalEnd{Time: t0},
	} {
		if err := lease.Append(ctx, rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := lease.Release(ctx); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkVerify is a runner's verification (Verify: the store's pages,
// the damage mark, every row replayed against its summary, every opt-out,
// once-only id and audit record) over past sends, on both backends: what
// a runner pays at its start and at most once an hour, and ledger status
// and doctor each time (they check the pages with integrity_check).
func BenchmarkVerify(b *testing.B) {
	ctx := context.Background()
	for _, be := range ledgertest.Backends() {
		for _, past := range []int{100, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/past=%d", be.Name, past), func(b *testing.B) {
				loc := be.Location(b)
				l, err := Create(ctx, loc)
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				pastSends(b, l, past)
				b.Run("verify", func(b *testing.B) {
					for b.Loop() {
						if _, err := l.Verify(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("rows", func(b *testing.B) {
					for b.Loop() {
						if _, err := l.VerifyRows(ctx); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}
