package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyShowJSON is `history show --json`.
type historyShowJSON struct {
	historyJSON
	// Delivery is the send's delivery report (it stands for history's
	// counts of the same name): counts by state, and each state's share,
	// parts and cost.
	Delivery model.DeliveryReport `json:"delivery"`
	Results  []sendResultJSON     `json:"results"`
}

// historyShowOptions are what history show was asked.
type historyShowOptions struct {
	f         *Factory
	IO        *IOStreams
	ID        string
	JSON, CSV bool
	Refresh   bool // poll the delivery states first
}

func newCmdHistoryShow(f *Factory, runF func(context.Context, *historyShowOptions) error) *cobra.Command {
	o := &historyShowOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = historyShowRun
	}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "List every recipient of a send with its status, message id and error",
		Long: `Lists every recipient of a send from its journal. --refresh first asks the
service for the delivery status of accepted messages (one pass, spending at most
a quarter of the rate budget) and records it.`,
		Example: "  smsdesk history show 20260102-150405-3fa9c1 --json",
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.JSON && o.CSV {
				return usageError("--json and --csv: choose one")
			}
			o.ID = args[0]
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", historyShowFields, "smsdesk history show 20260102-150405-3fa9c1 --json=counts,results")
	cmd.Flags().BoolVar(&o.CSV, "csv", false, "print every recipient as CSV (cells that would run as formulas are neutralised)")
	cmd.Flags().BoolVar(&o.Refresh, "refresh", false, "poll the delivery status of accepted messages first")
	return cmd
}

// historyShowRun prints every recipient of a send, as its journal has it.
func historyShowRun(ctx context.Context, o *historyShowOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	if o.Refresh {
		if err := o.refreshDelivery(ctx); err != nil {
			return err
		}
	}
	rep, err := s.App.DeliveryReport(ctx, o.ID)
	if err != nil {
		return refused(err)
	}
	e := rep.Entry
	st := e.State
	i := 0
	err = rep.EachRow(ctx, func(r app.ReportRow) error {
		st.Items[i].Delivery = string(r.Delivery) // the deliveries row's: webhooks and the runner's polls
		i++
		return nil
	})
	if err != nil {
		return err
	}
	h := entryJSON(e, s.App.Profile.Zone())
	h.setDelivery(rep.Delivery.DeliveryCounts)
	switch {
	case o.JSON:
		out := historyShowJSON{historyJSON: h, Delivery: rep.Delivery, Results: make([]sendResultJSON, len(st.Items))}
		for i, it := range st.Items {
			out.Results[i] = resultJSON(it)
		}
		return printJSON(o.IO.Out, out)
	case o.CSV:
		rows := make([][]string, len(st.Items))
		for i, it := range st.Items {
			rows[i] = []string{strconv.Itoa(it.Index), strconv.Itoa(it.Line), it.Recipient, it.Message, statusText(it.State), it.MessageID, it.Delivery, it.Code, it.Error}
		}
		return writeCSV(o.IO.Out, []string{"index", "line", "recipient", "message", "status", "message_id", "delivery", "code", "error"}, rows)
	}
	return o.print(s, e, h)
}

// print writes the send for people: its line, its schedule, a table of
// recipients, its counts, and what stopped, held or may continue it.
func (o *historyShowOptions) print(s *session, e app.HistoryEntry, h historyJSON) error {
	st, w, zone := e.State, o.IO.Out, s.App.Profile.Zone()
	p := st.Plan
	status := h
	status.ResendOf = nil // the source says it: "resend of ID"
	printf(w, "Send %s  %s  profile %s  sender %s  %s  (%s)\n", p.ID, fmtTime(p.Time, zone), p.Profile, p.Sender, p.Source, humanStatus(status, o.f.now()))
	printSchedule(w, zone, st, o.f.now())
	rows := make([][]string, len(st.Items))
	for i, it := range st.Items {
		rows[i] = []string{lineText(it.Line), it.Recipient, statusText(it.State), it.MessageID, it.Delivery, it.Error}
	}
	if err := o.IO.table(w, []string{"LINE", "RECIPIENT", "STATUS", "MESSAGE ID", "DELIVERY", "ERROR"}, rows); err != nil {
		return err
	}
	printSummary(w, p.ID, h.Counts, h.Status == "interrupted", h.Status == "stopped")
	if h.Delivery.Messages > 0 {
		printf(w, "Delivery: %s (smsdesk history report %s)\n", deliveryShares(h.Delivery), p.ID)
	}
	if hint := resendHint(p.ID, h.Delivery); hint != "" {
		printf(w, "To resend the failed: %s\n", hint)
	}
	printWhereItStands(w, st, zone)
	if st.Waiting() || st.Cancelled() {
		return nil // a runner starts it at its time; a cancelled send is not resumed
	}
	if hint := resumeHint(p.ID, h.Counts, st.Interrupted || st.Cancel != nil); hint != "" && !e.Running {
		fmt.Fprintf(w, "To continue: %s\n", hint)
	}
	return nil
}

// resendHint is the command that sends again a send's failed messages
// (and how to add the rejected), or "" when none failed.
func resendHint(id string, c model.DeliveryCounts) string {
	switch {
	case c.Failed > 0 && c.Rejected > 0:
		return fmt.Sprintf("smsdesk send-pair --resend-failed %s (with --include-rejected, the %d rejected too)", id, c.Rejected)
	case c.Failed > 0:
		return "smsdesk send-pair --resend-failed " + id
	case c.Rejected > 0:
		return "smsdesk send-pair --resend-failed " + id + " --include-rejected"
	}
	return ""
}

// deliveryShares is the counts with their shares: "8 delivered (80%) · 1
// failed (10%) · 1 pending (10%)" (the states with messages).
func deliveryShares(c model.DeliveryCounts) string {
	var parts []string
	for _, st := range model.DeliveryStates {
		if n := c.Of(st); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", n, st.Words(), percent(n, c.Messages)))
		}
	}
	return strings.Join(parts, " · ")
}

// percent is n of total as a whole percentage, "<1%" for a few of many.
func percent(n, total int) string {
	p := n * 100 / total
	if p == 0 && n > 0 {
		return "<1%"
	}
	return strconv.Itoa(p) + "%"
}

// printWhereItStands says what damaged, stopped or holds a send.
func printWhereItStands(w io.Writer, st *model.JournalState, zone *time.Location) {
	if d := app.DamageText(st); d != "" {
		fmt.Fprintf(w, "Warning: %s\n", d)
	}
	if st.Stopped != "" {
		printf(w, "Stopped: %s\n", stopText(app.Summary{Stopped: st.Stopped, Cause: app.StopCause(st.StopCause)}))
	}
	if hold := app.HoldText(st, zone); hold != "" && st.Stopped == "" { // held now: said by Stopped
		printf(w, "Held: %s\n", strings.TrimPrefix(hold, "held "))
	}
}

// refreshDelivery polls delivery states for the send and records them.
func (o *historyShowOptions) refreshDelivery(ctx context.Context) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	n, err := s.App.RefreshDelivery(ctx, o.ID)
	switch {
	case errors.Is(err, app.ErrNoDelivery):
		fmt.Fprintln(o.IO.ErrOut, "The service does not report delivery status (404 or 405); not asking again.")
	case err != nil:
		return refused(err)
	default:
		fmt.Fprintf(o.IO.ErrOut, "%d delivery state(s) updated.\n", n)
	}
	return nil
}
