package cli

import (
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// TestSchedulerWaitLine: a runner's log line for a write that waits names
// what it waits for, what waits and how long, sanitised, without the
// record wait's bound (its look gives up sooner); a wait's end is not
// logged (by hand, a look that gave up logged "the ledger is free again:
// … went on after 25s").
func TestSchedulerWaitLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		w    ledger.Wait
		want string
	}{
		{"waiting", ledger.Wait{What: "claiming due sends", For: "another smsdesk holds its write lock (/s/smsdesk.db)", Waited: 1234 * time.Millisecond, Bound: 2 * time.Minute},
			"waiting for the ledger: another smsdesk holds its write lock (/s/smsdesk.db); claiming due sends, waited 1.2s"},
		{"long", ledger.Wait{What: "verifying", For: "x", Waited: 23600 * time.Millisecond, Bound: 2 * time.Minute},
			"waiting for the ledger: x; verifying, waited 24s"},
		{"a holder's query sanitised", ledger.Wait{What: "claiming due sends", For: "PostgreSQL session 7 holds a lock on sends (psql: LOCK\x1b[2J TABLE\nsends)", Waited: time.Second},
			"waiting for the ledger: PostgreSQL session 7 holds a lock on sends (psql: LOCK TABLE sends); claiming due sends, waited 1s"},
		{"over", ledger.Wait{What: "claiming due sends", Waited: 25 * time.Second, Over: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitLine(tt.w); got != tt.want {
				t.Errorf("waitLine:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
