package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/app"
)

// readingRules makes the world's sessions read the profile's rules from
// the config file as they are now (app.ProfileSettings), as smsdesk
// serve's do.
func readingRules(o *Options) {
	open := o.NewSession
	o.NewSession = func(op model.Operator) *app.Session {
		s := open(op)
		s.Settings = app.ProfileSettings(s.Paths, "live")
		return s
	}
}

// setLive is `smsdesk config set quiet_hours …` on the host: profile live
// in the world's config file ("" for none).
func (w *world) setLive(quiet string) {
	w.t.Helper()
	_, err := config.Update(w.paths, func(c *config.Config) error {
		return c.SetProfile(&config.Profile{Name: "live", Sender: w.sb.Senders()[0], Senders: w.sb.Senders(), QuietHours: quiet})
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// TestServedConsoleReadsTheRulesAsTheyAreNow (issue 40 item 3): after
// `config set quiet_hours` on the host while serve runs, a session open
// since before (sara) and one opened after (reza) both show the quiet
// hours as set: the status bar said "quiet hours until 08:00" from serve's
// start in old and new sessions alike, while a send followed the new
// value. The old session's bar follows within about a second (a stat of
// config.toml by the console's clock, off its loop); ctrl+l redraws it
// whole, so that the test reads it in the stream of bytes.
func TestServedConsoleReadsTheRulesAsTheyAreNow(t *testing.T) {
	w := newWorld(t, worldOptions{real: true, cols: 120, serve: readingRules})
	w.setLive("")
	sara := w.open("sara", nil)
	sara.waitFor("09018901234", "sara (sender)")

	loc, err := model.LoadTimezone("")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().In(loc)
	from, until := now.Add(-time.Hour).Format("15:04"), now.Add(2*time.Hour).Format("15:04")
	w.setLive(from + "-" + until)
	said := "quiet hours until "

	reza := w.open("reza", nil)
	reza.waitFor("reza (sender)", said)
	if s := reza.out.String(); !strings.Contains(s[strings.Index(s, said):], until) {
		t.Errorf("a new session's status bar does not end quiet hours at %s:\n%s", until, s)
	}

	polls := 0
	eventually.True(t, wait, func() bool {
		if polls++; polls%10 == 1 {
			sara.key("\x0c") // ctrl+l: drawn whole again
		}
		s := sara.out.String()
		i := strings.LastIndex(s, said)
		return i >= 0 && strings.Contains(s[i:], until)
	}, func() string { return "sara's status bar never says " + said + until + ":\n" + sara.out.String() })
}
