package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model/eventually"
)

// TestRealConsoleHearsOtherSessions (issue 40 item 15): two operators'
// consoles on one server. sara opts a contact out: reza's table marks it
// ⊘ without r; sara's send ends: reza's history, open meanwhile, lists it
// without r. (Before, reza's screens showed neither until he pressed r.)
func TestRealConsoleHearsOtherSessions(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 100})
	sara, reza := w.open("sara", nil), w.open("reza", nil)
	sara.waitFor("sara (sender)", "09018901234")
	reza.waitFor("reza (sender)", "09018901234")
	if strings.Contains(reza.out.String(), "⊘") {
		t.Fatal("a contact is opted out before sara's o")
	}

	sara.key("\t") // the contacts pane, on the first contact
	sara.key("o")
	sara.waitFor("Opt out?")
	sara.key("y")
	sara.waitFor("⊘ 09121234567")
	reza.waitFor("⊘ 09121234567") // no key pressed on reza's terminal

	reza.key("h")
	reza.waitFor("No sends yet")
	sara.compose()
	sara.key("y")
	eventually.True(t, wait, func() bool { return len(w.sb.Sent()) == 7 }, func() string { return "sara's 7 messages did not all go" })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.tracker.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	id := w.journals()[0].Plan.ID
	reza.waitFor(id[:15]) // its row in reza's history (the id, cut to its column)
}
