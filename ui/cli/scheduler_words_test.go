package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// A scheduler a failed write stopped says what is true of what went: the
// chunk in flight when its write failed (a zombie runner's, whose lease
// another runner took while it was stopped) may have been taken and is
// unknown. It said "nothing was sent that could not be recorded", though
// the zombie's chunk in flight had been accepted.
func TestSchedulerStoppedSaysWhatIsTrue(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"its lease taken over", fmt.Errorf("send s1 stopped: writing send journal s1: %w", ledger.ErrLeaseLost),
			[]string{"another runner took the send over", "may have gone and is unknown", "smsdesk history show ID"}},
		{"a write failed", errors.New("send s1 stopped: writing send journal s1: database or disk is full"),
			[]string{"every request was recorded before it left", "the chunk in flight when the write failed may have gone and is unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ee *ExitError
			if !errors.As(writeFailed(tc.err), &ee) || ee.Code != ExitService {
				t.Fatalf("writeFailed: %v", ee)
			}
			if strings.Contains(ee.Hint, "nothing was sent that could not be recorded") {
				t.Errorf("hint %q says nothing went unrecorded", ee.Hint)
			}
			for _, w := range tc.want {
				if !strings.Contains(ee.Hint, w) {
					t.Errorf("hint %q does not say %q", ee.Hint, w)
				}
			}
		})
	}
}
