package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model/eventually"
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

// TestEveryActionRechecks: with the server's own recheck out of the way
// (an hour), each action still reads the operators file as it is then:
// sara made a viewer is refused her next send naming her new role, made a
// sender again she sends; reza removed is refused his next send as no
// longer an operator. Nothing of either refusal reaches the service.
func TestEveryActionRechecks(t *testing.T) {
	w := newWorld(t, worldOptions{serve: func(o *Options) { o.Recheck = time.Hour }})
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.waitFor("operator=sara")
	reza.waitFor("operator=reza")
	if err := config.SetOperatorRole(w.paths, "sara", "viewer"); err != nil {
		t.Fatal(err)
	}
	sara.key("s")
	if got := w.outcome(); !strings.Contains(got, "sara: refused: sending needs the sender role (sara is a viewer)") {
		t.Errorf("sara's send as a viewer: %s", got)
	}
	if err := config.RemoveOperator(w.paths, "reza"); err != nil {
		t.Fatal(err)
	}
	reza.key("s")
	if got := w.outcome(); !strings.Contains(got, "reza: refused: reza is no longer an operator of this server; nothing was done") {
		t.Errorf("reza's send after his removal: %s", got)
	}
	if n := w.sb.Requests(); n != 0 {
		t.Errorf("%d requests reached the service", n)
	}
	if err := config.SetOperatorRole(w.paths, "sara", "sender"); err != nil {
		t.Fatal(err)
	}
	sara.key("s")
	if got := w.outcome(); !strings.HasPrefix(got, "sara: sent") {
		t.Errorf("sara's send as a sender again: %s", got)
	}
}

// TestRealConsoleRoleChange: the console itself: vida (viewer) is made a
// sender while signed in: within the recheck her console is drawn again
// with the keys of a sender (its footer offers c compose, which a viewer's
// does not), and c opens the composer; sara (sender) made a viewer: c is
// refused naming her new role.
func TestRealConsoleRoleChange(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 220})
	vida, sara := w.open("vida", nil), w.open("sara", nil)
	vida.waitFor("vida (viewer)", "09018901234")
	sara.waitFor("sara (sender)", "09018901234")
	if strings.Contains(vida.out.String(), "compose") {
		t.Fatal("a viewer's footer offers compose")
	}
	if err := config.SetOperatorRole(w.paths, "vida", "sender"); err != nil {
		t.Fatal(err)
	}
	if err := config.SetOperatorRole(w.paths, "sara", "viewer"); err != nil {
		t.Fatal(err)
	}
	vida.waitFor("compose")
	eventually.True(t, wait, func() bool { return strings.Contains(w.log.String(), `msg="role changed" operator=vida`) },
		func() string { return "no role change in the log:\n" + w.log.String() })
	vida.key("c")
	vida.waitFor("Message template")
	sara.key("c")
	sara.waitFor("✗ sending needs the sender role (sara is a viewer)")
}
