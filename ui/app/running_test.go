package app

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
)

// A send a run on another host still holds is refused for a resume naming
// that run (what, which host, which process) and when its lease ends:
// "still running (here or in another smsdesk)" said neither, nor how long
// to wait (issue 40 §10).
func TestResumeRefusalNamesTheRunThatHoldsIt(t *testing.T) {
	for _, b := range ledgertest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			sl := newSharedLedger(t, b)
			v := newService(t, sandbox.Options{})
			s := v.session(t, sl.paths(t), &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
			out := send(t, s, pairs(2))
			id := out.Summary.JobID
			ledgertest.HoldLease(t, sl.loc, id, "smsdesk serve", "web-2", 4242, 45*time.Second)

			_, err := s.PrepareResume(t.Context(), id, ResumeOptions{})
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != RuleRunning || r.Holder == nil {
				t.Fatalf("PrepareResume of a send another host's run holds: %v, want RuleRunning naming the run", err)
			}
			if h := r.Holder; h.Holder != "smsdesk serve" || h.Host != "web-2" || h.PID != 4242 || h.ThisHost ||
				time.Until(h.Until) <= 0 || time.Until(h.Until) > 45*time.Second {
				t.Errorf("holder %+v", *h)
			}
			for _, want := range []string{"send " + id + " is still running: smsdesk serve on web-2 (process 4242) holds it; its lease ends at ",
				" unless that run goes on; wait for it to end, then resume"} {
				if !strings.Contains(r.Reason, want) {
					t.Errorf("reason %q does not say %q", r.Reason, want)
				}
			}
		})
	}
}
