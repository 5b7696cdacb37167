package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// RunHolder is the run still working on a send (RuleRunning): what it is,
// where, and when its lease ends unless that run writes again. A run that
// ended has let its lease go at once (Send.Done), so a run named here is
// one still going, or one whose process died with it (its lease then ends
// at Until, or at once on this host).
type RunHolder struct {
	Holder string // what holds it: "smsdesk serve", "smsdesk scheduler" (sanitised)
	Host   string // the host it runs on (sanitised)
	PID    int
	// ThisHost: Host is this machine.
	ThisHost bool
	// Until is when the lease ends unless renewed (real time, this host's
	// clock); zero when not known.
	Until time.Time
}

// runningRefusal is the RuleRunning refusal of send id when a run holds
// it (nil when none does), naming the run and when its lease ends.
func (s *Session) runningRefusal(ctx context.Context, id string) *Refusal {
	held, ok := config.JournalLease(ctx, s.Paths, id)
	if !ok {
		return nil
	}
	return s.heldRefusal(id, &RunHolder{Holder: held.LeaseHolder, Host: held.LeaseHost, PID: held.LeasePID, Until: held.LeaseUntil})
}

// inUseRefusal is err, a lease another run holds (ledger.InUseError), as
// the RuleRunning refusal of send id; other errors are returned as they are.
func (s *Session) inUseRefusal(id string, err error) error {
	var iu *ledger.InUseError
	if !errors.As(err, &iu) {
		return err
	}
	return s.heldRefusal(id, &RunHolder{Holder: iu.Holder, Host: iu.Host, PID: iu.PID, Until: iu.Until})
}

// heldRefusal says that h holds send id: "send ID is still running:
// smsdesk serve on web-2 (process 4242) holds it; its lease ends at
// 14:03:10 (in 40s) unless that run goes on; wait for it to end, then
// resume".
func (s *Session) heldRefusal(id string, h *RunHolder) *Refusal {
	host, _ := os.Hostname()
	h.Holder, h.Host = model.SanitizeLine(h.Holder), model.SanitizeLine(h.Host)
	h.ThisHost = h.Host == host
	who := h.Holder
	if who == "" {
		who = "another smsdesk"
	}
	where := "on " + h.Host
	if h.ThisHost {
		where = "on this host"
	}
	ends := ""
	if !h.Until.IsZero() {
		ends = fmt.Sprintf("; its lease ends at %s (in %s) unless that run goes on", h.Until.In(s.Profile.Zone()).Format("15:04:05"),
			model.Countdown(time.Until(h.Until)))
	}
	sid := model.SanitizeLine(id)
	return &Refusal{Rule: RuleRunning, SendID: sid, Holder: h,
		Reason: fmt.Sprintf("send %s is still running: %s %s (process %d) holds it%s; wait for it to end, then resume", sid, who, where, h.PID, ends)}
}
