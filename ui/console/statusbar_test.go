package console

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestStatusBarKeepsTheRules: at 100 columns a served operator's status
// bar keeps the sender line and quiet hours whole, and the rate gives way
// (quiet hours, last on the line, were cut off: issue 35 item 11).
func TestStatusBarKeepsTheRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	loc, _ := model.LoadTimezone("")
	from, to := fixedNow.Add(30*time.Minute).In(loc), fixedNow.Add(2*time.Hour).In(loc)
	prof := config.Profile{Sender: sandbox.DefaultSender, QuietHours: from.Format("15:04") + "-" + to.Format("15:04")}
	sess.Profile = app.ResolveProfile("test", sess.Profile.BaseURL, &prof, "test")
	sess.Operator = &model.Operator{Name: "sara", Role: model.RoleAdmin}
	tm := e.startOnGroup1(t)
	var bar string
	waitModel(t, tm, "the status bar", func(m *root) bool {
		lines := strings.Split(m.text(), "\n")
		bar = lines[len(lines)-2]
		return strings.Contains(bar, "sara (admin)")
	})
	for _, want := range []string{"sender " + sandbox.DefaultSender + " · ", "quiet hours at " + from.Format("15:04")} {
		if !strings.Contains(bar, want) {
			t.Errorf("the status bar lacks %q:\n%s", want, bar)
		}
	}
	if strings.Contains(bar, "…") {
		t.Errorf("the status bar is cut:\n%s", bar)
	}
}
