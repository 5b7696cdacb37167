package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/ui/app"
)

// A scheduler a failed write stopped says what is true of what went: the
// chunk in flight when its write failed (a zombie runner's, whose lease
// another runner took while it was stopped) may have been taken and is
// unknown. It said "nothing was sent that could not be recorded", though
// the zombie's chunk in flight had been accepted. A scheduler that could
// not look (a ledger that never answers) stopped no send, and says so: it
// said a chunk in flight may have gone.
func TestSchedulerStoppedSaysWhatIsTrue(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"its lease taken over", &app.SendStoppedError{ID: "s1", Err: fmt.Errorf("writing send journal s1: %w", ledger.ErrLeaseLost)},
			[]string{"another runner took the send over", "may have gone and is unknown", "smsdesk history show ID"}},
		{"a write failed", &app.SendStoppedError{ID: "s1", Err: errors.New("writing send journal s1: database or disk is full")},
			[]string{"every request was recorded before it left", "the chunk in flight when the write failed may have gone and is unknown"}},
		// A look that failed stopped no send: it had no chunk in flight.
		{"a look failed", errors.New("connecting to the ledger postgres://[REDACTED]@127.0.0.1:5432/smsdesk: timeout"),
			[]string{"could not look at the ledger, and no send stopped for it", "smsdesk ledger status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ee *ExitError
			if !errors.As(writeFailed(tc.err), &ee) || ee.Code != ExitService {
				t.Fatalf("writeFailed: %v", ee)
			}
			if strings.Contains(ee.Hint, "nothing was sent that could not be recorded") {
				t.Errorf("hint %q says nothing went unrecorded", ee.Hint)
			}
			if tc.name == "a look failed" && strings.Contains(ee.Hint, "chunk in flight") {
				t.Errorf("hint %q speaks of a chunk in flight where no send was stopped", ee.Hint)
			}
			for _, w := range tc.want {
				if !strings.Contains(ee.Hint, w) {
					t.Errorf("hint %q does not say %q", ee.Hint, w)
				}
			}
		})
	}
}
