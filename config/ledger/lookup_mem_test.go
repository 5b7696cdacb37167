package ledger

import (
	"context"
	"fmt"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// TestLookupOnAnEmptyList: a plan's numbers are not looked up one batch
// after another in an empty opt-out list (most ledgers): one question
// answers them all, and nothing a number is allocated. A million-row dry
// run held them in a map and a slice of interfaces besides (464 MB RSS,
// against 319 MB before the ledger; issue 26's budget is 400 MB).
func TestLookupOnAnEmptyList(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, ledgertest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plan := make([]string, 100_000)
	for i := range plan {
		plan[i] = fmt.Sprintf("0912%07d", i)
	}
	allocs := testing.AllocsPerRun(2, func() {
		if got, err := l.LookupOptOuts(ctx, plan); err != nil || len(got) != 0 {
			t.Fatalf("LookupOptOuts: %v %v", got, err)
		}
	})
	if allocs > 100 {
		t.Errorf("looking up %d numbers in an empty list allocated %.0f times, want a few", len(plan), allocs)
	}
}
