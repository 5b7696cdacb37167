package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// printSchedule says, under history show's first line, when a scheduled
// send is (or was) to go, who scheduled it, and what became of it: the
// runner that started it, or who cancelled it, or why it was missed.
func printSchedule(w io.Writer, zone *time.Location, st *model.JournalState, now time.Time) {
	if !st.Scheduled() {
		return
	}
	p := st.Plan
	by := ""
	if p.Operator != nil {
		by = " by " + p.Operator.Name
	}
	printf(w, "Scheduled%s at %s for %s", by, fmtTime(p.Time, zone), model.AtText(p.ScheduledFor, zone))
	switch {
	case st.Waiting():
		printf(w, " (%s): it runs while smsdesk serve or smsdesk scheduler runs; smsdesk history cancel %s cancels it\n", model.DueText(p.ScheduledFor, now), p.ID)
	case st.StartedBy != "":
		printf(w, "; started by %s at %s\n", st.StartedBy, fmtTime(st.StartedAt, zone))
	case st.Cancel != nil:
		printf(w, "; %s\n", cancelText(st.Cancel, zone))
	default:
		fmt.Fprintln(w)
	}
}

// historyCancelOptions are what history cancel was asked.
type historyCancelOptions struct {
	f   *Factory
	IO  *IOStreams
	ID  string
	Yes bool
}

func newCmdHistoryCancel(f *Factory, runF func(context.Context, *historyCancelOptions) error) *cobra.Command {
	o := &historyCancelOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = historyCancelRun
	}
	cmd := &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a scheduled send before its time",
		Long: `Cancels a send scheduled with send-pair --at before its time: nothing of it is
sent, and its journal records who cancelled it and when (history shows it
cancelled). Asks first (default no; --yes for scripts). A send that has
started is not cancelled: stop it where it runs (ctrl+c in its terminal, or
stop the smsdesk serve or scheduler running it; the chunk in flight finishes
and is journaled), and what it leaves goes on with send-pair --resume ID.`,
		Example: "  smsdesk history cancel 20261125-190000-3fa9c1\n  smsdesk history --status scheduled",
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "cancel without asking")
	return cmd
}

// historyCancelRun asks (unless --yes), then cancels the scheduled send
// (app.Session.CancelScheduled: whether it may be is ui/app's).
func historyCancelRun(ctx context.Context, o *historyCancelOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	e, err := s.App.ReadSend(ctx, o.ID)
	if err != nil {
		return refused(err)
	}
	st := e.State
	if st.Waiting() && !e.Running && !o.Yes {
		q := fmt.Sprintf("Cancel send %s: %s from %s, scheduled for %s (%s)?", o.ID, model.Counted(st.Counts().NotSent, "message"), st.Plan.Sender,
			model.AtText(st.Plan.ScheduledFor, s.App.Profile.Zone()), model.DueText(st.Plan.ScheduledFor, o.f.now()))
		ok, err := o.IO.Confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not cancelled: the answer was no; send %s is still scheduled", o.ID)
		}
	}
	if err := s.App.CancelScheduled(ctx, o.ID); err != nil {
		return refused(err)
	}
	printf(o.IO.Out, "Cancelled send %s: nothing of it will be sent.\n", o.ID)
	return nil
}

// notWaitingHint is what to do about a send that is not waiting to be
// cancelled: stop a running one, resume what it left.
func notWaitingHint(r *app.Refusal) string {
	switch r.Status {
	case "running":
		return fmt.Sprintf("stop it where it runs (ctrl+c in its terminal, or stop the smsdesk serve or scheduler running it): the chunk in flight finishes and is journaled; what it leaves goes on with smsdesk send-pair --resume %s", r.SendID)
	case "cancelled", "missed", "complete":
		return ""
	}
	return fmt.Sprintf("smsdesk history show %s says where it stands; what it left goes on with smsdesk send-pair --resume %s", r.SendID, r.SendID)
}
