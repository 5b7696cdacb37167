package serve

import (
	"context"
	"testing"

	"github.com/smsdesk/smsdesk/model/eventually"
)

// TestRealConsoleRepeatNeedsItsCount: over smsdesk serve, reza composes
// the campaign sara has just sent: the question names sara's send, and
// reza's y and enter do not send it again (issue 27 item 2: the same y as
// any send did); only the count typed does.
func TestRealConsoleRepeatNeedsItsCount(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.compose()
	sara.key("y")
	eventually.True(t, wait, func() bool { return len(w.sb.Sent()) == 8 }, func() string { return "sara's 8 messages did not all go" })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	reza.compose()
	reza.waitFor("8 of them repeat an earlier send", "by sara", "Type 8, then enter, to send them again")
	reza.key("y")
	reza.key("\r")
	reza.waitFor("y alone does not send them again: type 8, then enter")
	if n := len(w.sb.Sent()); n != 8 {
		t.Fatalf("reza's y and enter sent the campaign again: %d messages", n)
	}
	reza.key("8")
	reza.key("\r")
	eventually.True(t, wait, func() bool { return len(w.sb.Sent()) == 16 }, func() string { return "reza's typed count did not send the repeat" })
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	w.noKeyAnywhere(sara, reza)
}
