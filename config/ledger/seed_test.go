package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// TestSeedSends: the benchmarks' seeded sends read back as sends the
// ledger wrote itself: newest first, ended, one accepted pair each, in
// history's index and none due.
func TestSeedSends(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, loc string) {
		newest := t0.Add(-25 * time.Hour)
		ledgertest.SeedSends(t, loc, 700, *plan("", 0, time.Time{}), newest, time.Minute)
		if n, err := l.CountSends(ctx, SendQuery{}); err != nil || n != 700 {
			t.Fatalf("CountSends: %d %v", n, err)
		}
		page, err := l.ListSends(ctx, SendQuery{Limit: 3, Offset: 1})
		if err != nil || len(page) != 3 || page[0].ID != "seed-0000001" || !page[0].PlanTime.Equal(newest.Add(-time.Minute)) ||
			page[0].State != StateEnded || page[0].Items != 1 || page[0].Records != 4 || page[0].Host != "sms.example.com:443" {
			t.Fatalf("ListSends: %+v %v", page, err)
		}
		st, err := l.ReadSend(ctx, page[2].ID)
		if err != nil || st.Plan.ID != page[2].ID || !st.Ended || !st.Complete() || st.Items[0].State != model.StateAccepted {
			t.Fatalf("ReadSend: %+v %v", st, err)
		}
		if due, err := l.Due(ctx, t0, 10); err != nil || len(due) != 0 {
			t.Errorf("Due: %+v %v", due, err)
		}
		scope := RepeatScope{Account: "acct1", Profile: "work", Host: "sms.example.com:443"}
		if got, err := l.RecentPairs(ctx, scope, newest.Add(-2*time.Minute)); err != nil || len(got) != 3 {
			t.Errorf("RecentPairs in the last three minutes: %d sends %v", len(got), err)
		}
	})
}
