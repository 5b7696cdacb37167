package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestConfirmTimeFromTheService: the confirmation's time for 300 requests
// at a service that announced 5 (X-RateLimit-Limit) without its window is
// "at least 59 s", the window taken as a second, not 5 a minute's "about 60
// min" (issue 27 item 11).
func TestConfirmTimeFromTheService(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{RatePerMinute: 5, RateWindow: time.Second})
	paths := config.PathsIn(t.TempDir(), t.TempDir())
	t.Cleanup(func() { paths.CloseLedger() })
	if err := config.TrackGroup(paths, "test", groupNewsletter); err != nil {
		t.Fatal(err)
	}
	e.opts.Session.Paths = paths
	e.opts.Session.Profile.ChunkSize = 1
	tm := e.start(t)
	waitModel(t, tm, "group 4", func(m *root) bool { return m.contacts.group.ID == "4" && len(m.contacts.rows) == 300 })
	writeTemplate(t, tm, "Hi", 300)
	tm.Send(press("ctrl+s"))
	waitModel(t, tm, "the confirmation's time", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(strings.Join(strings.Fields(d.body), " "), "Time: at least 59 s (300 requests, 5 per window; the service has not said its window)")
	})
	tm.Send(press("n"))
	finalView(t, tm)
}
