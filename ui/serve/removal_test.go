package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
)

// ended waits (at most wait) for a terminal's session to end and returns
// how it ended.
func (tm *terminal) ended() error {
	tm.t.Helper()
	done := make(chan error, 1)
	go func() { done <- tm.sess.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		tm.t.Fatalf("the session is still open after %v:\n%s", wait, tm.out.String())
	}
	return nil
}

// TestRemovalEndsTheSession: reza is removed from the operators file while
// his send's chunk is in flight: his session is told why and closed (exit
// 1) without waiting for the chunk; the chunk is journaled, the rest not
// sent, nothing unknown; he cannot sign in again; sara's session goes on.
func TestRemovalEndsTheSession(t *testing.T) {
	w := newWorld(t, worldOptions{holdAt: 2}) // the operators file read again every second (DefaultRecheck)
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.waitFor("operator=sara")
	reza.waitFor("operator=reza")
	reza.key("s")
	w.waitHeld()
	removed := time.Now()
	if err := config.RemoveOperator(w.paths, "reza"); err != nil {
		t.Fatal(err)
	}
	var ee *gossh.ExitError
	if err := reza.ended(); !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("reza's session ended with %v, want exit 1", err)
	}
	t.Logf("reza's session ended %v after the removal (the file is read again every %v)", time.Since(removed).Round(time.Millisecond), DefaultRecheck)
	reza.waitFor("smsdesk serve: reza is no longer an operator of this server (smsdesk operators remove); session closed")
	w.releaseOnce()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if c := w.journals()[0].Counts(); c.Unknown != 0 || c.Accepted != 2 || c.NotSent != 2 {
		t.Errorf("reza's send after his removal: %+v; want 2 accepted, 2 not sent, 0 unknown", c)
	}
	if !strings.Contains(w.log.String(), `msg="closing the session: reza is no longer an operator`) {
		t.Errorf("log:\n%s", w.log.String())
	}
	if c, err := w.dial("reza"); err == nil {
		c.Close()
		t.Error("reza signed in again after his removal")
	}
	if err := sara.sess.WindowChange(24, 81); err != nil {
		t.Fatal(err)
	}
	sara.waitFor("81x24")
}
