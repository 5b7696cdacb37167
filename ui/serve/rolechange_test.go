package serve

import (
	"context"
	"errors"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/fakeclock"
	"github.com/smsdesk/smsdesk/ui/app"
)

// TestRoleAtTheYes: the operator's role is read again as the send starts,
// not only when its question opened (issue 35): an admin made a sender, or
// a viewer, while "Send these messages?" (quiet hours waived) is open, a
// sender made a viewer, an operator removed: the yes is refused with the
// role it needs (or that they are no longer an operator), no request
// reaches the service and no send is journaled. An admin made a sender
// meanwhile sent 2 texts inside quiet hours.
func TestRoleAtTheYes(t *testing.T) {
	night := time.Date(2026, 11, 25, 19, 30, 0, 0, time.UTC) // 23:00 in Tehran: inside 22:00-08:00
	day := time.Date(2026, 11, 25, 6, 30, 0, 0, time.UTC)    // 10:00 in Tehran
	for _, tc := range []struct {
		name        string
		was         model.Role
		now         model.Role // "": removed from the operators file
		at          time.Time
		ignoreQuiet bool
		rule        app.Rule
	}{
		{"admin made a sender, quiet hours waived", model.RoleAdmin, model.RoleSender, night, true, app.RuleRole},
		{"admin made a viewer, quiet hours waived", model.RoleAdmin, model.RoleViewer, night, true, app.RuleRole},
		{"sender made a viewer", model.RoleSender, model.RoleViewer, day, false, app.RuleRole},
		{"sender removed", model.RoleSender, "", day, false, app.RuleOperator},
		{"admin removed, quiet hours waived", model.RoleAdmin, "", night, true, app.RuleOperator},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, worldOptions{})
			w.addOperator("nima", tc.was)
			clock := fakeclock.New(tc.at)
			op := model.Operator{Name: "nima", Fingerprint: gossh.FingerprintSHA256(w.keys["nima"].PublicKey()), Role: tc.was}
			nima := w.srv.opts.NewSession(op)
			nima.Now = clock.Now
			nima.Profile.Quiet, _ = model.ParseQuietHours("22:00-08:00")
			ctx := context.Background()
			p, err := nima.PrepareSend(ctx, app.SendRequest{Plan: nima.Plan(sandbox.DefaultSender, pairRows(2)), Source: app.TypedSource(),
				IgnoreQuietHours: tc.ignoreQuiet})
			if err != nil || p.Refusal != nil {
				t.Fatalf("the question, as %s: %v %v", tc.was, err, p.Refused())
			}

			if tc.now == "" {
				err = config.RemoveOperator(w.paths, "nima")
			} else {
				err = config.SetOperatorRole(w.paths, "nima", tc.now)
			}
			if err != nil {
				t.Fatal(err)
			}
			x, err := p.Start(ctx, app.SendOptions{})
			if x != nil {
				_, _ = x.Wait()
			}
			var ref *app.Refusal
			if !errors.As(err, &ref) || ref.Rule != tc.rule {
				t.Errorf("y after the change: %v, want a %s refusal", err, tc.rule)
			}
			if n := len(w.sb.Sent()); n != 0 {
				t.Errorf("the service took %d", n)
			}
			if js := w.journals(); len(js) != 0 {
				t.Errorf("%d sends journaled", len(js))
			}
		})
	}
}
